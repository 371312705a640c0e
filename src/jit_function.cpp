#include "triton_jit/jit_function.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <unordered_map>

#include "cuda/device.h"
#include "cuda/driver_api.h"
#include "hit_counters.h"
#include "kernel_cache.h"
#include "launcher.h"
#include "python/bridge.h"
#include "runtime_state.h"
#include "signature_parser.h"
#include "spec_key.h"
#include "triton_jit/errors.h"

namespace triton_jit {

using detail::ArgProblem;
using detail::KernelEntry;
using detail::kMaxParams;
using detail::ParamCode;
using detail::SpecKey;
using detail::TypeKind;

namespace {

// Python's name of an argument's kind, for messages.
const char* kind_name(ArgValue::Kind kind) {
  constexpr const char* kNames[] = {"None", "bool", "int", "int", "float", "pointer", "string"};
  return kNames[static_cast<int>(kind)];
}

}  // namespace

struct TritonJitFunction::Impl {
  std::string path;
  std::string name;
  python::PyHandle py_function;
  StaticSignature signature;
  std::vector<detail::ParamRule> rules;
  std::vector<ArgValue> defaults;        // views into signature's default values
  std::vector<bool> default_usable;      // a default C++ can pass exists
  detail::KernelTable table;

  std::mutex compile_mutex;  // guards table inserts and `pending`; never taken by a hit
  struct Pending {
    std::promise<const KernelEntry*> promise;
    std::shared_future<const KernelEntry*> future = promise.get_future().share();
  };
  std::unordered_map<std::string, std::shared_ptr<Pending>> pending;

  const int hit_slot = detail::allocate_counter_slot();
  mutable std::atomic<uint64_t> hits{0};  // used when hit_slot is -1
  mutable std::atomic<uint64_t> misses{0}, compiles{0}, loads{0};

  // ---- cold error paths: messages are built only when something is wrong ----

  [[noreturn, gnu::cold, gnu::noinline]] void fail_count(size_t given, size_t missing_index) const {
    std::string names;
    for (const ParamInfo& p : signature.params) names += (names.empty() ? "" : ", ") + p.name;
    if (given > rules.size()) {
      throw ArgumentError(signature.function + " takes " + std::to_string(rules.size()) + " arguments (" + names +
                              ") but " + std::to_string(given) + " were given",
                          signature.function, "");
    }
    const ParamInfo& missing = signature.params[missing_index];
    std::string why = missing.default_value && !missing.default_value->representable
                          ? " (its default " + missing.default_value->repr + " has no C++ form: pass it explicitly)"
                          : " and it has no default";
    throw ArgumentError(signature.function + " takes " + std::to_string(rules.size()) + " arguments (" + names +
                            ") but " + std::to_string(given) + " were given: parameter '" + missing.name +
                            "' is missing" + why,
                        signature.function, missing.name);
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_arg(int index, ArgProblem problem, const ArgValue& arg) const {
    const ParamInfo& p = signature.params[static_cast<size_t>(index)];
    const char* kind = kind_name(arg.kind());
    std::string what;
    switch (problem) {
      case ArgProblem::PointerForConstexpr:
        what = "is a tl.constexpr and needs a compile-time value (int, bool, float, None or string), but a device "
               "pointer (a runtime value) was given";
        break;
      case ArgProblem::StringForRuntime:
        what = "is a runtime parameter; a string can only be passed to a tl.constexpr parameter";
        break;
      case ArgProblem::KindForAnnotation:
        what = "is annotated '" + p.annotation + "' and cannot take a " + kind;
        break;
      case ArgProblem::None:
        what = "was rejected";
        break;
    }
    throw ArgumentError(signature.function + ": parameter '" + p.name + "' (#" + std::to_string(index) + ") " + what,
                        signature.function, p.name);
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_config(const LaunchConfig& c) const {
    throw ArgumentError(signature.function + ": invalid launch options num_warps=" + std::to_string(c.num_warps) +
                            ", num_stages=" + std::to_string(c.num_stages) + ", num_ctas=" +
                            std::to_string(c.num_ctas) +
                            " (num_warps must be a power of two in 1..64, num_stages in 0..255, num_ctas in 1..16)",
                        signature.function, "");
  }

  void check_config(const LaunchConfig& c) const {
    const unsigned warps = static_cast<unsigned>(c.num_warps);
    if (warps == 0 || warps > 64 || (warps & (warps - 1)) != 0 || c.num_stages < 0 || c.num_stages > 255 ||
        c.num_ctas < 1 || c.num_ctas > 16) {
      fail_config(c);
    }
  }

  // ---- key building, shared by launch, specialize and compile ----

  [[noreturn, gnu::cold, gnu::noinline]] void fail_none_scalar(uint32_t index, const ParamCode& code) const {
    const ParamInfo& p = signature.params[index];
    throw ArgumentError(signature.function + ": parameter '" + p.name + "' (#" + std::to_string(index) +
                            ") has type " + detail::type_string(code) + " and cannot be None; pass a value",
                        signature.function, p.name);
  }

  // The general path of one parameter (annotations, and the errors): kept out of the loop so the
  // common path stays in registers.
  struct SlowResult {
    ParamCode code;
    uint64_t slot = 0;
  };
  [[gnu::noinline]] SlowResult slow_specialize(uint32_t i, const ArgValue& arg, bool pack) const {
    SlowResult r;
    ArgProblem problem = ArgProblem::None;
    if (!detail::specialize_param(rules[i], arg, &r.code, &problem)) fail_arg(static_cast<int>(i), problem, arg);
    if (pack && r.code.kind() != TypeKind::Constexpr && !detail::pack_value(r.code, arg, &r.slot)) {
      fail_none_scalar(i, r.code);
    }
    return r;
  }

  // Completes `args` with defaults (into `storage` when needed) and builds the key; with kPack,
  // also packs the runtime arguments into `packed` in the same pass. Returns the argument array
  // to use from here on.
  template <bool kPack>
  const ArgValue* bind(const LaunchConfig& c, ArgSpan args, int arch, int warp_size, SpecKey* key,
                       ArgValue* storage, detail::PackedParams* packed) const {
    const uint32_t n = static_cast<uint32_t>(rules.size());
    const ArgValue* full = args.data;
    if (args.size != n) {
      if (args.size > n) fail_count(args.size, 0);
      for (size_t i = args.size; i < n; ++i) {
        if (!default_usable[i]) fail_count(args.size, i);
      }
      std::memcpy(static_cast<void*>(storage), args.data, args.size * sizeof(ArgValue));
      std::memcpy(static_cast<void*>(storage + args.size), defaults.data() + args.size,
                  (n - args.size) * sizeof(ArgValue));
      full = storage;
    }
    check_config(c);
    uint64_t* words = key->words;
    words[0] = detail::make_header(c.num_warps, c.num_stages, c.num_ctas, arch, warp_size);
    words[1] = c.options ? c.options->hash() : 0;
    const uint32_t code_words = SpecKey::code_words(n);
    uint32_t next = 2 + code_words;  // payload words follow the codes
    int num_packed = 0;
    uint64_t codes = 0;  // four 16-bit codes a word, built in a register and stored once
    const detail::ParamRule* rule = rules.data();
    uint64_t* slots = kPack ? packed->storage : nullptr;
    void** pointers = kPack ? packed->pointers : nullptr;
    for (uint32_t i = 0; i < n; ++i) {
      uint16_t code;
      uint64_t payload = 0;
      uint64_t slot = 0;
      if (!detail::fast_specialize(rule[i], full[i], &code, &payload, &slot)) {
        const SlowResult r = slow_specialize(i, full[i], kPack);
        code = r.code.code;
        payload = r.code.payload;
        slot = r.slot;
      }
      codes |= static_cast<uint64_t>(code) << (16 * (i % 4));
      if (i % 4 == 3) {
        words[2 + i / 4] = codes;
        codes = 0;
      }
      if ((code & 3) == static_cast<uint16_t>(TypeKind::Constexpr)) {
        words[next++] = payload;
      } else if constexpr (kPack) {
        slots[num_packed] = slot;
        pointers[num_packed] = &slots[num_packed];
        ++num_packed;
      }
    }
    if (n % 4 != 0) words[2 + n / 4] = codes;
    if constexpr (kPack) packed->count = num_packed;
    key->num_params = n;
    key->num_words = next;
    key->hash = detail::hash_words(words, next);
    return full;
  }

  Specialization describe(const SpecKey& key, const ArgValue* args, const LaunchConfig& c, const Target& t) const {
    Specialization s;
    s.num_warps = c.num_warps;
    s.num_stages = c.num_stages;
    s.num_ctas = c.num_ctas;
    s.target = t.str();
    for (uint32_t i = 0; i < key.num_params; ++i) s.params.push_back(detail::describe(key.param(i), args[i]));
    return s;
  }

  // ---- miss path ----

  const KernelEntry* get_or_compile(const SpecKey& key, const ArgValue* args, const LaunchConfig& c,
                                    const Target& target) {
    misses.fetch_add(1, std::memory_order_relaxed);
    std::string pending_key(reinterpret_cast<const char*>(key.words), key.num_words * sizeof(uint64_t));
    std::vector<std::pair<int, std::string>> strings;
    for (uint32_t i = 0; i < key.num_params; ++i) {
      const ParamCode code = key.param(i);
      if (code.kind() == TypeKind::Constexpr && code.value_kind() == ArgValue::Kind::String) {
        strings.emplace_back(static_cast<int>(i), std::string(args[i].as_string()));
        pending_key += '\0';
        pending_key += args[i].as_string();
      }
    }
    std::shared_ptr<Pending> mine;
    std::shared_ptr<Pending> theirs;
    {
      std::lock_guard<std::mutex> lock(compile_mutex);
      if (const KernelEntry* e = table.find(key, args)) return e;
      auto it = pending.find(pending_key);
      if (it != pending.end()) {
        theirs = it->second;
      } else {
        mine = std::make_shared<Pending>();
        pending.emplace(pending_key, mine);
      }
    }
    if (theirs) {
      // Another thread compiles this key: share its result. It needs the GIL, which this thread
      // may hold when the host program is Python.
      python::ScopedGilRelease release;
      return theirs->future.get();
    }

    try {
      Specialization spec = describe(key, args, c, target);
      const auto start = std::chrono::steady_clock::now();
      KernelInfo info = python::compile(py_function, signature, spec, c.options, target);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      compiles.fetch_add(1, std::memory_order_relaxed);
      if (detail::log_enabled(LogLevel::Info)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f", ms);
        detail::log_line("compiled " + signature.function + " [" + spec.signature() + "] num_warps=" +
                         std::to_string(c.num_warps) + " num_stages=" + std::to_string(c.num_stages) +
                         " num_ctas=" + std::to_string(c.num_ctas) + " for " + target.str() + " in " + buf + " ms");
      }
      auto entry = std::make_unique<KernelEntry>(key, std::move(strings), std::move(info));
      const KernelEntry* result = entry.get();
      {
        std::lock_guard<std::mutex> lock(compile_mutex);
        table.insert(std::move(entry));
        pending.erase(pending_key);
      }
      mine->promise.set_value(result);
      return result;
    } catch (...) {
      // Nothing was inserted: the next call tries again. Waiters get the same error.
      {
        std::lock_guard<std::mutex> lock(compile_mutex);
        pending.erase(pending_key);
      }
      mine->promise.set_exception(std::current_exception());
      throw;
    }
  }

  // Target for calls that need no device: explicit, else the current device's when a driver
  // and device exist, else cuda:90.
  Target compile_target() const {
    if (auto t = explicit_target()) return *t;
    if (cuda::driver_available()) {
      try {
        return Target{"cuda", cuda::current_device().info->arch, 32};
      } catch (const NoDeviceError&) {
      }
    }
    return Target{};
  }
};

namespace {

// Room for a call's arguments with defaults filled in, left uninitialized: a launch writes only
// the slots it uses, and only when defaults are needed.
struct ArgStorage {
  alignas(ArgValue) unsigned char bytes[sizeof(ArgValue) * kMaxParams];
  ArgValue* data() { return reinterpret_cast<ArgValue*>(bytes); }
};
static_assert(std::is_trivially_copyable_v<ArgValue>);

std::mutex g_registry_mutex;
std::map<std::pair<std::string, std::string>, TritonJitFunction*>& registry() {
  static auto* r = new std::map<std::pair<std::string, std::string>, TritonJitFunction*>();
  return *r;
}

}  // namespace

TritonJitFunction::TritonJitFunction(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TritonJitFunction::~TritonJitFunction() = default;

TritonJitFunction& TritonJitFunction::get(std::string_view path, std::string_view name) {
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::canonical(std::filesystem::path(path), ec);
  if (ec || !std::filesystem::is_regular_file(canonical)) {
    throw KernelLookupError("cannot get Triton function '" + std::string(name) + "': no such file: " +
                                std::string(path) + " (resolved from " + std::filesystem::current_path().string() + ")",
                            std::string(path), std::string(name));
  }
  std::pair<std::string, std::string> id{canonical.string(), std::string(name)};
  {
    std::lock_guard<std::mutex> lock(g_registry_mutex);
    auto it = registry().find(id);
    if (it != registry().end()) return *it->second;
  }
  // Python runs without the registry lock: a host Python thread holding the GIL may be waiting
  // for that lock. The GIL serializes loads anyway; a lost race discards its copy below.
  python::LoadedFunction loaded = python::load_function(id.first, id.second);
  if (loaded.signature.params.size() > static_cast<size_t>(kMaxParams)) {
    throw KernelLookupError("Triton function '" + id.second + "' has " +
                                std::to_string(loaded.signature.params.size()) + " parameters; at most " +
                                std::to_string(kMaxParams) + " are supported",
                            id.first, id.second);
  }
  auto impl = std::make_unique<Impl>();
  impl->path = id.first;
  impl->name = id.second;
  impl->py_function = loaded.function;
  impl->signature = std::move(loaded.signature);
  for (const ParamInfo& p : impl->signature.params) {
    impl->rules.push_back(detail::make_rule(p));
    const bool usable = p.default_value && p.default_value->representable;
    impl->default_usable.push_back(usable);
    impl->defaults.push_back(usable ? p.default_value->to_arg() : ArgValue::none());
  }
  // Functions live as long as the process: callers keep references, and Python owns parts.
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  auto it = registry().find(id);
  if (it != registry().end()) return *it->second;
  auto* fn = new TritonJitFunction(std::move(impl));
  registry().emplace(std::move(id), fn);
  return *fn;
}

void TritonJitFunction::launch(const LaunchConfig& config, ArgSpan args) const {
  Impl& m = *impl_;
  const cuda::CurrentDevice dev = cuda::current_device();
  const uint32_t explicit_target = detail::explicit_target_packed();
  const int arch = explicit_target ? static_cast<int>(explicit_target & 0xffff) : dev.info->arch;
  const int warp_size = explicit_target ? static_cast<int>(explicit_target >> 16) : 32;

  SpecKey key;
  ArgStorage storage;
  detail::PackedParams packed;
  const ArgValue* full = m.bind<true>(config, args, arch, warp_size, &key, storage.data(), &packed);

  const KernelEntry* entry = m.table.find(key, full);
  if (entry != nullptr) {
    detail::count_hit(m.hit_slot, m.hits);
  } else {
    Target target{"cuda", arch, warp_size};
    entry = m.get_or_compile(key, full, config, target);
  }
  CUfunction function = entry->function_for(dev.context, *dev.info, m.loads);
  detail::launch_kernel(*entry, function, config, packed, *dev.info, m.signature.function.c_str());
}

Specialization TritonJitFunction::specialize(const LaunchConfig& config, ArgSpan args) const {
  const Target target = impl_->compile_target();
  SpecKey key;
  ArgStorage storage;
  const ArgValue* full = impl_->bind<false>(config, args, target.arch, target.warp_size, &key, storage.data(), nullptr);
  return impl_->describe(key, full, config, target);
}

const KernelInfo& TritonJitFunction::compile(const LaunchConfig& config, ArgSpan args) const {
  const Target target = impl_->compile_target();
  SpecKey key;
  ArgStorage storage;
  const ArgValue* full = impl_->bind<false>(config, args, target.arch, target.warp_size, &key, storage.data(), nullptr);
  const KernelEntry* entry = impl_->table.find(key, full);
  if (entry != nullptr) {
    detail::count_hit(impl_->hit_slot, impl_->hits);
  } else {
    entry = impl_->get_or_compile(key, full, config, target);
  }
  return entry->info();
}

KernelInfo TritonJitFunction::compile_signature(std::string_view signature, int num_warps, int num_stages,
                                                int num_ctas, const Target& target,
                                                const CompileOptions* options) const {
  LaunchConfig config;
  config.num_warps = num_warps;
  config.num_stages = num_stages;
  config.num_ctas = num_ctas;
  impl_->check_config(config);
  Specialization spec = detail::parse_signature(impl_->signature, signature);
  spec.num_warps = num_warps;
  spec.num_stages = num_stages;
  spec.num_ctas = num_ctas;
  spec.target = target.str();
  KernelInfo info = python::compile(impl_->py_function, impl_->signature, spec, options, target);
  impl_->compiles.fetch_add(1, std::memory_order_relaxed);
  return info;
}

const StaticSignature& TritonJitFunction::signature() const noexcept { return impl_->signature; }
const std::string& TritonJitFunction::name() const noexcept { return impl_->name; }
const std::string& TritonJitFunction::path() const noexcept { return impl_->path; }

CacheStats TritonJitFunction::stats() const noexcept {
  CacheStats s;
  s.hits = impl_->hits.load(std::memory_order_relaxed) +
           (impl_->hit_slot >= 0 ? detail::sum_hits(impl_->hit_slot) : 0);
  s.misses = impl_->misses.load(std::memory_order_relaxed);
  s.compiles = impl_->compiles.load(std::memory_order_relaxed);
  s.loads = impl_->loads.load(std::memory_order_relaxed);
  return s;
}

CacheStats global_stats() {
  CacheStats total;
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  for (const auto& [id, fn] : registry()) {
    CacheStats s = fn->stats();
    total.hits += s.hits;
    total.misses += s.misses;
    total.compiles += s.compiles;
    total.loads += s.loads;
  }
  return total;
}

std::string triton_version() { return python::triton_version(); }

}  // namespace triton_jit

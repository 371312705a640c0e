#include "triton_jit/jit_function.h"

#include <filesystem>
#include <map>
#include <mutex>

#include "function/jit_function_impl.h"
#include "key/signature_parser.h"
#include "store/kernel_index.h"
#include "store/pack_registry.h"

namespace triton_jit {

using detail::KernelIndex;
using detail::PackRegistry;

namespace {

std::mutex g_registry_mutex;
std::map<std::pair<std::string, std::string>, TritonJitFunction*>& registry() {
  static auto* r = new std::map<std::pair<std::string, std::string>, TritonJitFunction*>();
  return *r;
}

}  // namespace

TritonJitFunction::TritonJitFunction(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TritonJitFunction::~TritonJitFunction() = default;

namespace {

// The static signature of `name` in `path` without Python when a pack or the index has it;
// else through Python (and then recorded in the index for the next process). `source` is the
// file as read now; none when there is no file, which only a pack can make up for.
StaticSignature read_static_signature(std::string_view requested_path, const std::string& path,
                                      const std::string& name, const std::optional<detail::FileDependency>& source,
                                      bridge::PyHandle* function) {
  if (auto s = PackRegistry::instance().find_signature(path, name, source ? source->sha256 : "")) return *s;
  if (!source) {
    throw KernelLookupError("cannot get Triton function '" + name + "': no such file: " + std::string(requested_path) +
                                " (resolved from " + std::filesystem::current_path().string() +
                                "), and no loaded kernel pack holds a function of that name from a file of that name",
                            std::string(requested_path), name);
  }
  if (auto s = KernelIndex::instance().load_signature(path, name)) return *s;
  if (offline()) {
    throw KernelLookupError("cannot get Triton function '" + name + "' of " + path +
                                ": offline mode is on (TRITON_JIT_OFFLINE=1 or set_offline) and no loaded pack or "
                                "cache entry holds this function; pack it with `triton-jit pack`",
                            path, name);
  }
  bridge::LoadedFunction loaded = bridge::load_function(path, name);
  *function = loaded.function;
  detail::SignatureRecord record;
  record.dependencies.push_back(*source);
  record.signature = loaded.signature;
  KernelIndex::instance().store_signature(path, name, record);
  return std::move(loaded.signature);
}

}  // namespace

TritonJitFunction& TritonJitFunction::get(std::string_view path, std::string_view name) {
  PackRegistry::instance().load_environment_packs();
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::canonical(std::filesystem::path(path), ec);
  const bool file_exists = !ec && std::filesystem::is_regular_file(canonical);
  std::pair<std::string, std::string> id{
      file_exists ? canonical.string() : std::filesystem::absolute(std::filesystem::path(path), ec).string(),
      std::string(name)};
  {
    std::lock_guard<std::mutex> lock(g_registry_mutex);
    auto it = registry().find(id);
    if (it != registry().end()) return *it->second;
  }
  // Read and hashed once: the hash matches packs, and the record validates stored signatures.
  // A deployment may ship packs without the kernels' sources.
  const std::optional<detail::FileDependency> source =
      file_exists ? detail::describe_file(id.first, true) : std::nullopt;
  // Python runs without the registry lock: a host Python thread holding the GIL may be waiting
  // for that lock. The GIL serializes loads anyway; a lost race discards its copy below.
  bridge::PyHandle function;
  StaticSignature signature = read_static_signature(path, id.first, id.second, source, &function);
  if (signature.params.size() > static_cast<size_t>(kMaxParams)) {
    throw KernelLookupError("Triton function '" + id.second + "' has " + std::to_string(signature.params.size()) +
                                " parameters; at most " + std::to_string(kMaxParams) + " are supported",
                            id.first, id.second);
  }
  auto impl = std::make_unique<Impl>();
  impl->path = id.first;
  impl->name = id.second;
  impl->source_sha256 = source ? source->sha256 : "";
  impl->py_function = function;
  impl->signature = std::move(signature);
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
    entry = m.get_or_compile(key, full, config, target, config.stream, true);
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
    entry = impl_->get_or_compile(key, full, config, target, nullptr, false);
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
  const KernelKey key = impl_->kernel_key(spec, options, target);
  bridge::CompiledKernel compiled = impl_->compile_now(spec, key, options, target);
  impl_->remember(key, compiled);
  return std::move(compiled.info);
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
  s.index_hits = impl_->index_hits.load(std::memory_order_relaxed);
  s.pack_hits = impl_->pack_hits.load(std::memory_order_relaxed);
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
    total.index_hits += s.index_hits;
    total.pack_hits += s.pack_hits;
  }
  return total;
}

std::string triton_version() { return bridge::triton_version(); }

}  // namespace triton_jit

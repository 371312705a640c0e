// The miss path: a launch whose key is not in memory looks in the loaded packs, then in the
// persistent index, and only then compiles through Python.
#include <chrono>
#include <cstdio>
#include <ctime>

#include "function/jit_function_impl.h"
#include "store/kernel_index.h"
#include "store/pack_registry.h"

namespace triton_jit {

using detail::KernelIndex;
using detail::PackRegistry;

namespace {

// The string constexprs of a call: keyed by hash in the table, compared by characters on a hit.
std::vector<std::pair<int, std::string>> string_constexprs(const SpecKey& key, const ArgValue* args) {
  std::vector<std::pair<int, std::string>> strings;
  for (uint32_t i = 0; i < key.num_params; ++i) {
    const ParamCode code = key.param(i);
    if (code.kind() == TypeKind::Constexpr && code.value_kind() == ArgValue::Kind::String) {
      strings.emplace_back(static_cast<int>(i), std::string(args[i].as_string()));
    }
  }
  return strings;
}

}  // namespace

KernelKey TritonJitFunction::Impl::kernel_key(const Specialization& spec, const CompileOptions* options,
                                              const Target& target) const {
  KernelKey k;
  k.signature = spec.signature();
  k.num_warps = spec.num_warps;
  k.num_stages = spec.num_stages;
  k.num_ctas = spec.num_ctas;
  k.options = detail::options_text(options);
  k.target = target;
  return k;
}

std::optional<KernelInfo> TritonJitFunction::Impl::find_stored(const KernelKey& key, bool* from_pack) {
  if (auto info = PackRegistry::instance().find_kernel(path, name, source_sha256, key)) {
    pack_hits.fetch_add(1, std::memory_order_relaxed);
    if (from_pack) *from_pack = true;
    return info;
  }
  if (auto record = KernelIndex::instance().load(path, name, key)) {
    index_hits.fetch_add(1, std::memory_order_relaxed);
    if (from_pack) *from_pack = false;
    return std::move(record->info);
  }
  return std::nullopt;
}

void TritonJitFunction::Impl::fail_missing(const KernelKey& key, const std::string& why) const {
  std::string packs;
  for (const PackInfo& p : loaded_packs()) packs += (packs.empty() ? "" : ", ") + p.path;
  const std::string near = PackRegistry::instance().explain_miss(path, name, source_sha256, key);
  const std::string line = key.manifest_line(path, name);
  throw MissingKernelError(
      "no kernel for " + signature.function + " [" + key.signature + "] num_warps=" + std::to_string(key.num_warps) +
          " num_stages=" + std::to_string(key.num_stages) + " num_ctas=" + std::to_string(key.num_ctas) +
          (key.options.empty() ? "" : " options " + key.options) + " for " + key.target.str() + ": it is in no " +
          (packs.empty() ? "loaded pack (none is loaded)" : "loaded pack (" + packs + ")") +
          (near.empty() ? "" : " (" + near + ")") + " and not in the kernel cache, and " + why +
          ". To ship it, add this line to a pack manifest and run `triton-jit pack`:\n  " + line,
      signature.function, key.text(), line);
}

bridge::PyHandle TritonJitFunction::Impl::python_function() {
  std::lock_guard<std::mutex> lock(python_mutex);
  if (py_function.object == nullptr) py_function = bridge::load_function(path, name).function;
  return py_function;
}

bridge::CompiledKernel TritonJitFunction::Impl::compile_now(const Specialization& spec, const KernelKey& key,
                                                           const CompileOptions* options, const Target& target) {
  if (offline()) fail_missing(key, "offline mode is on (TRITON_JIT_OFFLINE=1 or set_offline), so nothing compiles");
  if (source_sha256.empty()) fail_missing(key, "the kernel's source file " + path + " is not there to compile from");
  bridge::PyHandle fn;
  try {
    fn = python_function();
  } catch (const PythonError& e) {
    fail_missing(key, std::string("it cannot be compiled here: ") + e.what());
  }
  const auto start = std::chrono::steady_clock::now();
  bridge::CompiledKernel compiled = bridge::compile(fn, signature, spec, options, target);
  compiles.fetch_add(1, std::memory_order_relaxed);
  if (detail::log_enabled(LogLevel::Info)) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", ms);
    detail::log_line("compiled " + signature.function + " [" + spec.signature() + "] num_warps=" +
                     std::to_string(spec.num_warps) + " num_stages=" + std::to_string(spec.num_stages) +
                     " num_ctas=" + std::to_string(spec.num_ctas) + " for " + target.str() + " in " + buf + " ms");
  }
  return compiled;
}

void TritonJitFunction::Impl::remember(const KernelKey& key, const bridge::CompiledKernel& compiled) const {
  if (KernelIndex::instance().directory().empty()) return;
  detail::KernelRecord record;
  record.function_path = path;
  record.function_name = name;
  record.key = key;
  record.created_unix = static_cast<int64_t>(std::time(nullptr));
  record.info = compiled.info;
  for (const std::string& file : compiled.dependency_files) {
    // A dependency that cannot be read now cannot be checked later: keep the kernel in memory only.
    auto dep = detail::describe_file(file, true);
    if (!dep) return;
    record.dependencies.push_back(std::move(*dep));
  }
  if (auto dep = detail::describe_file(compiled.triton_file, false)) record.dependencies.push_back(std::move(*dep));
  KernelIndex::instance().store(record);
}

const KernelEntry* TritonJitFunction::Impl::insert(const SpecKey& key, const ArgValue* args, KernelInfo info) {
  auto entry = std::make_unique<KernelEntry>(key, string_constexprs(key, args), std::move(info));
  std::lock_guard<std::mutex> lock(compile_mutex);
  if (const KernelEntry* existing = table.find(key, args)) return existing;
  const KernelEntry* result = entry.get();
  table.insert(std::move(entry));
  return result;
}

const KernelEntry* TritonJitFunction::Impl::get_or_compile(const SpecKey& key, const ArgValue* args,
                                                           const LaunchConfig& c, const Target& target,
                                                           CUstream capture_stream, bool check_capture) {
  misses.fetch_add(1, std::memory_order_relaxed);
  std::string pending_key(reinterpret_cast<const char*>(key.words), key.num_words * sizeof(uint64_t));
  for (const auto& [index, text] : string_constexprs(key, args)) {
    pending_key += '\0';
    pending_key += text;
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
    // Another thread resolves this key: share its result. It may need the GIL, which this
    // thread may hold when the host program is Python.
    bridge::ScopedGilRelease release;
    return theirs->future.get();
  }

  try {
    const Specialization spec = describe(key, args, c, target);
    const KernelKey kk = kernel_key(spec, c.options, target);
    std::optional<KernelInfo> info = find_stored(kk);
    if (!info) {
      if (check_capture && cuda::stream_is_capturing(capture_stream)) {
        fail_missing(kk, "the launch is being captured into a CUDA graph, where compiling is not allowed. Call "
                         "triton_jit::prepare() with this specialization before capturing");
      }
      bridge::CompiledKernel compiled = compile_now(spec, kk, c.options, target);
      remember(kk, compiled);
      info = std::move(compiled.info);
    }
    const KernelEntry* result = insert(key, args, std::move(*info));
    {
      std::lock_guard<std::mutex> lock(compile_mutex);
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

}  // namespace triton_jit

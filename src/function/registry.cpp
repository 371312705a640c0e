// TritonJitFunction::get: one object per (canonical path, name) for the life of the process.
#include "function/registry.h"

#include <filesystem>
#include <map>
#include <mutex>

#include "bridge/compile_pool.h"
#include "decorators/decorated_call.h"
#include "launch/function_state.h"
#include "settings/settings.h"
#include "store/index_entries.h"
#include "store/pack.h"
#include "store/pack_registry.h"

namespace triton_jit {
namespace detail {
namespace {

std::mutex g_registry_mutex;
std::map<FunctionId, TritonJitFunction*>& registry() {
  static auto* r = new std::map<FunctionId, TritonJitFunction*>();
  return *r;
}

}  // namespace

struct FunctionFactory {
  static TritonJitFunction* make(std::unique_ptr<FunctionState> state) {
    return new TritonJitFunction(std::move(state));
  }
};

TritonJitFunction* find_function(const FunctionId& id) {
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  auto it = registry().find(id);
  return it != registry().end() ? it->second : nullptr;
}

TritonJitFunction& register_function(FunctionId id, const std::function<TritonJitFunction*()>& make) {
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  auto it = registry().find(id);
  if (it != registry().end()) return *it->second;
  TritonJitFunction* fn = make();
  registry().emplace(std::move(id), fn);
  return *fn;
}

void for_each_function(const std::function<void(const TritonJitFunction&)>& visit) {
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  for (const auto& [id, fn] : registry()) visit(*fn);
}

}  // namespace detail

using detail::KernelIndex;
using detail::PackRegistry;

namespace {

// A kernel read through Python is one no earlier process has seen: its compiles usually follow.
// The compile pool's fork server boots meanwhile, beside this process's own Python, so that
// misses from several threads find it ready (bridge::prestart_fork_server).
void start_fork_server_ahead() {
  try {
    bridge::prestart_fork_server(true);
  } catch (const std::exception&) {  // the bridge cannot load: reading the signature says why
  }
}

// Why no loaded pack serves `name` of an absent file: what the packs hold of that name.
std::string packed_places(const std::string& name) {
  const std::vector<std::string> places = PackRegistry::instance().places_of(name);
  if (places.empty()) return "no loaded kernel pack holds a function of that name";
  std::string list;
  for (const std::string& p : places) list += (list.empty() ? "" : ", ") + p;
  return "the loaded kernel packs hold '" + name + "' of " + list +
         " only (paths relative to each pack's root): name the file by a path that ends with one of them";
}

// The static signature of `name` in `path` without Python when a pack or the index has it;
// else through Python (and then recorded in the index for the next process). `source` is the
// file as read now; none when there is no file, which only a pack can make up for. Sets
// `*pack_sha256` to the hash loaded packs know the function by (FunctionState::pack_sha256).
StaticSignature read_static_signature(std::string_view requested_path, const std::string& path, const std::string& name,
                                      const std::string& module, const std::optional<detail::FileDependency>& source,
                                      bridge::PyHandle* function, bridge::PyHandle* wrapper, std::string* pack_sha256) {
  *pack_sha256 = source ? source->sha256 : "";
  if (auto found = PackRegistry::instance().find_function(path, name, *pack_sha256)) {
    *pack_sha256 = found->source_sha256;
    return std::move(found->signature);
  }
  if (!source) {
    throw KernelLookupError("cannot get Triton function '" + name + "': no such file: " + std::string(requested_path) +
                                " (resolved from " + std::filesystem::current_path().string() + "), and " +
                                packed_places(name),
                            std::string(requested_path), name);
  }
  if (auto s = KernelIndex::instance().load_signature(path, name, bridge::python_environment())) return *s;
  if (offline()) {
    throw KernelLookupError("cannot get Triton function '" + name + "' of " + path +
                                ": offline mode is on (TRITON_JIT_OFFLINE=1 or set_offline) and no loaded pack or "
                                "index entry holds this function; pack it with `triton-jit pack`",
                            path, name);
  }
  start_fork_server_ahead();
  bridge::LoadedFunction loaded = bridge::load_function(module.empty() ? path : bridge::module_source(module), name);
  loaded.signature.file = path;  // the bridge names the module's source when imported by module
  *function = loaded.function;
  *wrapper = loaded.wrapper;
  detail::SignatureRecord record;
  record.dependencies.push_back(*source);
  for (const std::string& file : loaded.wrapper_files) {
    if (file == path) continue;
    if (auto dependency = detail::describe_file(file, true)) record.dependencies.push_back(std::move(*dependency));
  }
  record.signature = loaded.signature;
  KernelIndex::instance().store_signature(path, name, bridge::python_environment(), record);
  return std::move(loaded.signature);
}

}  // namespace

namespace detail {

// get() and get_module() once the file is known: `module` is the module it was got by, if any.
TritonJitFunction& get_function(std::string_view path, std::string_view name, const std::string& module) {
  load_environment_packs();
  std::error_code ec;
  const bool module_only = path.rfind(bridge::kModulePrefix, 0) == 0;  // a module a pack alone knows
  std::filesystem::path canonical = std::filesystem::canonical(std::filesystem::path(path), ec);
  const bool file_exists = !module_only && !ec && std::filesystem::is_regular_file(canonical);
  std::pair<std::string, std::string> id{file_exists ? canonical.string()
                                         : module_only
                                             ? std::string(path)
                                             : std::filesystem::absolute(std::filesystem::path(path), ec).string(),
                                         std::string(name)};
  if (TritonJitFunction* known = find_function(id)) return *known;
  // Read and hashed once: the hash matches packs, and the record validates stored signatures.
  // A deployment may ship packs without the kernels' sources.
  const std::optional<FileDependency> source = file_exists ? describe_file(id.first, true) : std::nullopt;
  // Python runs without the registry lock: a host Python thread holding the GIL may be waiting
  // for that lock. The GIL serializes loads anyway; a lost race discards its copy below.
  bridge::PyHandle function, wrapper;
  std::string pack_sha256;
  StaticSignature signature = read_static_signature(path, id.first, id.second, module, source, &function, &wrapper,
                                                    &pack_sha256);
  if (signature.params.size() > static_cast<size_t>(kMaxParams)) {
    throw KernelLookupError("Triton function '" + id.second + "' has " + std::to_string(signature.params.size()) +
                                " parameters; at most " + std::to_string(kMaxParams) + " are supported",
                            id.first, id.second);
  }
  auto impl = std::make_unique<FunctionState>();
  impl->path = id.first;
  impl->name = id.second;
  impl->module = module;
  impl->source_sha256 = source ? source->sha256 : "";
  impl->pack_sha256 = std::move(pack_sha256);
  impl->py_function = function;
  impl->py_wrapper = wrapper;
  impl->signature = std::move(signature);
  for (const ParamInfo& p : impl->signature.params) impl->rules.push_back(make_rule(p));
  impl->binder.emplace(impl->signature);
  if (!impl->signature.decorators.empty()) {
    impl->decorated.reset(new detail::DecoratedCall(impl->signature, *impl->binder));
  }
  // Functions live as long as the process: callers keep references, and Python owns parts.
  return register_function(std::move(id), [&] { return FunctionFactory::make(std::move(impl)); });
}

}  // namespace detail

TritonJitFunction& TritonJitFunction::get(std::string_view path, std::string_view name) {
  return detail::get_function(path, name, "");
}

}  // namespace triton_jit

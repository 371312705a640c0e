// The shared library's side of the seam (bridge_api.h): finds libtriton_jit_python, opens it on
// the first need of Python, and forwards bridge.h's and compile_pool.h's functions to it. A process whose kernels all
// come from packs or the index never gets here, so it never loads the bridge nor libpython.
#include <dlfcn.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "bridge/bridge_api.h"
#include "bridge/host_python.h"
#include "bridge/python_select.h"
#include "key/repr.h"
#include "settings/launch_hooks.h"
#include "settings/settings.h"
#include "triton_jit/errors.h"

#ifndef TRITON_JIT_BRIDGE_BUILD_ID
#error "TRITON_JIT_BRIDGE_BUILD_ID must be defined (CMakeLists.txt)"
#endif

namespace triton_jit::bridge {
namespace {

namespace fs = std::filesystem;

const CoreServices kCore = {&detail::preload_list, &detail::parse_python_dtype, &detail::python_dtype_repr,
                            &python_executable, &detail::set_python_launch_hooks};

std::atomic<const BridgeApi*> g_api{nullptr};

// The folder this library was loaded from (dladdr of one of its functions).
fs::path own_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_folder), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  const fs::path file = fs::canonical(info.dli_fname, ec);
  return (ec ? fs::path(info.dli_fname) : file).parent_path();
}

// Beside this library first (a build tree, or an installation moved elsewhere), then the
// installation's library folder.
std::vector<fs::path> bridge_candidates() {
  std::vector<fs::path> folders;
  if (fs::path own = own_folder(); !own.empty()) folders.push_back(own);
  folders.emplace_back(TRITON_JIT_INSTALL_LIBDIR);
  std::vector<fs::path> files;
  for (const fs::path& folder : folders) {
    const fs::path file = folder / kBridgeLibraryName;
    bool seen = false;
    for (const fs::path& f : files) seen = seen || f == file;
    if (!seen) files.push_back(file);
  }
  return files;
}

const std::string kNeeds = std::string("Compiling needs the bridge library and Python ") + TRITON_JIT_PYTHON_VERSION +
                           " with triton; packs and the kernel index work without them";

// The installation a python runs from: its prefix (bin/..), or for a virtualenv the one its
// pyvenv.cfg names as home (a virtualenv made with --copies has no symlink to follow); "" when
// the python does not exist.
fs::path base_prefix(const std::string& python) {
  std::error_code ec;
  const fs::path real = fs::canonical(python, ec);
  if (ec) return {};
  const fs::path prefix = real.parent_path().parent_path();
  std::ifstream cfg(prefix / "pyvenv.cfg");
  std::string line;
  while (std::getline(cfg, line)) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos || line.compare(0, 4, "home") != 0 || line.find_first_not_of(" \t", 4) != eq) continue;
    const size_t start = line.find_first_not_of(" \t", eq + 1);
    if (start == std::string::npos) break;
    const size_t end = line.find_last_not_of(" \t\r");
    const fs::path home = fs::canonical(line.substr(start, end + 1 - start), ec);  // the base python's bin folder
    return ec ? prefix : home.parent_path();
  }
  return prefix;
}

// A python the bridge can start: of the version it was built for (its standard library folder is
// there). The interpreter would otherwise fail to start, or start against the wrong library.
std::string check_python(const PythonChoice& choice) {
  std::error_code ec;
  const fs::path prefix = base_prefix(choice.path);
  if (prefix.empty()) {
    return "the python to compile with, " + choice.path + " (from " + choice.origin +
           "), does not exist. Set TRITON_JIT_PYTHON to a Python " TRITON_JIT_PYTHON_VERSION " that has triton";
  }
  const std::string stdlib = std::string("python") + TRITON_JIT_PYTHON_VERSION;
  if (fs::exists(prefix / "lib" / stdlib / "os.py", ec) || fs::exists(prefix / "lib64" / stdlib / "os.py", ec))
    return "";
  return "the python to compile with, " + choice.path + " (from " + choice.origin + "), is not a Python " +
         TRITON_JIT_PYTHON_VERSION + " (no " + (prefix / "lib" / stdlib).string() +
         "), the version this build's Python bridge was made for. Set TRITON_JIT_PYTHON to a Python " +
         TRITON_JIT_PYTHON_VERSION + " that has triton";
}

// The chosen python's libpython, loaded globally before the bridge, which does not link it (its
// Python symbols come from the process, as an extension module's do): the one in the python's
// prefix (pyenv, conda, uv) when there is one, else the soname through the loader's search
// (Debian's /usr/lib/<triple>). Returns why it could not be loaded, or "".
std::string load_libpython_of(const PythonChoice& choice) {
  const fs::path prefix = base_prefix(choice.path);
  std::error_code ec;
  if (!prefix.empty()) {
    const fs::path lib = prefix / "lib" / TRITON_JIT_PYTHON_SONAME;
    if (fs::exists(lib, ec) && dlopen(lib.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) return "";
  }
  if (dlopen(TRITON_JIT_PYTHON_SONAME, RTLD_NOW | RTLD_GLOBAL) != nullptr) return "";
  const char* why = dlerror();
  return std::string("the shared library of Python " TRITON_JIT_PYTHON_VERSION ", " TRITON_JIT_PYTHON_SONAME
                     ", could not be loaded (") +
         (why ? why : "not found") + "), so no interpreter can be started for " + choice.path +
         " (a python linked statically needs its distribution's libpython package, e.g. libpython" +
         TRITON_JIT_PYTHON_VERSION + " on Debian). " + kNeeds;
}

struct Opened {
  const BridgeApi* api = nullptr;
  std::string error;  // why there is none
};

Opened open_bridge() {
  Opened o;
  // The file first: where it is absent, nothing of Python is touched.
  fs::path file;
  std::string looked;
  for (const fs::path& candidate : bridge_candidates()) {
    looked += (looked.empty() ? "" : ", ") + candidate.string();
    std::error_code ec;
    if (fs::exists(candidate, ec)) {
      file = candidate;
      break;
    }
  }
  if (file.empty()) {
    o.error = std::string("the Python bridge library ") + kBridgeLibraryName + " is not installed (looked for " +
              looked + "). " + kNeeds;
    return o;
  }
  const HostPython* host = host_python();
  if (host != nullptr && host->is_initialized()) {
    // Joining the host's interpreter: it must be the Python the bridge was built against.
    const std::string version = host->version();
    const std::string want = std::string(TRITON_JIT_PYTHON_VERSION) + ".";
    if (version.rfind(want, 0) != 0) {
      o.error = "this process runs Python " + version.substr(0, version.find(' ')) +
                ", but libtriton_jit's Python bridge was built for Python " TRITON_JIT_PYTHON_VERSION
                ": build libtriton_jit against this Python to compile kernels here";
      return o;
    }
  } else if (host == nullptr) {
    // No Python in the process yet: the bridge will start the chosen one.
    const PythonChoice choice = select_python();
    if (std::string bad = check_python(choice); !bad.empty()) {
      o.error = bad;
      return o;
    }
    if (std::string missing = load_libpython_of(choice); !missing.empty()) {
      o.error = missing;
      return o;
    }
  }
  // Global: Python's extension modules (triton's own among them) find libpython's symbols in the
  // global scope, not through a dependency of their own.
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* why = dlerror();
    o.error = "the Python bridge library " + file.string() + " could not be loaded (" + (why ? why : "unknown") +
              "). It needs " TRITON_JIT_PYTHON_SONAME " (Python " TRITON_JIT_PYTHON_VERSION
              "): install it, or set TRITON_JIT_PYTHON to a Python " TRITON_JIT_PYTHON_VERSION
              " whose lib folder has it. " +
              kNeeds;
    return o;
  }
  auto entry = reinterpret_cast<BridgeEntry>(dlsym(handle, kBridgeEntryName));
  const BridgeApi* api = entry != nullptr ? entry(&kCore, kBridgeAbiVersion) : nullptr;
  if (api == nullptr || api->abi_version != kBridgeAbiVersion || api->size != sizeof(BridgeApi) ||
      std::string(api->build_id) != TRITON_JIT_BRIDGE_BUILD_ID) {
    o.error = std::string("the Python bridge library beside libtriton_jit belongs to another build (") +
              (api != nullptr ? api->build_id : "no matching entry") + "; this library is " +
              TRITON_JIT_BRIDGE_BUILD_ID + "): install both from one build";
    return o;
  }
  o.api = api;
  return o;
}

const Opened& opened() {
  static const Opened o = [] {
    Opened result = open_bridge();
    if (result.api != nullptr) {
      g_api.store(result.api, std::memory_order_release);
      if (detail::log_enabled(LogLevel::Debug)) detail::log_line("loaded the Python bridge library");
    } else if (detail::log_enabled(LogLevel::Debug)) {
      detail::log_line("no Python bridge: " + result.error);
    }
    return result;
  }();
  return o;
}

// The bridge, opened on first use; PythonError (which the miss path turns into a
// MissingKernelError with the manifest line) when there is none.
const BridgeApi& api() {
  const Opened& o = opened();
  if (o.api == nullptr) throw PythonError(o.error, "");
  return *o.api;
}

}  // namespace

bool library_in_build_tree() {
  static const bool in_build_tree = [] {
    std::error_code ec;
    const fs::path own = own_folder();
    return !own.empty() && fs::equivalent(own, fs::path(TRITON_JIT_BUILD_LIBRARY_DIR), ec) && !ec;
  }();
  return in_build_tree;
}

LoadedFunction load_function(const std::string& source, const std::string& name) {
  return api().load_function(source, name);
}

std::string module_file(const std::string& module, const std::string& function) {
  return api().module_file(module, function);
}

CompileResult compile(PyHandle function, const StaticSignature& signature, const Specialization& spec,
                      const std::string& key, const CompileOptions* options, const Target& target) {
  return api().compile(function, signature, spec, key, options, target);
}

void compile_many(const std::vector<CompileJob>& jobs, int workers,
                  const std::function<void(size_t, CompileResult*, std::exception_ptr)>& on_done) {
  api().compile_many(jobs, workers, on_done);
}

PyHandle decorator_callable(PyHandle wrapper, size_t layer, const std::string& name) {
  return api().decorator_callable(wrapper, layer, name);
}

std::optional<size_t> autotune_cache_lookup(PyHandle wrapper, size_t layer, const std::string& key_repr,
                                            const Target& target) {
  return api().autotune_cache_lookup(wrapper, layer, key_repr, target);
}

void autotune_cache_store(PyHandle wrapper, size_t layer, const std::string& key_repr, const Target& target,
                          const std::vector<std::array<double, 3>>& timings) {
  api().autotune_cache_store(wrapper, layer, key_repr, target, timings);
}

std::vector<size_t> prune_autotune_configs(PyHandle wrapper, size_t layer, const StaticSignature& sig,
                                           const ArgValue* args, size_t num_args) {
  return api().prune_autotune_configs(wrapper, layer, sig, args, num_args);
}

std::string triton_version() { return api().triton_version(); }

std::optional<std::string> translate_heuristic(PyHandle func, const StaticSignature& sig, std::string* reason) {
  return api().translate_heuristic(func, sig, reason);
}

HeuristicCall call_heuristic(PyHandle func, const StaticSignature& sig, std::string_view heuristic_name,
                             const ArgValue* args, size_t n) {
  return api().call_heuristic(func, sig, heuristic_name, args, n);
}

PyHandle autotune_hook_args(PyHandle wrapper, size_t layer, size_t config, const StaticSignature& sig,
                            const ArgValue* args, const std::vector<uint32_t>& params, size_t num_passed,
                            const Grid& grid) {
  return api().autotune_hook_args(wrapper, layer, config, sig, args, params, num_passed, grid);
}

void call_autotune_hook(PyHandle wrapper, size_t layer, size_t config, AutotuneHook hook, PyHandle hook_args,
                        const StaticSignature& sig, void* stream, bool reset_only, const std::string* exception) {
  api().call_autotune_hook(wrapper, layer, config, hook, hook_args, sig, stream, reset_only, exception);
}

std::vector<std::pair<uint32_t, TensorDescriptor>> hooked_descriptors(PyHandle hook_args, const StaticSignature& sig,
                                                                      const ArgValue* args,
                                                                      const std::vector<uint32_t>& params) {
  return api().hooked_descriptors(hook_args, sig, args, params);
}

void run_python_wrapper(PyHandle wrapper, const StaticSignature& sig, const std::vector<uint32_t>& params,
                        const ArgValue* args, size_t num_args, const LaunchConfig& config) {
  api().run_python_wrapper(wrapper, sig, params, args, num_args, config);
}

uint32_t run_libtuner_policy(PyHandle wrapper, size_t layer, const StaticSignature& sig, const ArgValue* args,
                             const std::vector<uint32_t>& params, size_t num_passed, const std::vector<size_t>& kept,
                             const std::function<std::array<double, 3>(uint32_t)>& bench) {
  return api().run_libtuner_policy(wrapper, layer, sig, args, params, num_passed, kept, bench);
}

void release(PyHandle object) noexcept {
  // A handle came from the bridge, so it is loaded.
  if (const BridgeApi* loaded = g_api.load(std::memory_order_acquire); loaded && object.object) loaded->release(object);
}

PyHandle python_launch_enter(const PythonLaunch& launch) { return api().python_launch_enter(launch); }

void python_launch_exit(PyHandle state, const StaticSignature& signature) {
  api().python_launch_exit(state, signature);
}

void check_compile_request(const std::string& function, const CompileOptions* options, const Target& target) {
  api().check_compile_request(function, options, target);
}

bool hip_buffer_ops(const Target& target) { return api().hip_buffer_ops(target); }
int target_default_num_stages(const Target& target) { return api().target_default_num_stages(target); }

bool workers_may_load(const std::string& source) { return api().workers_may_load(source); }

CompileResult compile_in_pool(const CompileJob& job) { return api().compile_in_pool(job); }

void start_workers(int count) { api().start_workers(count); }

void prestart_fork_server(bool ahead) { api().prestart_fork_server(ahead); }

PoolStatus compile_pool_status() {
  // Starts no Python: a pool exists only once the bridge is loaded.
  const BridgeApi* loaded = g_api.load(std::memory_order_acquire);
  return loaded != nullptr ? loaded->compile_pool_status() : PoolStatus{};
}

std::string python_environment() {
  // The bridge knows whether the interpreter is the host's or its own.
  if (const BridgeApi* loaded = g_api.load(std::memory_order_acquire)) return loaded->python_environment();
  // A Python host: its executable, read through its own C API (the bridge need not be loaded).
  if (const HostPython* host = host_python(); host != nullptr && host->is_initialized()) {
    std::string exe = host_executable(*host);
    return exe.empty() ? "<host python>" : exe;
  }
  return python_executable();
}

bool interpreter_used() noexcept {
  const BridgeApi* loaded = g_api.load(std::memory_order_acquire);
  return loaded != nullptr && loaded->interpreter_used();
}

}  // namespace triton_jit::bridge

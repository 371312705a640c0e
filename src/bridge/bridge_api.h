#pragma once
// The seam between the core (libtriton_jit) and the Python bridge (libtriton_jit_python). The
// core never links libpython: it opens the bridge with dlopen on the first need of Python
// (bridge_loader.cpp) and calls it through the table below, which the bridge's one exported
// entry, triton_jit_python_bridge, returns. Static builds (the tests' triton_jit_internal) link
// the bridge's objects directly and use no table.
//
// The table holds C++ functions, and C++ exceptions cross it: both libraries come from one build
// (the same compiler and libstdc++; build_id is checked), and the bridge links the core, so the
// exceptions it throws (PythonError, CompileError, ...) are the core's exported types and the
// core catches them by type. Core internals the bridge needs (hidden in libtriton_jit) are handed
// over once as CoreServices.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bridge/bridge.h"
#include "bridge/compile_pool.h"
#include "triton_jit/dtype.h"

namespace triton_jit::bridge {

// Raised whenever the table's layout or meaning changes.
inline constexpr uint32_t kBridgeAbiVersion = 8;

// The file the core looks for beside itself, then in the installation's library folder.
inline constexpr const char* kBridgeLibraryName = "libtriton_jit_python.so";
inline constexpr const char* kBridgeEntryName = "triton_jit_python_bridge";

// The core's internals the bridge calls: settings/settings.h, key/repr.h, python_select.h,
// settings/launch_hooks.h.
struct CoreServices {
  std::vector<std::string> (*preload_list)();
  bool (*parse_python_dtype)(std::string_view repr, DType* out, bool* torch_dtype);
  std::string (*python_dtype_repr)(DType dtype, bool torch_dtype);
  std::string (*python_executable)();
  void (*set_python_launch_hooks)(bool on) noexcept;
};

// bridge.h's and compile_pool.h's functions, one pointer each (ScopedGilRelease needs none: the core finds the GIL
// functions of the process's Python itself, host_python.h).
struct BridgeApi {
  uint32_t abi_version;  // kBridgeAbiVersion of the bridge
  uint32_t size;         // sizeof(BridgeApi) of the bridge
  const char* build_id;  // TRITON_JIT_BRIDGE_BUILD_ID of the bridge: must equal the core's
  decltype(&triton_jit::bridge::load_function) load_function;
  decltype(&triton_jit::bridge::module_file) module_file;
  decltype(&triton_jit::bridge::compile) compile;
  decltype(&triton_jit::bridge::check_compile_request) check_compile_request;
  decltype(&triton_jit::bridge::compile_many) compile_many;
  decltype(&triton_jit::bridge::decorator_callable) decorator_callable;
  decltype(&triton_jit::bridge::autotune_cache_lookup) autotune_cache_lookup;
  decltype(&triton_jit::bridge::autotune_cache_store) autotune_cache_store;
  decltype(&triton_jit::bridge::prune_autotune_configs) prune_autotune_configs;
  decltype(&triton_jit::bridge::triton_version) triton_version;
  decltype(&triton_jit::bridge::translate_heuristic) translate_heuristic;
  decltype(&triton_jit::bridge::call_heuristic) call_heuristic;
  decltype(&triton_jit::bridge::autotune_hook_args) autotune_hook_args;
  decltype(&triton_jit::bridge::call_autotune_hook) call_autotune_hook;
  decltype(&triton_jit::bridge::release) release;
  decltype(&triton_jit::bridge::workers_may_load) workers_may_load;
  decltype(&triton_jit::bridge::compile_in_pool) compile_in_pool;
  decltype(&triton_jit::bridge::start_workers) start_workers;
  decltype(&triton_jit::bridge::prestart_fork_server) prestart_fork_server;
  decltype(&triton_jit::bridge::compile_pool_status) compile_pool_status;
  decltype(&triton_jit::bridge::python_environment) python_environment;
  bool (*interpreter_used)() noexcept;
  decltype(&triton_jit::bridge::python_launch_enter) python_launch_enter;
  decltype(&triton_jit::bridge::python_launch_exit) python_launch_exit;
  decltype(&triton_jit::bridge::run_python_wrapper) run_python_wrapper;
  decltype(&triton_jit::bridge::run_libtuner_policy) run_libtuner_policy;
  decltype(&triton_jit::bridge::hip_buffer_ops) hip_buffer_ops;
  decltype(&triton_jit::bridge::hooked_descriptors) hooked_descriptors;
  decltype(&triton_jit::bridge::target_default_num_stages) target_default_num_stages;
};

// The signature of the bridge's entry: `core` outlives the process; returns the bridge's table,
// or nullptr when it was built for another abi_version.
using BridgeEntry = const BridgeApi* (*)(const CoreServices* core, uint32_t abi_version);

}  // namespace triton_jit::bridge

// The bridge library's side of the seam (bridge_api.h): its one exported entry, and the core
// internals the bridge's code calls, forwarded to the core that opened it. Only in
// libtriton_jit_python: static builds link the bridge's objects beside the real internals.
#include <type_traits>

#include "bridge/bridge_api.h"
#include "bridge/python_select.h"
#include "key/repr.h"
#include "settings/launch_hooks.h"
#include "settings/settings.h"

#ifndef TRITON_JIT_BRIDGE_BUILD_ID
#error "TRITON_JIT_BRIDGE_BUILD_ID must be defined (CMakeLists.txt)"
#endif

namespace triton_jit {
namespace {
const bridge::CoreServices* g_core = nullptr;  // set by the entry, before any other call
}  // namespace

namespace detail {
std::vector<std::string> preload_list() { return g_core->preload_list(); }
bool parse_python_dtype(std::string_view text, DType* dtype, bool* torch) {
  return g_core->parse_python_dtype(text, dtype, torch);
}
std::string python_dtype_repr(DType dtype, bool torch) { return g_core->python_dtype_repr(dtype, torch); }
void set_python_launch_hooks(bool on) noexcept { g_core->set_python_launch_hooks(on); }
}  // namespace detail

namespace bridge {
std::string python_executable() { return g_core->python_executable(); }
}  // namespace bridge
}  // namespace triton_jit

extern "C" __attribute__((visibility("default"))) const triton_jit::bridge::BridgeApi* triton_jit_python_bridge(
    const triton_jit::bridge::CoreServices* core, uint32_t abi_version) {
  namespace b = triton_jit::bridge;
  static_assert(std::is_same_v<decltype(&triton_jit_python_bridge), b::BridgeEntry>,
                "the entry's type is the one the core calls");
  if (core == nullptr || abi_version != b::kBridgeAbiVersion) return nullptr;
  triton_jit::g_core = core;
  // clang-format off: one entry per line, in the table's order
  static const b::BridgeApi api = {
      b::kBridgeAbiVersion,      sizeof(b::BridgeApi),     TRITON_JIT_BRIDGE_BUILD_ID,
      &b::load_function,         &b::module_file,          &b::compile,
      &b::check_compile_request, &b::compile_many,         &b::decorator_callable,
      &b::autotune_cache_lookup, &b::autotune_cache_store, &b::prune_autotune_configs,
      &b::triton_version,        &b::translate_heuristic,  &b::call_heuristic,
      &b::autotune_hook_args,    &b::call_autotune_hook,   &b::release,
      &b::workers_may_load,      &b::compile_in_pool,      &b::start_workers,
      &b::prestart_fork_server,  &b::compile_pool_status,  &b::python_environment,
      &b::interpreter_used,      &b::python_launch_enter,  &b::python_launch_exit,
      &b::run_python_wrapper,    &b::run_libtuner_policy,   &b::hip_buffer_ops,
      &b::hooked_descriptors,    &b::target_default_num_stages,
  };
  // clang-format on
  return &api;
}

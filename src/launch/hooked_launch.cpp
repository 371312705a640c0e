#include "launch/hooked_launch.h"

#include "triton_jit/errors.h"

namespace triton_jit::detail {

void launch_with_hooks(FunctionState& m, const KernelEntry& entry, CUfunction function, const LaunchConfig& config,
                       PackedParams& packed, const cuda::DeviceInfo& device, const ArgValue* args) {
  const uint32_t bits = launch_hook_bits();
  LaunchHookInfo info;
  info.function = m.self;
  info.kernel_name = entry.info().name;
  info.key = entry.key_text();
  info.kernel = &entry.info();
  info.grid = config.grid;
  info.stream = config.stream;
  info.cu_function = function;
  info.args = ArgSpan{args, m.rules.size()};

  // One snapshot for both ends, so an exit hook runs only where its enter hook ran.
  const LaunchHookList hooks = (bits & kCppLaunchHooks) != 0 ? registered_launch_hooks() : LaunchHookList{};
  for (size_t i = 0; i < hooks.size; ++i) {
    if (hooks.items[i].enter != nullptr) hooks.items[i].enter(info, hooks.items[i].user_data);
  }
  bridge::PyHandle python_state;
  if ((bits & kPythonLaunchHooks) != 0) {
    bridge::PythonLaunch launch;
    try {
      launch.function = m.python_function();
    } catch (const Error&) {
      // No Python function to read launch_metadata from (a pack without the kernel's source):
      // the hooks still run, with Triton's own keys only.
    }
    launch.signature = &m.signature;
    launch.kernel_id = &entry;
    launch.metadata_json = &entry.launch().metadata_json;
    launch.kernel_name = info.kernel_name;
    launch.cu_function = function;
    launch.stream = config.stream;
    launch.grid = config.grid;
    launch.args = args;
    launch.num_args = m.rules.size();
    python_state = bridge::python_launch_enter(launch);
  }
  try {
    launch_kernel(entry, function, config, packed, device, m.signature.function.c_str());
  } catch (...) {
    bridge::release(python_state);  // Triton's launcher calls no exit hook after a failed launch
    throw;
  }
  if (python_state.object != nullptr) bridge::python_launch_exit(python_state, m.signature);
  for (size_t i = hooks.size; i-- > 0;) {
    if (hooks.items[i].exit != nullptr) hooks.items[i].exit(info, hooks.items[i].user_data);
  }
}

}  // namespace triton_jit::detail

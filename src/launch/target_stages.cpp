#include "launch/target_stages.h"

#include <optional>

#include "bridge/bridge.h"
#include "cuda/device.h"
#include "cuda/driver_api.h"
#include "triton_jit/errors.h"
#include "triton_jit/settings.h"

namespace triton_jit::detail {

std::atomic<int> g_hip_default_num_stages{-1};

int hip_default_num_stages_slow(int arch, int warp_size) {
  int stages = kHipFallbackNumStages;
  if (!offline()) {
    try {
      stages = bridge::target_default_num_stages(Target{"hip", arch, warp_size});
    } catch (const Error&) {
      // No Python to ask (a deployment running packs): every supported Triton's HIPOptions default.
      stages = kHipFallbackNumStages;
    }
  }
  // HIPOptions' default is the same for every processor: one answer a process.
  int expected = -1;
  g_hip_default_num_stages.compare_exchange_strong(expected, stages, std::memory_order_relaxed);
  return g_hip_default_num_stages.load(std::memory_order_relaxed);
}

}  // namespace triton_jit::detail

namespace triton_jit {

using detail::key_num_stages;

int launch_num_stages(int num_stages) {
  if (num_stages != kTargetDefaultNumStages || !launch_target_is_hip()) {
    return key_num_stages(num_stages, false, 0, 0);
  }
  if (std::optional<Target> t = explicit_target()) return key_num_stages(num_stages, true, t->arch, t->warp_size);
  try {
    const Target device = cuda::device_target(*cuda::current_device().info);
    return key_num_stages(num_stages, true, device.arch, device.warp_size);
  } catch (const NoDeviceError&) {
    // The launch itself reports the missing device; HIPOptions' default is every processor's.
    return key_num_stages(num_stages, true, 0x942, 64);
  }
}

int target_num_stages(int num_stages, const Target& target) {
  return key_num_stages(num_stages, target.backend == "hip", target.arch, target.warp_size);
}

}  // namespace triton_jit

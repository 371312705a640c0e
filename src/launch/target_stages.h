#pragma once
// num_stages left to the target (kTargetDefaultNumStages) made the target's default before a
// call is keyed: Triton's own launch without num_stages compiles with its backend's options
// default, 3 on CUDA and 2 on HIP. A CUDA target answers without a lookup; a HIP one asks the
// installed Triton once a process (the hot path: one relaxed load).

#include <atomic>

#include "triton_jit/launch_config.h"
#include "triton_jit/target.h"

namespace triton_jit::detail {

// HIPOptions' num_stages, where no Triton can be asked (offline, a process without Python):
// 2 in every supported Triton (3.4 to 3.9).
inline constexpr int kHipFallbackNumStages = 2;

// The installed Triton's HIP default once asked; -1 before.
extern std::atomic<int> g_hip_default_num_stages;
// Asks it (the bridge; kHipFallbackNumStages offline or where Triton cannot answer) and keeps it.
int hip_default_num_stages_slow(int arch, int warp_size);

// num_stages for a key of the target (arch, warp_size; hip: an AMD one).
inline int key_num_stages(int num_stages, bool hip, int arch, int warp_size) {
  if (num_stages != kTargetDefaultNumStages) return num_stages;
  if (!hip) return kDefaultNumStages;
  const int asked = g_hip_default_num_stages.load(std::memory_order_relaxed);
  return asked >= 0 ? asked : hip_default_num_stages_slow(arch, warp_size);
}

}  // namespace triton_jit::detail

#pragma once
// The registered launch hooks (triton_jit/launch_hooks.h) and the word every launch reads to
// learn whether there are any. Below the bridge, which sets the Python bit when it sees Triton's
// launch hooks set or cleared (triton_jit_bridge/launch_hooks.py).

#include <cstddef>

#include "triton_jit/launch_hooks.h"

namespace triton_jit::detail {

// The hooks registered now, in the order they were added: an immutable snapshot, alive for the
// process (a launch may still read one that add/remove replaced).
struct LaunchHookList {
  size_t size = 0;
  const LaunchHooks* items = nullptr;
};
LaunchHookList registered_launch_hooks() noexcept;

// Sets or clears kPythonLaunchHooks: whether Triton's Python launch hooks may be set.
void set_python_launch_hooks(bool on) noexcept;

}  // namespace triton_jit::detail

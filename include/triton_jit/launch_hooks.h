#pragma once
// Launch hooks: callbacks around every kernel launch the runtime makes (C++ calls, the Python
// package's, an autotuner's timed runs), for profilers and tracing (NVTX ranges, counters).
// With none registered a launch pays one relaxed atomic load; Triton's own Python hooks
// (triton.knobs.runtime.launch_enter_hook / launch_exit_hook) are called too where Python runs
// (docs/guide/cpp.md, "Launch hooks").

#include <atomic>
#include <cstdint>
#include <string_view>

#include "triton_jit/arg.h"
#include "triton_jit/export.h"
#include "triton_jit/launch_config.h"

namespace triton_jit {

class TritonJitFunction;
struct KernelInfo;

// One launch, as a hook sees it. Everything is a view, valid only during the callback.
struct LaunchHookInfo {
  const TritonJitFunction* function = nullptr;  // the @triton.jit function launched
  std::string_view kernel_name;                 // the kernel's entry point (KernelInfo::name)
  // The kernel key's text (signature, launch options, compile options, target), the one that
  // names the kernel in the index: "*fp32:16,*fp32:16,i32,1024|num_warps=4|...|target=cuda:90:32".
  std::string_view key;
  const KernelInfo* kernel = nullptr;  // the compiled kernel (name, target, num_warps, shared, hash)
  Grid grid;                           // in programs
  CUstream_st* stream = nullptr;
  void* cu_function = nullptr;  // the CUfunction launched (in the current context)
  // The complete call, in parameter order: defaults filled in, the values autotune configs and
  // heuristics set included.
  ArgSpan args;
};

// A hook: `user_data` is what was registered with it. It may throw: an enter hook's exception
// propagates and the kernel is not launched (nor the exit hooks called); an exit hook's
// propagates after the launch. Runs on the launching thread, with whatever locks the caller
// holds (and, from the Python package, the GIL): keep it short, and launch nothing from it.
using LaunchHookFn = void (*)(const LaunchHookInfo& launch, void* user_data);

struct LaunchHooks {
  LaunchHookFn enter = nullptr;  // before the launch
  LaunchHookFn exit = nullptr;   // after the launch was queued (not after the kernel ran)
  void* user_data = nullptr;
};

// Registers hooks for every launch from now on, in every thread; returns an id for
// remove_launch_hooks. Enter hooks run in the order they were added, exit hooks in the reverse
// order (as Triton's HookChain), C++ hooks outside Triton's Python ones. Thread-safe; not for
// the hot path (it takes a lock and allocates).
TRITON_JIT_API uint64_t add_launch_hooks(const LaunchHooks& hooks);
// Unregisters them; false for an id not registered. A launch that already read the hooks may
// still call them once: keep `user_data` alive until launches that may have started have ended.
TRITON_JIT_API bool remove_launch_hooks(uint64_t id);

namespace detail {
// Bit kCppLaunchHooks: C++ hooks are registered; bit kPythonLaunchHooks: Triton's Python launch
// hooks may be set (the bridge watches triton.knobs.runtime). Read with one relaxed load per
// launch; exported for the Python package's launch path.
inline constexpr uint32_t kCppLaunchHooks = 1;
inline constexpr uint32_t kPythonLaunchHooks = 2;
TRITON_JIT_API extern std::atomic<uint32_t> g_launch_hook_bits;
inline uint32_t launch_hook_bits() noexcept { return g_launch_hook_bits.load(std::memory_order_relaxed); }
}  // namespace detail

}  // namespace triton_jit

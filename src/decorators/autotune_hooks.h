#pragma once
// @triton.autotune's Python hooks from C++: the autotuner's pre_hook and post_hook and a
// triton.Config's pre_hook, run through Python on the dict Triton's Autotuner builds (the caller's
// arguments, what outer wrappers set, the config's all_kwargs(); pointers as torch tensors over
// their memory). Only functions that have hooks come here: a launch of one without a Config
// pre_hook never does.

#include <cuda.h>

#include <cstdint>
#include <string>

#include "bridge/bridge.h"
#include "decorators/decorated_call.h"

namespace triton_jit::detail {

// Whether tuning runs Python hooks: a user pre_hook or post_hook, or a Config with a pre_hook.
bool has_hooks(const AutotuneInfo& info) noexcept;

// The hooks' argument dict for one config of one call, built once and passed to each of its hooks
// (Triton passes one dict to every hook of a config's timed runs). Owns its Python reference.
class HookArgs {
 public:
  HookArgs() = default;
  // Throws ArgumentError when Python cannot run here (offline, no source file) or the arguments
  // cannot be made Python values.
  // `grid`: the launch's grid (Python passes its kernel[grid] as the keyword `grid`).
  HookArgs(FunctionState& fn, const AutotuneRuntime& tuner, uint32_t config, const ArgValue* full,
           size_t num_caller_args, const Grid& grid);
  ~HookArgs();
  HookArgs(HookArgs&& other) noexcept;
  HookArgs& operator=(HookArgs&& other) noexcept;
  HookArgs(const HookArgs&) = delete;
  HookArgs& operator=(const HookArgs&) = delete;

  // Runs `hook` of the autotuner on these arguments, with torch's current stream set to `stream`.
  // Throws ArgumentError (parameter: the hook's name) carrying Python's traceback when it raises.
  void run(bridge::AutotuneHook hook, CUstream stream, bool reset_only = false,
           const std::string* exception = nullptr) const;

 private:
  FunctionState* fn_ = nullptr;
  const AutotuneRuntime* tuner_ = nullptr;
  uint32_t config_ = 0;
  bridge::PyHandle wrapper_;
  bridge::PyHandle dict_;
};

// Runs config `config`'s pre_hook before a launch with it, as Autotuner.run does: Python on every
// such launch (only functions whose chosen config has a pre_hook get here).
[[gnu::cold, gnu::noinline]] void run_config_pre_hook(FunctionState& fn, const AutotuneRuntime& tuner, uint32_t config,
                                                      const ArgValue* full, size_t num_caller_args, const Grid& grid,
                                                      CUstream stream);

}  // namespace triton_jit::detail

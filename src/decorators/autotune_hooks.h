#pragma once
// @triton.autotune's Python hooks from C++: the autotuner's pre_hook and post_hook and a
// triton.Config's pre_hook, run through Python on the dict Triton's Autotuner builds (the caller's
// arguments, what outer wrappers set, the config's all_kwargs(); pointers as torch tensors over
// their memory). Only functions that have hooks come here: a launch of one without a Config
// pre_hook never does.

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

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

  // Writes what the hooks left in the dict for the tensor descriptor arguments back into `full`,
  // as Triton binds the descriptor objects a config pre_hook changed (FlagGems' host-TMA mm sets
  // their block_shape): the key, the compile and the CUtensorMap encode then see the new ones.
  // The descriptors live in this thread's arena until the outermost HookedDescriptorScope ends.
  void write_back_descriptors(ArgValue* full) const;

 private:
  FunctionState* fn_ = nullptr;
  const AutotuneRuntime* tuner_ = nullptr;
  uint32_t config_ = 0;
  bridge::PyHandle wrapper_;
  bridge::PyHandle dict_;
  std::vector<uint32_t> params_;  // the dict's parameters, in its order
};

// Whether any of the call's arguments is a host tensor descriptor: then a config pre_hook also runs
// where a call only prepares or describes, because what it sets on the descriptors decides the key.
bool has_descriptor_args(const ArgValue* full, size_t n) noexcept;

// The lifetime of the descriptors hooks write back (HookArgs::write_back_descriptors): they live
// in a per-thread arena, freed when the outermost scope on the thread ends. Each operation whose
// arguments may point into it (a decorated launch up to its kernel's launch, specialize(),
// compile(), prepare()'s request) holds a scope; calls made meanwhile on the thread (a hook or a
// launch hook launching a kernel) nest, so they never free what the outer call still reads.
// Costs one thread-local counter; frees (never allocates) only where a hook wrote descriptors.
class HookedDescriptorScope {
 public:
  HookedDescriptorScope() noexcept;
  ~HookedDescriptorScope();
  HookedDescriptorScope(const HookedDescriptorScope&) = delete;
  HookedDescriptorScope& operator=(const HookedDescriptorScope&) = delete;
};

// Runs config `config`'s pre_hook before a launch with it, as Autotuner.run does: Python on every
// such launch (only functions whose chosen config has a pre_hook get here).
// Tensor descriptor arguments the hook changed are written back into `full`.
[[gnu::cold, gnu::noinline]] void run_config_pre_hook(FunctionState& fn, const AutotuneRuntime& tuner, uint32_t config,
                                                      ArgValue* full, size_t num_caller_args, const Grid& grid,
                                                      CUstream stream);

}  // namespace triton_jit::detail

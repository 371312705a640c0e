#pragma once
// Wrappers the runtime does not emulate (DecoratorLayer::Kind::Python): a subclass of Triton's
// Autotuner or Heuristics that overrides how a call runs, or another object wrapping the function
// in `.fn`. Treating one as its base would tune or evaluate it with other semantics, with no word
// said; so every call runs the wrapper's own `kernel[grid](...)` through Python, and Triton's
// JITFunction.run under it launches. Said once in the log, counted in Stats::python_wrapper_calls;
// where Python cannot run (offline, no source file, no Python), an ArgumentError naming the
// wrapper's class and the function.

#include "triton_jit/arg.h"
#include "triton_jit/launch_config.h"

namespace triton_jit::detail {

struct FunctionState;

// Runs one call (the caller's `args`, grid or grid function, launch options, stream) through the
// outermost wrapper's own run. `layer`: the Python layer's index in the signature's decorators.
[[gnu::cold, gnu::noinline]] void run_python_wrapper(FunctionState& fn, size_t layer, const LaunchConfig& config,
                                                     ArgSpan args);

// Whether FLA_CACHE_MODE asks fla's CachedAutotuner to read its JSON configs (set, and not
// "disabled"): then a layer with AutotuneInfo::fla_cache_gate runs through Python.
bool fla_cache_mode_on() noexcept;

// The error for a call that needs the wrapper's choice without running it (specialize, compile,
// prepare): only the wrapper's own run knows what it launches.
[[noreturn, gnu::cold, gnu::noinline]] void fail_python_wrapper_not_launched(const FunctionState& fn, size_t layer);

}  // namespace triton_jit::detail

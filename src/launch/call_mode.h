#pragma once

namespace triton_jit::detail {

// How a call through the decorators runs (DecoratedCall::complete); the resolver's requests
// take it too.
enum class CallMode {
  Launch,    // may tune, on the call's stream; runs the chosen config's pre_hook
  Prepare,   // prepare(): may tune, as a launch does, but launches nothing itself (no Config.pre_hook)
  Describe,  // specialize() and compile(): uses a choice already made, never tunes
};

}  // namespace triton_jit::detail

#pragma once
// The autotuner's miss: no choice in memory for this tuning key. Reads the choices stored in the
// index; failing that (and only for a launch) compiles every config, times each on the call's
// stream as Triton's do_bench does, keeps the fastest in memory and in the index.

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "decorators/decorated_call.h"

namespace triton_jit::detail {

// A tuner's own way to choose (FlagGems' LibTuner policies) instead of timing every config and
// keeping the fastest: given the kept configs in Triton's order and `time` (config c's
// [p50, p20, p80] in ms, timed on demand, once; infinite for one that cannot run), returns the
// chosen config.
using ConfigChooser = std::function<uint32_t(const std::vector<size_t>& kept,
                                             const std::function<std::array<double, 3>(uint32_t)>& time)>;

// Returns the chosen config's index. `out`: the call's launch options so far (stream, grid,
// options); `user`: the caller's config (its grid function); `words`: the tuning key's words
// (AutotuneRuntime::key_words).
uint32_t tune(FunctionState& fn, const DecoratedCall& call, const AutotuneRuntime& tuner, const ArgValue* full,
              size_t num_caller_args, const LaunchConfig& out, const LaunchConfig& user, CallMode mode,
              const uint64_t* words, uint32_t num_words, const ConfigChooser* chooser = nullptr);

}  // namespace triton_jit::detail

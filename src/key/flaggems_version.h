#pragma once
// The FlagGems release whose wrappers the runtime emulates (LibEntry.run, LibTuner's key
// strategies) and whose tuning database it shares: one constant for both, equal to the bridge's
// FLAGGEMS_VERSION (tests check it).

namespace triton_jit::detail {

inline constexpr const char* kFlagGemsVersion = "5.0.2";

}  // namespace triton_jit::detail

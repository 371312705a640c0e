#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "triton_jit/settings.h"

namespace triton_jit::detail {

// The explicit target packed as (warp_size << 16 | arch) for the hot path; 0 when none is set.
// Only the "cuda" backend is launched, so the backend needs no bits (a miss reads a hip target's
// backend from the setting itself, and its kernel refuses to launch). The hot path reads a
// constant-initialized atomic: no call, no guard of a function-local static. kTargetUnread
// until TRITON_JIT_TARGET has been read (the first call, or set_target).
inline constexpr uint32_t kTargetUnread = 0xffffffffu;
extern std::atomic<uint32_t> g_explicit_target_packed;
// Whether the explicit target's backend is hip; meaningful where the packed value is not 0.
extern std::atomic<bool> g_explicit_target_hip;
uint32_t explicit_target_packed_slow() noexcept;
inline uint32_t explicit_target_packed() noexcept {
  const uint32_t packed = g_explicit_target_packed.load(std::memory_order_acquire);
  return packed != kTargetUnread ? packed : explicit_target_packed_slow();
}

// TRITON_JIT_PRELOAD's modules, then preload_modules()'s, in order, without repeats.
std::vector<std::string> preload_list();

// A boolean environment variable's spellings, any case: 1, true, yes, on; 0, false, no, off.
// None for anything else.
std::optional<bool> parse_flag(std::string_view text);
// The boolean environment variable `name`: `fallback` when unset or empty, and, with one warning
// naming the variable and the spellings it takes, when it is none of parse_flag's.
bool env_flag(const char* name, bool fallback);
// "[triton_jit] warning: MESSAGE" on stderr, the form the CLI passes through (tools/cli).
void warn(const std::string& message);

bool log_enabled(LogLevel level) noexcept;
void log_line(const std::string& line);

}  // namespace triton_jit::detail

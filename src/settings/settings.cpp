#include "triton_jit/settings.h"

#include <strings.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <mutex>
#include <string_view>
#include <vector>

#include "cuda/driver_api.h"
#include "settings/settings.h"
#include "triton_jit/errors.h"

namespace triton_jit {
namespace detail {

std::optional<bool> parse_flag(std::string_view text) {
  auto is = [&](std::initializer_list<const char*> spellings) {
    for (const char* word : spellings) {
      if (text.size() == std::strlen(word) && ::strncasecmp(text.data(), word, text.size()) == 0) return true;
    }
    return false;
  };
  if (is({"1", "true", "yes", "on"})) return true;
  if (is({"0", "false", "no", "off"})) return false;
  return std::nullopt;
}

bool env_flag(const char* name, bool fallback) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return fallback;
  if (std::optional<bool> value = parse_flag(env)) return *value;
  warn("ignoring " + std::string(name) + "=" + env +
       ": expected 1, true, yes or on, or 0, false, no or off (any case); using " + (fallback ? "on" : "off"));
  return fallback;
}

void warn(const std::string& message) {
  const std::string line = "[triton_jit] warning: " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace detail

namespace {

using detail::warn;

std::mutex g_settings_mutex;

struct TargetSetting {
  std::optional<Target> target;
  std::atomic<uint32_t> packed{0};
  TargetSetting() {
    if (const char* env = std::getenv("TRITON_JIT_TARGET"); env && *env) {
      try {
        set(Target::parse(env));
      } catch (const Error& e) {
        // As for every malformed TRITON_JIT_* value: a warning, and the default in its place.
        warn("ignoring TRITON_JIT_TARGET: " + std::string(e.what()) + "; using the current GPU's target, else cuda:90");
      }
    }
  }
  void set(std::optional<Target> t) {
    target = std::move(t);
    const uint32_t v = target ? static_cast<uint32_t>(target->warp_size << 16 | target->arch) : 0u;
    packed.store(v, std::memory_order_release);
    // Before the packed value: a reader that sees the new target sees its backend.
    detail::g_explicit_target_hip.store(target && target->backend == "hip", std::memory_order_release);
    detail::g_explicit_target_packed.store(v, std::memory_order_release);
  }
};

TargetSetting& target_setting() {
  static TargetSetting s;
  return s;
}

LogLevel level_from_env() {
  const char* env = std::getenv("TRITON_JIT_LOG");
  if (env == nullptr) return LogLevel::Off;
  if (std::strcmp(env, "info") == 0 || std::strcmp(env, "INFO") == 0) return LogLevel::Info;
  if (std::strcmp(env, "debug") == 0 || std::strcmp(env, "DEBUG") == 0) return LogLevel::Debug;
  return LogLevel::Off;
}

std::atomic<int> g_log_level{static_cast<int>(level_from_env())};

// -1 until TRITON_JIT_OFFLINE is read, at the first offline() unless set_offline came first: read
// then, not as the library loads, its warning about a bad value comes while a program (the CLI)
// can still show it as its own.
constexpr int kOfflineUnread = -1;
std::atomic<int> g_offline{kOfflineUnread};

}  // namespace

void set_target(std::optional<Target> target) {
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  target_setting().set(std::move(target));
}

std::optional<Target> explicit_target() {
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  return target_setting().target;
}

void set_offline(bool offline) { g_offline.store(offline ? 1 : 0, std::memory_order_relaxed); }
bool offline() {
  int value = g_offline.load(std::memory_order_relaxed);
  if (value == kOfflineUnread) {
    int expected = kOfflineUnread;
    const int from_env = detail::env_flag("TRITON_JIT_OFFLINE", false) ? 1 : 0;
    value = g_offline.compare_exchange_strong(expected, from_env, std::memory_order_relaxed) ? from_env : expected;
  }
  return value == 1;
}

void set_log_level(LogLevel level) { g_log_level.store(static_cast<int>(level), std::memory_order_relaxed); }
LogLevel log_level() { return static_cast<LogLevel>(g_log_level.load(std::memory_order_relaxed)); }

bool launch_target_is_hip() noexcept {
  if (detail::explicit_target_packed() != 0) return detail::g_explicit_target_hip.load(std::memory_order_acquire);
  // One runtime a process (libcuda, else the HIP runtime), chosen at its first use: only the HIP
  // table reads a gfx processor.
  try {
    return cuda::driver_available() && cuda::driver().DeviceGetGfxArch != nullptr;
  } catch (const std::exception&) {
    return false;
  }
}

namespace detail {

std::atomic<uint32_t> g_explicit_target_packed{kTargetUnread};
std::atomic<bool> g_explicit_target_hip{false};

uint32_t explicit_target_packed_slow() noexcept {
  const uint32_t v = target_setting().packed.load(std::memory_order_acquire);  // reads TRITON_JIT_TARGET once
  g_explicit_target_packed.store(v, std::memory_order_release);
  return v;
}

bool log_enabled(LogLevel level) noexcept {
  return g_log_level.load(std::memory_order_relaxed) >= static_cast<int>(level);
}

void log_line(const std::string& line) {
  std::string out = "[triton_jit] " + line + "\n";
  std::fwrite(out.data(), 1, out.size(), stderr);
}

}  // namespace detail
}  // namespace triton_jit

// Pack loading, the runtime's side of triton_jit/pack.h: the packs a program or TRITON_JIT_PACKS
// names go to the registry (pack_registry.h), which misses look kernels up in.
#include "store/pack.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cuda/device.h"
#include "cuda/driver_api.h"
#include "settings/settings.h"
#include "store/pack_registry.h"
#include "triton_jit/errors.h"
#include "triton_jit/pack.h"

namespace triton_jit {
namespace {

// The current device's target, when a driver and a device are there.
std::optional<Target> device_target() {
  if (!cuda::driver_available()) return std::nullopt;
  try {
    return cuda::device_target(*cuda::current_device().info);
  } catch (const Error&) {
    return std::nullopt;
  }
}

PackInfo load_one(const std::string& path) {
  const std::optional<Target> device = device_target();
  PackInfo info = detail::PackRegistry::instance().load(path, device ? &*device : nullptr);
  if (detail::log_enabled(LogLevel::Info)) {
    detail::log_line("loaded kernel pack " + path + " (" + std::to_string(info.kernels) + " kernels)");
  }
  return info;
}

}  // namespace

namespace detail {

void load_environment_packs() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* env = std::getenv("TRITON_JIT_PACKS");
    if (env == nullptr) return;
    const std::string list = env;
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      const std::string path = list.substr(start, end - start);
      if (!path.empty()) {
        try {
          load_one(path);
        } catch (const Error& e) {
          std::fprintf(stderr, "[triton_jit] warning: TRITON_JIT_PACKS: %s\n", e.what());
        }
      }
      start = end + 1;
    }
  });
}

}  // namespace detail

PackInfo load_pack(const std::string& path) {
  detail::load_environment_packs();
  return load_one(path);
}

std::vector<PackInfo> loaded_packs() {
  detail::load_environment_packs();
  return detail::PackRegistry::instance().infos();
}

PackInfo read_pack_info(const std::string& path) { return detail::pack_info(path, detail::read_pack(path)); }

}  // namespace triton_jit

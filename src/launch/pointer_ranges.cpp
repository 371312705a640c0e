#include "launch/pointer_ranges.h"

#include <map>
#include <mutex>
#include <utility>

#include "bridge/bridge.h"
#include "settings/settings.h"
#include "triton_jit/errors.h"
#include "triton_jit/settings.h"

namespace triton_jit::detail {

bool pointer_ranges_for(const Target& target, const std::string& function) {
  if (target.backend != "hip") return false;
  static std::mutex mutex;
  static std::map<std::pair<int, int>, bool> answers;  // (arch, warp size) -> buffer ops
  const std::pair<int, int> key{target.arch, target.warp_size};
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = answers.find(key); it != answers.end()) return it->second;
  }
  // Asked outside the lock: the bridge may start Python, and a failed check is not kept.
  bool on = true;
  try {
    on = offline() ? env_flag("AMDGCN_USE_BUFFER_OPS", true) : bridge::hip_buffer_ops(target);
  } catch (const ArgumentError& e) {
    throw ArgumentError(function + ": " + e.what(), function, "target");  // the target itself is wrong
  } catch (const Error&) {
    // No Python to ask (a deployment running packs): Triton's default since 3.6, or the variable.
    on = env_flag("AMDGCN_USE_BUFFER_OPS", true);
  }
  std::lock_guard<std::mutex> lock(mutex);
  return answers.emplace(key, on).first->second;
}

}  // namespace triton_jit::detail

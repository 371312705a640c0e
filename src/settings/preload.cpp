// The modules to import before any kernel (triton_jit::preload_modules, TRITON_JIT_PRELOAD). Only
// the list lives here; the bridge imports them when it next imports a kernel.
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "settings/settings.h"

namespace triton_jit {
namespace {

std::string trimmed(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

struct PreloadSetting {
  std::mutex mutex;
  std::vector<std::string> modules;

  PreloadSetting() {
    const char* env = std::getenv("TRITON_JIT_PRELOAD");
    if (env == nullptr) return;
    const std::string list = env;
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(',', start);
      if (end == std::string::npos) end = list.size();
      add(trimmed(list.substr(start, end - start)));
      start = end + 1;
    }
  }
  // Under `mutex` (or from the constructor).
  void add(const std::string& module) {
    if (!module.empty() && std::find(modules.begin(), modules.end(), module) == modules.end()) {
      modules.push_back(module);
    }
  }
};

PreloadSetting& preload_setting() {
  static auto* s = new PreloadSetting();  // read by any thread until exit
  return *s;
}

}  // namespace

void preload_modules(const std::vector<std::string>& modules) {
  PreloadSetting& s = preload_setting();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const std::string& m : modules) s.add(trimmed(m));
}

namespace detail {

std::vector<std::string> preload_list() {
  PreloadSetting& s = preload_setting();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.modules;
}

}  // namespace detail
}  // namespace triton_jit

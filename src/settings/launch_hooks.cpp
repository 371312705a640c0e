#include "settings/launch_hooks.h"

#include <memory>
#include <mutex>
#include <vector>

namespace triton_jit {
namespace detail {

// Constant-initialized: a launch during static initialization reads 0.
std::atomic<uint32_t> g_launch_hook_bits{0};

namespace {

struct Entry {
  uint64_t id;
  LaunchHooks hooks;
};

struct Snapshot {
  std::vector<LaunchHooks> hooks;
};

std::mutex g_mutex;            // guards g_entries, g_next_id, retired()
std::vector<Entry> g_entries;  // the registered hooks, in order
uint64_t g_next_id = 1;
std::atomic<const Snapshot*> g_current{nullptr};

// Every snapshot published, kept for launches still reading one: never destroyed, not even at
// exit, where another thread may still be launching.
std::vector<std::unique_ptr<Snapshot>>& retired() {
  static auto* snapshots = new std::vector<std::unique_ptr<Snapshot>>;
  return *snapshots;
}

// Publishes the registered hooks as a new snapshot, then the C++ bit. Under g_mutex.
void publish() {
  auto snapshot = std::make_unique<Snapshot>();
  for (const Entry& e : g_entries) snapshot->hooks.push_back(e.hooks);
  g_current.store(snapshot.get(), std::memory_order_release);
  retired().push_back(std::move(snapshot));
  if (g_entries.empty()) {
    g_launch_hook_bits.fetch_and(~kCppLaunchHooks, std::memory_order_relaxed);
  } else {
    g_launch_hook_bits.fetch_or(kCppLaunchHooks, std::memory_order_relaxed);
  }
}

}  // namespace

LaunchHookList registered_launch_hooks() noexcept {
  const Snapshot* s = g_current.load(std::memory_order_acquire);
  if (s == nullptr) return {};
  return LaunchHookList{s->hooks.size(), s->hooks.data()};
}

void set_python_launch_hooks(bool on) noexcept {
  if (on) {
    g_launch_hook_bits.fetch_or(kPythonLaunchHooks, std::memory_order_relaxed);
  } else {
    g_launch_hook_bits.fetch_and(~kPythonLaunchHooks, std::memory_order_relaxed);
  }
}

}  // namespace detail

uint64_t add_launch_hooks(const LaunchHooks& hooks) {
  std::lock_guard<std::mutex> lock(detail::g_mutex);
  const uint64_t id = detail::g_next_id++;
  detail::g_entries.push_back(detail::Entry{id, hooks});
  detail::publish();
  return id;
}

bool remove_launch_hooks(uint64_t id) {
  std::lock_guard<std::mutex> lock(detail::g_mutex);
  for (auto it = detail::g_entries.begin(); it != detail::g_entries.end(); ++it) {
    if (it->id == id) {
      detail::g_entries.erase(it);
      detail::publish();
      return true;
    }
  }
  return false;
}

}  // namespace triton_jit

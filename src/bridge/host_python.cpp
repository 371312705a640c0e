#include "bridge/host_python.h"

#include <dlfcn.h>

#include <atomic>

#include "bridge/bridge.h"

namespace triton_jit::bridge {
namespace {

template <typename Fn>
bool find(const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
  return *out != nullptr;
}

std::atomic<const HostPython*> g_found{nullptr};

}  // namespace

const HostPython* host_python() noexcept {
  if (const HostPython* found = g_found.load(std::memory_order_acquire)) return found;
  HostPython py{};
  const bool ok = find("Py_IsInitialized", &py.is_initialized) && find("PyGILState_Check", &py.gil_check) &&
                  find("PyEval_SaveThread", &py.save_thread) && find("PyEval_RestoreThread", &py.restore_thread) &&
                  find("PyGILState_Ensure", &py.gil_ensure) && find("PyGILState_Release", &py.gil_release) &&
                  find("PySys_GetObject", &py.sys_get_object) && find("PyUnicode_AsUTF8", &py.unicode_as_utf8) &&
                  find("PyErr_Clear", &py.err_clear) && find("Py_GetVersion", &py.version);
  if (!ok) return nullptr;
  // Kept for the process's life: a loaded libpython is never unloaded.
  static const HostPython kept = py;
  g_found.store(&kept, std::memory_order_release);
  return &kept;
}

std::string host_executable(const HostPython& py) {
  const int state = py.gil_ensure();
  std::string exe;
  if (void* object = py.sys_get_object("executable")) {  // borrowed
    if (const char* text = py.unicode_as_utf8(object)) exe = text;
  }
  py.err_clear();  // a sys.executable that is not a str leaves the host nothing to see
  py.gil_release(state);
  return exe;
}

// The shared library's ScopedGilRelease (static builds link the bridge's own, bridge.cpp): the
// host's GIL is released through the host's own functions, found without loading the bridge, so
// a thread waiting for another thread's compile never blocks it, whether or not this process has
// loaded the bridge yet.
ScopedGilRelease::ScopedGilRelease() {
  const HostPython* py = host_python();
  if (py != nullptr && py->is_initialized() && py->gil_check()) saved_ = py->save_thread();
}

ScopedGilRelease::~ScopedGilRelease() {
  if (saved_ != nullptr) host_python()->restore_thread(saved_);
}

}  // namespace triton_jit::bridge

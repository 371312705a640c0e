#pragma once

#include <string>

// The Python C API of an interpreter that is already in the process (a Python host program, or
// the bridge's libpython once loaded), found with dlsym and never loaded: what the core needs of
// Python without the bridge library (the GIL, the host's executable, its version).
namespace triton_jit::bridge {

struct HostPython {
  int (*is_initialized)();
  int (*gil_check)();
  void* (*save_thread)();
  void (*restore_thread)(void*);
  int (*gil_ensure)();  // PyGILState_STATE is an int-sized enum
  void (*gil_release)(int);
  void* (*sys_get_object)(const char*);
  const char* (*unicode_as_utf8)(void*);
  void (*err_clear)();
  const char* (*version)();
};

// The process's Python, or nullptr when none is loaded. Looked up until found, then kept.
const HostPython* host_python() noexcept;

// A running interpreter's sys.executable ("" when unreadable). Takes the GIL.
std::string host_executable(const HostPython& py);

}  // namespace triton_jit::bridge

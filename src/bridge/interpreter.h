#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace triton_jit::bridge {

// Holds the GIL for its lifetime. The first one in a process starts the interpreter unless the
// host program already runs Python (a torch extension, say); the GIL is released again as soon
// as Python is done, so other threads are never blocked by an idle interpreter.
class GilGuard {
 public:
  GilGuard();
  ~GilGuard();
  GilGuard(const GilGuard&) = delete;
  GilGuard& operator=(const GilGuard&) = delete;

 private:
  PyGILState_STATE state_;
};

// Whether the process's interpreter is its host program's (the runtime joined it), not one the
// runtime started. No GIL needed.
bool interpreter_is_hosts() noexcept;

// The bridge module, created from the source embedded in the library. Needs the GIL.
pybind11::module_& bridge();

// Type, message and traceback of a Python exception, as text.
struct PythonFailure {
  std::string type;
  std::string message;
  std::string traceback;
};
PythonFailure describe(pybind11::error_already_set& e);

}  // namespace triton_jit::bridge

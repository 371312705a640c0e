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

// The bridge package (triton_jit_bridge), imported from the table of module sources embedded in the
// library (embedded_modules.h) on first use. Needs the GIL.
pybind11::module_& bridge();

// The embedded table as Python sees it, a list of (name, path, source) tuples: what a compile
// worker imports the bridge from. Needs the GIL.
pybind11::list embedded_module_table();

// Runs the finder's module from the embedded table, installs the finder and imports the package
// with it. Needs the GIL; raises what Python raises. bridge() calls it once.
pybind11::module_ import_embedded_bridge();

// For exit handlers, in the process that started its own interpreter: from now on no other
// thread runs Python. The thread calling exit() takes the GIL and keeps it, so Python threads
// still running (the compile pool's, a thread compiling in this process) stop where they are,
// rather than run on while later exit handlers tear down what they use (OpenSSL's cleanup, under
// hashlib, crashed one) or start workers nobody ends; later handlers on the exiting thread (torch's
// static destructors take the GIL) still can. Once per process; a no-op where that thread holds
// the GIL already, where no thread got the GIL within 3 s, in a forked child, and in a host's
// interpreter (it finalizes itself). The bridge's load registers it with std::atexit, after
// Triton's imports, so that it runs before the exit handlers of the libraries they loaded.
void stop_python_threads();

// Type, message and traceback of a Python exception, as text.
struct PythonFailure {
  std::string type;
  std::string message;
  std::string traceback;
};
PythonFailure describe(pybind11::error_already_set& e);

}  // namespace triton_jit::bridge

#pragma once

#include <string>

// Which python the runtime compiles with, found without starting Python (core side: the bridge
// library asks through CoreServices).
namespace triton_jit::bridge {

// The python whose Triton compiles: the embedded interpreter's program, the compile workers'
// executable, and the name the kernel index keys its entries by.
struct PythonChoice {
  std::string path;    // absolute, unless a bare name that PATH does not have
  std::string origin;  // where it came from, for the log and messages
};

// In order: TRITON_JIT_PYTHON; in the build tree only, the python the build was configured with;
// the active virtualenv's (VIRTUAL_ENV); python3 on PATH. An installed library is thereby never
// tied to the machine that built it. Read on every call (cold paths only; tests change the
// variables between calls); each new choice is logged once (TRITON_JIT_LOG=debug).
PythonChoice select_python();
std::string python_executable();  // select_python().path

// Whether this copy of the library runs from its build tree. Defined by bridge_loader.cpp for
// the shared library (it compares its own folder with the build's) and by bridge_linked.cpp for
// the static one the tests link (always: it is never installed).
bool library_in_build_tree();

}  // namespace triton_jit::bridge

#pragma once
// Triton's own Python launch as the reference of a GPU test, run in the runtime's interpreter
// (where torch and triton are): code runs in `__main__`, sets `result`, and its tensors stay
// alive in a `keep` dict the test's Python sets up.
#include <Python.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "triton_jit/triton_jit.h"

namespace gpu_test {

// Runs `code` in the runtime's interpreter (module `__main__`); returns str(result) where the code
// sets `result`. Fails the test with the traceback when it raises.
inline std::string run_python(const std::string& code) {
  triton_jit::triton_version();  // the interpreter is the runtime's (TRITON_JIT_PYTHON, its triton)
  const PyGILState_STATE gil = PyGILState_Ensure();
  std::string out;
  PyObject* main = PyImport_AddModule("__main__");
  PyObject* globals = PyModule_GetDict(main);
  PyObject* r = PyRun_String(code.c_str(), Py_file_input, globals, globals);
  if (r == nullptr) {
    PyErr_Print();
    ADD_FAILURE() << "Python raised (traceback on stderr) running:\n" << code;
  } else {
    Py_DECREF(r);
    if (PyObject* result = PyDict_GetItemString(globals, "result")) {
      PyObject* s = PyObject_Str(result);
      out = PyUnicode_AsUTF8(s);
      Py_DECREF(s);
    }
  }
  PyGILState_Release(gil);
  return out;
}

inline std::vector<uintptr_t> addresses(const std::string& text) {
  std::vector<uintptr_t> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(static_cast<uintptr_t>(std::stoull(text.substr(start, end - start))));
    start = end + 1;
  }
  return out;
}

}  // namespace gpu_test

// The Python side of the CPU tests' references, in the runtime's embedded interpreter: a module of
// tests/support (triton_reference, heuristics_reference, flaggems_libentry, ...), or a kernel file
// of tests/kernels imported by Python on its own (the runtime keeps its own copy of the module, so
// the reference never shares its state). Each is imported once per process and never destroyed: the
// interpreter is still needed when static objects die. Needs TRITON_JIT_TEST_SUPPORT_DIR.
#pragma once

#include <pybind11/pybind11.h>

#include <map>
#include <string>

#include "bridge/interpreter.h"

namespace triton_jit::test {

// tests/support/NAME.py, imported after the bridge (so Python runs and triton is imported).
inline pybind11::module_& support_module(const std::string& name) {
  // Never destroyed, as the modules: reachable to the end (LeakSanitizer), read and written under the GIL.
  static auto* modules = new std::map<std::string, pybind11::module_*>();
  triton_jit::bridge::GilGuard gil;
  triton_jit::bridge::bridge();
  pybind11::module_*& module = (*modules)[name];
  if (module == nullptr) {
    pybind11::module_::import("sys").attr("path").attr("insert")(0, TRITON_JIT_TEST_SUPPORT_DIR);
    module = new pybind11::module_(pybind11::module_::import(name.c_str()));
  }
  return *module;
}

// The file at `path` executed as a module named `as` that sys.modules does not hold.
inline pybind11::object& file_module(const std::string& path, const std::string& as) {
  static auto* modules = new std::map<std::string, pybind11::object*>();  // as above
  triton_jit::bridge::GilGuard gil;
  triton_jit::bridge::bridge();
  pybind11::object*& module = (*modules)[as];
  if (module == nullptr) {
    pybind11::module_ util = pybind11::module_::import("importlib.util");
    pybind11::object spec = util.attr("spec_from_file_location")(as, path);
    pybind11::object m = util.attr("module_from_spec")(spec);
    spec.attr("loader").attr("exec_module")(m);
    module = new pybind11::object(m);
  }
  return *module;
}

// Whether the installed Triton links AMD code objects itself: Triton 3.4 links them with ROCm's
// ld.lld, which a machine without ROCm lacks (the HIP tests skip there, saying so).
inline bool triton_links_hsaco() {
  bridge::GilGuard gil;
  bridge::bridge();
  try {
    return pybind11::hasattr(pybind11::module_::import("triton._C.libtriton").attr("amd"), "link_hsaco");
  } catch (const pybind11::error_already_set&) {
    return false;
  }
}

// tests/support/triton_reference.py: Triton's own binder, specialization and compile, the
// reference the parity tests compare with.
inline pybind11::module_& triton_reference() { return support_module("triton_reference"); }

}  // namespace triton_jit::test

#pragma once

#include <nanobind/nanobind.h>

// The runtime's C++ exceptions raised as the Python classes of triton_jit/errors.py, with the
// same context attributes. A compile interrupted by Ctrl-C raises KeyboardInterrupt.
namespace triton_jit::python {

// Registers the exception translator; the classes are handed over by the package's __init__
// (_set_error_types), so the module itself imports nothing of the package.
void register_errors(nanobind::module_& m);

// Sets the Python error for the C++ exception being handled (call it inside a catch block): the
// translation nanobind applies, for functions written against the raw C API (the launcher).
void set_python_error_from_current_exception() noexcept;

// Raises ArgumentError (function, parameter) from the extension's own argument checks. Cold.
[[noreturn]] void throw_argument_error(const std::string& message, const std::string& function,
                                       const std::string& parameter);

}  // namespace triton_jit::python

#pragma once

#include <nanobind/nanobind.h>

// The runtime's value types as Python sees them (Specialization, KernelInfo, CompileRequest)
// and its process-wide settings.
namespace triton_jit::python {

void register_types(nanobind::module_& m);
void register_settings(nanobind::module_& m);

}  // namespace triton_jit::python

#pragma once

#include <nanobind/nanobind.h>

#include "triton_jit/stats.h"

// The runtime's value types as Python sees them (Specialization, KernelInfo, CompileRequest)
// and its process-wide settings.
namespace triton_jit::python {

void register_types(nanobind::module_& m);
// A Stats as the dict Python sees (hits, misses, compiles, ...).
nanobind::dict stats_dict(const Stats& s);
void register_settings(nanobind::module_& m);

}  // namespace triton_jit::python

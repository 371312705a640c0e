#pragma once

#include <nanobind/nanobind.h>

// triton_jit.install()'s JITFunction.run in C++: the common call (the function's Kernel already
// made, none of the fallback conditions of triton_jit/_install.py holding) launches from here,
// without a Python frame, a keyword dict or a launcher object; every other call goes to the
// Python run (_install._installed_run_python), which stays the reference of the semantics.
//
// Five types:
// - InstalledRun: the run. A descriptor, as a Python function is: JITFunction.run gives it back
//   as is, fn.run a bound method.
// - InstalledGetitem: JITFunction.__getitem__, a descriptor too: fn[grid] is an
//   - InstalledGridCall, whose call launches through the run without Triton's lambda.
// - InstallEntry: what the run keeps on one JITFunction (the Kernel, the launcher, why the
//   runtime refuses it, whether it launched, the fallbacks logged): _install._Entry.
// - LaunchedKernel: what a launch returns, Triton's CompiledKernel made on first use from the
//   call's arguments (_install._LaunchedKernel's C twin, one allocation per call).
namespace triton_jit::python {

void register_installed_run(nanobind::module_& m);

}  // namespace triton_jit::python

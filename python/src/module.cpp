// triton_jit._C: the extension behind the triton_jit package. One file per concern: errors
// (errors.cpp), arguments (convert.cpp; element types in dtypes.cpp, C-API helpers in pyutil.h),
// the kernel and its launch (kernel.cpp), triton_jit.install()'s run (installed_run.cpp), value types and settings
// (types.cpp), the lookup of the optional libtorch module triton_jit._torch_native (torch_native.cpp).
#include <nanobind/nanobind.h>

#include "errors.h"
#include "installed_run.h"
#include "kernel.h"
#include "torch_native.h"
#include "types.h"

NB_MODULE(_C, m) {
  m.doc() = "libtriton_jit's launcher for Python: see the triton_jit package.";
  // Kernels live as long as the process, as the runtime's functions do: not leaks.
  nanobind::set_leak_warnings(false);
  triton_jit::python::register_errors(m);
  triton_jit::python::register_types(m);
  triton_jit::python::register_settings(m);
  triton_jit::python::register_kernel(m);
  triton_jit::python::register_installed_run(m);
  triton_jit::python::register_torch_native(m);
}

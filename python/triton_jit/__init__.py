"""triton_jit: launch @triton.jit kernels from Python through libtriton_jit's C++ launcher.

Switching from Triton's own launch is one line::

    import triton_jit
    fast_add = triton_jit.jit(add_kernel)             # a @triton.jit function (autotune/heuristics too)
    fast_add[grid](x, y, out, n, BLOCK=1024, num_warps=4)
    out = fast_add[grid](x, y, triton_jit.empty_like(x), n, BLOCK=1024)  # the output allocated in the call

The kernel is the same Triton code, specialized and compiled as Triton does it (the same key,
the same cubin); a cached launch runs no Python beyond reading the arguments.
"""
from . import errors
from . import _C
from ._jit import jit, kernel
from ._install import install, install_stats, installed, uninstall
from ._frameworks import empty, shape
from ._jax import Output
from .function import Function
from ._C import CompileRequest, Kernel, KernelInfo, Specialization
from ._C import empty_like
from ._C import (build_pack, device_name, explicit_target, global_stats, offline, preload_modules, python_used, set_offline,
                 set_target, synchronize, triton_version)
from .errors import (ArchitectureMismatchError, ArgumentError, CompileError, CudaError, Error, KernelLookupError,
                     LaunchConfigError, MissingKernelError, NoDeviceError, PackError, PreloadError, PythonError)

_C._set_error_types({name: getattr(errors, name) for name in errors.__all__})

__version__ = "0.1.0"

from . import ops  # noqa: E402  (after the extension is set up: ops launch kernels through it)


def cdiv(a, b):
    """ceil(a / b), as triton.cdiv: the usual way a grid covers a size."""
    return (a + b - 1) // b


__all__ = [
    "jit", "kernel", "install", "uninstall", "installed", "install_stats", "cdiv", "Function", "Output", "shape", "empty", "empty_like", "ops", "Kernel", "KernelInfo", "Specialization", "CompileRequest", "set_target",
    "explicit_target", "set_offline", "synchronize", "device_name", "offline", "preload_modules", "python_used", "triton_version", "global_stats", "build_pack",
    *errors.__all__,
]

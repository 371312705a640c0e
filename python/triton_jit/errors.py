"""Python exceptions for the runtime's C++ error types, with the same context attributes.

Each class mirrors one type of ``include/triton_jit/errors.h``; the extension raises them in
place of the C++ exceptions (python/src/errors.cpp). Where a Python built-in means the same
thing, the class derives from it too, so that code written for Triton's own launch still catches
what it expects (a bad argument is a ``TypeError``/``ValueError`` there).
"""


class Error(RuntimeError):
    """Base of every error of the runtime. The message says what went wrong, where, and what to do."""


class KernelLookupError(Error, LookupError):
    """The file, module or function could not be found or imported.

    Attributes: ``path`` (the file, or ``module:NAME``), ``function``, ``traceback`` (Python's,
    when the file failed to import)."""
    path = ""
    function = ""
    traceback = ""


class PreloadError(KernelLookupError):
    """A module to preload failed to import. Attribute ``module``: the module that failed."""
    module = ""


class ArgumentError(Error, ValueError, TypeError):
    """Arguments that do not fit the kernel: a missing or surplus argument, an object on the host
    or on another device, an unsupported type. Attributes: ``function``, ``parameter`` (empty when
    the error concerns the whole call)."""
    function = ""
    parameter = ""


class CompileError(Error):
    """``triton.compile`` raised. Attributes: ``function``, ``signature`` (Triton's signature
    syntax), ``key`` (the whole kernel key), ``file``, ``line``, ``python_type`` and
    ``traceback``."""
    function = ""
    signature = ""
    key = ""
    file = ""
    line = 0
    python_type = ""
    traceback = ""


class PythonError(Error):
    """The interpreter or the runtime's bridge failed outside a compile. Attribute ``traceback``."""
    traceback = ""


class CudaError(Error):
    """A CUDA driver call failed. Attribute ``code``: the driver's error code."""
    code = 0


class NoDeviceError(CudaError):
    """No CUDA driver could be loaded, or it reports no device."""


class ArchitectureMismatchError(Error):
    """The kernel's binary was built for another GPU architecture than the device's."""


class LaunchConfigError(Error, ValueError):
    """A launch configuration the device cannot run (grid over limits, too much shared memory)."""


class MissingKernelError(Error):
    """A kernel that is in no pack or index and cannot be compiled here. Attributes:
    ``function``, ``key`` and ``manifest_line`` (the pack-manifest line that would add it)."""
    function = ""
    key = ""
    manifest_line = ""


class PackError(Error):
    """A kernel pack or manifest that cannot be read. Attribute ``path``."""
    path = ""


__all__ = [
    "Error", "KernelLookupError", "PreloadError", "ArgumentError", "CompileError", "PythonError", "CudaError",
    "NoDeviceError", "ArchitectureMismatchError", "LaunchConfigError", "MissingKernelError", "PackError",
]

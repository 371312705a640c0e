"""Shared set-up of the triton_jit package's tests: the test kernels and Triton's reference binder
(tests/support/triton_reference.py) on sys.path, and stand-ins for GPU arrays that exist without a
GPU (objects with __cuda_array_interface__, and DLPack capsules that say "CUDA")."""
import ctypes
import functools
import os
import sys

import pytest

# JAX (where installed) would take most of the GPU's memory at its first use, which torch in the
# same process needs too.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "kernels"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "support"))

import needs_gpu  # noqa: E402  (tests/support)

TYPESTR = {"fp16": "<f2", "fp32": "<f4", "fp64": "<f8", "i8": "|i1", "i16": "<i2", "i32": "<i4", "i64": "<i8",
           "u8": "|u1", "u16": "<u2", "u32": "<u4", "u64": "<u8", "u1": "|b1"}


class CudaArray:
    """What CuPy and Numba arrays show: __cuda_array_interface__ (version 3)."""

    def __init__(self, address, dtype="fp32", shape=(16, )):
        self.address, self.typestr, self.shape = address, TYPESTR.get(dtype, dtype), shape

    @property
    def __cuda_array_interface__(self):
        return {"data": (self.address, False), "typestr": self.typestr, "shape": self.shape, "strides": None,
                "version": 3}


# DLPack's structures, from its specification, to make capsules that claim device memory.
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]

_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

DLPACK_CODES = {"i32": (0, 32), "i64": (0, 64), "u8": (1, 8), "fp16": (2, 16), "fp32": (2, 32), "bf16": (4, 16),
                "u1": (6, 8), "fp8e4nv": (10, 8), "fp8e5": (12, 8), "c64": (5, 64)}


class DLPackArray:
    """An array of a JAX-like framework on `device_type` (2: CUDA, 1: CPU), exported by __dlpack__
    as an unversioned capsule; records the stream each export was asked for."""

    def __init__(self, address, dtype="fp32", device_type=2, device_id=0, byte_offset=0):
        self.address, self.dtype, self.device = address, dtype, (device_type, device_id)
        self.byte_offset = byte_offset
        self.streams = []
        self._keep = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        code, bits = DLPACK_CODES[self.dtype]
        shape = (ctypes.c_int64 * 1)(16)
        managed = _DLManagedTensor()
        managed.dl_tensor = _DLTensor(self.address, _DLDevice(*self.device), 1, _DLDataType(code, bits, 1), shape,
                                      None, self.byte_offset)
        self._keep.append((managed, shape))
        return _PyCapsule_New(ctypes.addressof(managed), b"dltensor", None)


@functools.lru_cache(maxsize=None)
def has_gpu():
    """torch.cuda.is_available(), asked only where the driver sees a GPU (tests/support/needs_gpu.py,
    through ctypes): every test file's process asks, at import, and importing torch alone takes 2
    to 4 s of a 2-core machine that most files without a GPU never need."""
    if needs_gpu.why_no_gpu() is not None:
        return False
    try:
        import torch
        return torch.cuda.is_available()
    except (ImportError, AttributeError):  # AttributeError: the repository's torch/ folder, run from its root
        return False


requires_gpu = pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)")


def flag_gems_or_skip():
    """The installed flag_gems, or a visible skip: where it cannot be imported (ImportError, or its
    device runtime failing to start) or is another release than the one emulated
    (flaggems_stub.FLAGGEMS_VERSION, the tests' one copy of the bridge's constant)."""
    from flaggems_stub import FLAGGEMS_VERSION
    try:
        import flag_gems
    except Exception as e:
        pytest.skip(f"flag_gems {FLAGGEMS_VERSION} cannot be imported ({type(e).__name__}: {e}); put FlagGems "
                    "on PYTHONPATH (gpu-check.sh installs .carry/wheels) to run FlagGems' kernels through the runtime")
    version = getattr(flag_gems, "__version__", None)
    if version is not None and version != FLAGGEMS_VERSION:
        pytest.skip(f"flag_gems {version} is installed; this test emulates {FLAGGEMS_VERSION}")
    return flag_gems

"""Framework helpers for code written once for torch, CuPy and JAX arrays (the seed's
triton.shape / triton.empty): which framework an object belongs to, its shape and strides in
elements, and new arrays allocated beside it; and the lookup of triton_jit._torch_native, through
which the extension calls libtorch from C++."""
import importlib
import logging

_log = logging.getLogger("triton_jit")


def framework_of(x):
    """'torch', 'cupy', 'jax', 'numpy' or None, from the object's type (nothing is imported)."""
    module = type(x).__module__ or ""
    root = module.split(".", 1)[0]
    if root == "torch":
        return "torch"
    if root in ("cupy", "cupy_backends"):
        return "cupy"
    if root in ("jax", "jaxlib"):
        return "jax"
    if root == "numpy":
        return "numpy"
    return None


def first_framework(args):
    """The framework of the first array among `args`."""
    for a in args:
        fw = framework_of(a)
        if fw is not None:
            return fw
    return None


def shape(x):
    """The shape of any framework's array, as a tuple of ints."""
    return tuple(int(d) for d in x.shape)


def strides(x):
    """Strides in elements (torch's convention) for torch, CuPy, numpy and JAX arrays (JAX arrays
    are always dense, row-major)."""
    fw = framework_of(x)
    if fw == "torch":
        return tuple(x.stride())
    if fw in ("cupy", "numpy"):
        return tuple(s // x.itemsize for s in x.strides)
    dims = shape(x)
    out, step = [], 1
    for d in reversed(dims):
        out.append(step)
        step *= d
    return tuple(reversed(out))


_DTYPE_NAMES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64", "i8": "int8",
                "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "u1": "bool", "int1": "bool"}


def _dtype_name(dtype):
    """A dtype of any spelling (torch.float16, tl.float16, numpy's, 'float16', 'fp16') as a name."""
    if isinstance(dtype, str):
        name = dtype
    else:
        name = getattr(dtype, "name", None)
        if not isinstance(name, str):  # torch.dtype: "torch.float16"
            name = str(dtype)
    name = name.rsplit(".", 1)[-1]
    return _DTYPE_NAMES.get(name, name)


def empty(shape_, dtype=None, like=None):
    """A new uninitialized array of `shape_` and `dtype` (any spelling; default: like's dtype) in
    the framework and on the device of `like`. Under a JAX trace (jax.jit; like= traced or not), an
    Output that a kernel launch writes (see triton_jit/_jax.py): its `.value` after the launch."""
    if like is None:
        raise TypeError("triton_jit.empty needs like=: an array of the framework and device to allocate in")
    shape_ = tuple(int(d) for d in shape_)
    fw = framework_of(like)
    name = _dtype_name(dtype if dtype is not None else like.dtype)
    from . import _jax
    if isinstance(like, _jax.Output) or (fw == "jax" and _jax.is_tracer(like)):
        # Under a JAX trace: declared, written by a launch (an XLA custom call's result).
        return _jax.Output(shape_, name)
    if fw == "torch":
        import torch
        return torch.empty(shape_, dtype=getattr(torch, name), device=like.device)
    if fw == "cupy":
        import cupy
        with like.device:
            return cupy.empty(shape_, dtype=name)
    if fw == "jax":
        import jax
        import jax.numpy as jnp
        out = jnp.empty(shape_, dtype=name)
        if _jax.is_tracer(out):
            # Under a trace beside a concrete array (a closed-over constant, a custom_vjp residual):
            # an array made here is a traced constant that a launch could only read, never write,
            # so the kernel's result would be lost and the zeros returned. Declared instead.
            return _jax.Output(shape_, name)
        devices = like.devices() if hasattr(like, "devices") else None
        return jax.device_put(out, next(iter(devices))) if devices else out
    if fw == "numpy":
        import numpy
        return numpy.empty(shape_, dtype=name)
    raise TypeError(f"triton_jit.empty: no framework for an object of type {type(like).__name__}")


def torch_native():
    """The capsule of triton_jit._torch_native's table (python/src/torch_native.h), looked up by the
    extension at its first torch tensor or placeholder; None, said once at debug level, where that
    module was not built (no torch at build time), cannot be loaded, or was built against another
    torch than the imported one (its C++ ABI is that torch's). Torch tensors are then read through
    their Python attributes and outputs allocated through torch.empty_like: the same values, about
    0.25 us a tensor and 1.5 us an output slower."""
    import torch  # imported already: the call holds a torch.Tensor
    try:
        native = importlib.import_module(__package__ + "._torch_native")
    except ImportError as e:
        _log.debug("triton_jit: torch tensors are read and allocated through torch's Python API: "
                   "triton_jit._torch_native is not available (%s)", e)
        return None
    if native.TORCH_VERSION != torch.__version__:
        _log.debug("triton_jit: torch tensors are read and allocated through torch's Python API: "
                   "triton_jit._torch_native was built against torch %s, the imported torch is %s (rebuild the "
                   "package to call libtorch from C++)", native.TORCH_VERSION, torch.__version__)
        return None
    return native.api

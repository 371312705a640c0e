"""Triton's own view of a call, for the parity tests: Triton's binder run on stand-ins for tensors.

Loaded by tests/cpu/spec_key_parity_test.cpp through the embedded interpreter; not part of the
library (the shipped bridge holds only what the runtime needs).
"""


class _Pointer:
    """Stands for a tensor in Triton's specializer: it reads only data_ptr() and dtype."""

    def __init__(self, address, dtype):
        self._address = address
        self.dtype = dtype

    def data_ptr(self):
        return self._address


def make_pointer(address, dtype_name):
    import triton.language as tl
    from triton.runtime.jit import type_canonicalisation_dict
    canonical = type_canonicalisation_dict[dtype_name]
    for obj in vars(tl).values():
        if isinstance(obj, tl.dtype) and type_canonicalisation_dict.get(str(obj).split(".")[-1]) == canonical:
            return _Pointer(address, obj)
    raise KeyError(dtype_name)


def triton_specialization(fn, calls, target=("cuda", 90, 32)):
    """repr of Triton's specialization list for each call in `calls` (a list of (args, kwargs)),
    computed by the binder Triton's JIT itself builds for `fn`; "error: TypeError" for a call the
    binder rejects (a dtype given to a runtime parameter, say)."""
    from triton.runtime.jit import create_function_from_signature
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    backend = make_backend(GPUTarget(*target))
    binder = create_function_from_signature(fn.signature, fn.params, backend)

    def one(args, kwargs):
        try:
            return repr(binder(*args, **kwargs)[1])
        except TypeError:
            return "error: TypeError"
    return [one(args, kwargs) for args, kwargs in calls]


def has_torch():
    """Whether torch imports: torch dtypes (torch.float16) are then part of the random calls."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def make_dtype(name, torch_spelling):
    """The dtype object a call passes: triton.language.<name>, or torch.<name> (what x.dtype is)."""
    if torch_spelling:
        import torch
        value = getattr(torch, name)
        assert isinstance(value, torch.dtype), name
    else:
        import triton.language as tl
        value = getattr(tl, name)
        assert isinstance(value, tl.dtype), name
    return value


def triton_compile(fn, args, kwargs=None, target=("cuda", 90, 32)):
    """(hash, cubin) of what JITFunction.run compiles for this call on a miss, without the driver
    it needs for the device: the binder's specialization, _pack_args, ASTSource, triton.compile."""
    from triton import knobs
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, compile, make_backend
    from triton.runtime.jit import create_function_from_signature
    gpu_target = GPUTarget(*target)
    backend = make_backend(gpu_target)
    kwargs = dict(kwargs or {})
    kwargs["debug"] = kwargs.get("debug", fn.debug) or knobs.runtime.debug
    kwargs["instrumentation_mode"] = knobs.compilation.instrumentation_mode
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    bound_args, specialization, options = binder(*args, **kwargs)
    options, signature, constexprs, attrs = fn._pack_args(backend, kwargs, bound_args, specialization, options)
    kernel = compile(ASTSource(fn, signature, constexprs, attrs), target=gpu_target, options=options.__dict__)
    return kernel.metadata.hash, kernel.asm["cubin"]


def make_descriptor(address, dtype_name, shape, strides, block_shape, padding="zero"):
    """Triton's TensorDescriptor over a pointer stand-in. Built without __post_init__, whose checks
    read torch-only attributes (itemsize); Triton's specializer reads base.dtype and block_shape."""
    from triton.tools.tensor_descriptor import TensorDescriptor
    d = object.__new__(TensorDescriptor)
    d.base = make_pointer(address, dtype_name)
    d.shape, d.strides, d.block_shape, d.padding = list(shape), list(strides), list(block_shape), padding
    return d

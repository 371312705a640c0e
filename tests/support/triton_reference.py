"""Triton's own view of a call, for the parity tests: Triton's binder run on stand-ins for tensors.

Loaded by tests/cpu/spec_key_parity_test.cpp through the embedded interpreter, and by
tests/cli/cli_cases.py; not part of the library (the shipped bridge holds only what the runtime
needs). It asks whatever Triton the python imports, so each version is compared with itself.
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


# How JITFunction.create_binder builds the binder its run() calls, in every Triton from 3.4 to 3.9
# (3.4 and 3.5 specialize in Python, 3.6 and newer in C++ through native_specialize_impl, behind
# the same call). create_binder itself needs a GPU driver for the current target, so the same call
# is made here with the backend of an explicit target.
_BINDER_CALL = "create_function_from_signature(self.signature, self.params, backend)"


def binder(fn, target=("cuda", 90, 32)):
    """The binder Triton's JIT builds for `fn`: binder(*args, **kwargs) returns (bound arguments,
    specialization list, options)."""
    import inspect

    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    from triton.runtime.jit import JITFunction, create_function_from_signature
    if _BINDER_CALL not in inspect.getsource(JITFunction.create_binder):
        raise RuntimeError("this Triton's JITFunction.create_binder no longer calls " + _BINDER_CALL +
                           ": update tests/support/triton_reference.py to build the binder as it does")
    return create_function_from_signature(fn.signature, fn.params, make_backend(GPUTarget(*target)))


def triton_specialization(fn, calls, target=("cuda", 90, 32)):
    """repr of Triton's specialization list for each call in `calls` (a list of (args, kwargs)),
    computed by the binder Triton's JIT itself builds for `fn`."""
    bind = binder(fn, target)
    return [repr(bind(*args, **kwargs)[1]) for args, kwargs in calls]

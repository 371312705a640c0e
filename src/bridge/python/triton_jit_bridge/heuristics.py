"""Heuristics (@triton.heuristics values) called in Python, and the stand-ins for the arguments
they read."""

import traceback

from .loading import _default_description


# A @triton.heuristics value (`lambda args: ...`, or a def returning one expression) in a common
# subset is translated once into a small stack program that C++ evaluates per call without Python
# (src/decorators/heuristic_program.h documents the text format and the semantics). Anything else
# runs through call_heuristic, which records the arguments it reads.

# The runtime's dtype names (dtype_name in src/key/dtype.cpp) by triton.language and torch name.
_TL_DTYPE_NAMES = {
    "int1": "u1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16",
    "uint32": "u32", "uint64": "u64", "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64",
    "float8e4nv": "fp8e4nv", "float8e5": "fp8e5", "float8e4b15": "fp8e4b15", "float8e4b8": "fp8e4b8",
    "float8e5b16": "fp8e5b16",
}
_TORCH_DTYPE_NAMES = {
    "bool": "u1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16",
    "uint32": "u32", "uint64": "u64", "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5", "float8_e4m3fnuz": "fp8e4b8", "float8_e5m2fnuz": "fp8e5b16",
}
_DTYPE_SIZES = {"u1": 1, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "fp16": 2, "bf16": 2, "i32": 4, "u32": 4, "fp32": 4,
                "i64": 8, "u64": 8, "fp64": 8}


class HeuristicNotTranslatable(Exception):
    """Raised inside the translator with the reason a heuristic stays in Python."""


def _runtime_dtype(value):
    """(runtime dtype name, "tl" | "torch") of a dtype object, or None."""
    import triton.language as tl
    if isinstance(value, tl.dtype):
        r = repr(value)
        if r.startswith("triton.language."):
            name = _TL_DTYPE_NAMES.get(r[len("triton.language."):])
            if name is not None and getattr(tl, r[len("triton.language."):], None) is value:
                return name, "tl"
        return None
    cls = type(value)
    if cls.__module__ == "torch" and cls.__name__ == "dtype":
        r = repr(value)
        if r.startswith("torch."):
            name = _TORCH_DTYPE_NAMES.get(r[len("torch."):])
            if name is not None:
                return name, "torch"
    return None


def _torch_module():
    try:
        import torch
        return torch
    except ImportError:
        return None


class TensorArg:
    """Stands for a pointer argument (a tensor in Python) when a heuristic runs in Python: `dtype`
    (torch's dtype when torch imports, else Triton's), `data_ptr()`, `element_size()`. Its truth
    value and comparisons raise: a real tensor's depend on its contents, which the runtime never sees."""

    __slots__ = ("_address", "_dtype_name")

    def __init__(self, address, dtype_name):
        self._address = int(address)
        self._dtype_name = str(dtype_name)

    @property
    def dtype(self):
        torch = _torch_module()
        if torch is not None:
            for tname, name in _TORCH_DTYPE_NAMES.items():
                if name == self._dtype_name:
                    return getattr(torch, tname)
            raise TypeError(f"torch has no dtype for the element type {self._dtype_name} of {self!r}")
        import triton.language as tl
        for tlname, name in _TL_DTYPE_NAMES.items():
            if name == self._dtype_name:
                return getattr(tl, tlname)
        raise TypeError(f"unknown element type {self._dtype_name}")

    def data_ptr(self):
        return self._address

    def element_size(self):
        return _DTYPE_SIZES.get(self._dtype_name, 1)

    def __bool__(self):
        raise TypeError(f"the truth value of {self!r} is unknown: the runtime sees a tensor's address and dtype only")

    def _no_compare(self, other):
        raise TypeError(f"cannot compare {self!r}: a tensor compares elementwise, and the runtime sees only its "
                        "address and dtype")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _no_compare
    __hash__ = object.__hash__

    def __repr__(self):
        return f"TensorArg(data_ptr=0x{self._address:x}, dtype={self._dtype_name})"


class OpaqueArg:
    """Stands for an argument a heuristic can pass along but not look into (a tensor descriptor)."""

    __slots__ = ("_what",)

    def __init__(self, what):
        self._what = str(what)

    def __repr__(self):
        return f"OpaqueArg({self._what})"


_LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas")  # heuristic_options.LAUNCH_OPTIONS


class _TrackingArgs(dict):
    """The `args` mapping a Python heuristic receives: records every name it reads."""

    def __init__(self, items):
        super().__init__(items)
        self.read = set()

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.read.add(key)
        if key in _LAUNCH_OPTIONS and not super().__contains__(key):
            self.__missing__(key)
        return super().get(key, default)

    def __missing__(self, key):
        if key in _LAUNCH_OPTIONS:
            # Triton's args hold it where an earlier heuristic, an autotune config or the caller
            # set it; the runtime passes parameters only, so it says so rather than guess.
            raise KeyError(f"{key!r}: the runtime passes a heuristic the function's parameters only, not the launch "
                           f"option {key} that Triton's args may hold (set by an earlier heuristic, an autotune config "
                           "or the caller); compute it from the parameters instead")
        raise KeyError(key)

    def __contains__(self, key):
        self.read.add(key)
        return super().__contains__(key)

    def _read_all(self):
        self.read.update(super().keys())

    def __iter__(self):
        self._read_all()
        return super().__iter__()

    def keys(self):
        self._read_all()
        return super().keys()

    def values(self):
        self._read_all()
        return super().values()

    def items(self):
        self._read_all()
        return super().items()

    def copy(self):
        self._read_all()
        return dict(super().items())

    def __repr__(self):
        self._read_all()
        return super().__repr__()


def call_heuristic(func, names, values):
    """Runs a heuristic over the arguments `names` = `values` (pointers as TensorArg); returns
    (result, sorted names it read). Exceptions propagate."""
    args = _TrackingArgs(zip(names, values))
    result = func(args)
    return result, sorted(str(k) for k in args.read)


def describe_heuristic_error(exc):
    """(type name, message, traceback) of an exception a heuristic raised."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return type(exc).__name__, str(exc), tb


def heuristic_result_description(value):
    """_default_description of a heuristic's result, with the Python type's name."""
    d = _default_description(value)
    d["type"] = type(value).__qualname__
    return d

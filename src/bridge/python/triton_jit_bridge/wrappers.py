"""Which kind of decorator layer a wrapper around a @triton.jit function is, and the one kind the
runtime does not emulate: a wrapper whose own `run` runs through Python on every call.

The runtime emulates Triton's `Autotuner` and `Heuristics` in C++. A subclass that changes how a
call runs (FlagGems' LibTuner, fla's CachedAutotuner, a user's own) must never be emulated as its
base: it would be tuned or evaluated with the base's semantics, with no word said. So recognition
is exact (`emulated_as`), and whatever is not recognised but wraps a function in `.fn` becomes a
"python" layer: the runtime calls the outermost wrapper's own `kernel[grid](...)` through Python
(`run_wrapper`), and the chain below ends in Triton's JITFunction.run, so Triton launches.

`WRAPPER_KINDS` is the ordered table of recognisers: the first entry whose `recognise(obj)` is
true describes the layer. Kinds of specific libraries (LibEntry, LibTuner, ...) go before the
exact Autotuner and Heuristics entries; the Python-run kind stays last.
"""

import collections
import functools
import inspect


WrapperKind = collections.namedtuple("WrapperKind", "name recognise describe")
WrapperKind.__doc__ = """One kind of decorator layer: `recognise(obj)` says whether `obj` is one,
`describe(obj, fn)` gives its layer (a dict with "kind"). A layer of kind "python" stands for the
whole chain below it, which is then not described."""


# Names that do not change how a call runs: a subclass may define its own freely. Its __init__
# only fills the fields the describer reads from the object itself (configs, key, values, ...).
_NOT_BEHAVIOUR = frozenset({"__init__", "__init_subclass__", "__class_getitem__", "__module__", "__qualname__",
                            "__doc__", "__dict__", "__weakref__", "__annotations__", "__orig_bases__",
                            "__parameters__", "__slots__", "__firstlineno__", "__static_attributes__"})


def _behaviour_names(base):
    """The methods and properties of `base` and its bases up to KernelInterface (run, prune_configs,
    _bench, check_disk_cache, do_bench, warmup, __getitem__, ...): what the runtime emulates of a
    call, read from the installed Triton so that a method a later version adds counts too."""
    from triton.runtime.jit import KernelInterface
    names = set()
    for cls in base.__mro__:
        if cls is object or not issubclass(cls, KernelInterface):
            continue
        for name, value in vars(cls).items():
            if name in _NOT_BEHAVIOUR:
                continue
            if inspect.isfunction(value) or isinstance(value, (property, staticmethod, classmethod,
                                                               functools.cached_property)):
                names.add(name)
    return sorted(names)


def overridden(obj, base):
    """The names of `base`'s behaviour (_behaviour_names) that `obj` does not take from `base`: a
    subclass's own method or property, or an instance attribute of that name (a method assigned
    to the object). Empty: `obj` runs a call exactly as `base` does."""
    cls = type(obj)
    instance = getattr(obj, "__dict__", {})
    out = []
    for name in _behaviour_names(base):
        own = inspect.getattr_static(base, name, None)
        # A cached property (Autotuner.do_bench) keeps its value in the instance's __dict__ once read.
        assigned = name in instance and not isinstance(own, functools.cached_property)
        if assigned or inspect.getattr_static(cls, name, None) is not own:
            out.append(name)
    return out


def emulated_as(obj, base):
    """Whether the runtime may run `obj` as Triton's `base` (Autotuner or Heuristics): an instance of
    `base` or of a subclass that overrides none of its behaviour."""
    return isinstance(obj, base) and not overridden(obj, base)


def class_name(obj):
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def _names_set_below(obj):
    """The parameters the wrappers from `obj` down set, as far as they say: a Heuristics-like
    wrapper's `values`, an Autotuner-like wrapper's configs' kwargs. A caller does not pass them."""
    from triton.runtime.jit import JITFunction
    names = []
    seen = 0
    while not isinstance(obj, JITFunction) and hasattr(obj, "fn") and seen < 16:
        values = getattr(obj, "values", None)
        if isinstance(values, dict):
            names += [n for n in values if isinstance(n, str)]
        for config in getattr(obj, "configs", None) or []:
            names += [n for n in (getattr(config, "kwargs", None) or {}) if isinstance(n, str)]
        obj = obj.fn
        seen += 1
    return list(dict.fromkeys(names))


def _why_not_emulated(obj):
    from triton.runtime.autotuner import Autotuner, Heuristics
    for base in (Autotuner, Heuristics):
        if isinstance(obj, base):
            names = ", ".join(overridden(obj, base))
            if type(obj) is base:
                return f"triton's {base.__name__} with its own {names} assigned on the object"
            return f"a subclass of triton's {base.__name__} that overrides {names}"
    return "a wrapper the runtime does not know"


def describe_python_wrapper(obj, fn):
    """A layer the runtime does not emulate: every call runs this wrapper's own run through Python."""
    params = [p.name for p in fn.params]
    return {
        "kind": "python",
        "class": class_name(obj),
        "reason": _why_not_emulated(obj),
        "sets": [params.index(n) for n in _names_set_below(obj) if n in params],
    }


def _is_autotuner(obj):
    from triton.runtime.autotuner import Autotuner
    return emulated_as(obj, Autotuner)


def _is_heuristics(obj):
    from triton.runtime.autotuner import Heuristics
    return emulated_as(obj, Heuristics)


def _describe_autotune(obj, fn):
    from .loading import _describe_autotune
    return _describe_autotune(obj, fn)


def _describe_heuristics(obj, fn):
    from .loading import _describe_heuristics
    return _describe_heuristics(obj, fn)


def _wraps_a_function(obj):
    return hasattr(obj, "fn") and callable(getattr(obj, "run", None))


def _fla_kind():
    from .fla_cache import describe_fla_cached_autotuner, is_fla_cached_autotuner
    return WrapperKind("fla_cached_autotuner", is_fla_cached_autotuner, describe_fla_cached_autotuner)


def _libentry_kind():
    from .libentry import describe_libentry, is_libentry
    return WrapperKind("libentry", is_libentry, describe_libentry)


def _libtuner_kind():
    from .libtuner import describe_libtuner, is_libtuner
    return WrapperKind("libtuner", is_libtuner, lambda obj, fn: describe_libtuner(obj, fn, _describe_autotune))


WRAPPER_KINDS = [
    # Specific libraries' wrappers first, each recognised by its class:
    _libentry_kind(),
    _libtuner_kind(),
    _fla_kind(),
    # Triton's own, exactly:
    WrapperKind("heuristics", _is_heuristics, _describe_heuristics),
    WrapperKind("autotune", _is_autotuner, _describe_autotune),
    # Anything else that wraps a function: its own run through Python. Stays last.
    WrapperKind("python", _wraps_a_function, describe_python_wrapper),
]


def wrapper_kind(obj):
    """The first kind in WRAPPER_KINDS that recognises `obj`, or None."""
    for kind in WRAPPER_KINDS:
        if kind.recognise(obj):
            return kind
    return None


def wrapper_files(obj):
    """The source files of the wrappers' classes from `obj` down (with their bases), Triton's own
    aside: what a layer's kind was decided from. The index keeps a function's signature only while
    these are unchanged, so a library whose class comes to override run (or stops) is described
    again, never read back as the kind it was."""
    import os
    import sys
    from triton.runtime.jit import JITFunction
    files = []
    seen = 0
    while not isinstance(obj, JITFunction) and hasattr(obj, "fn") and seen < 16:
        for cls in type(obj).__mro__:
            module = sys.modules.get(cls.__module__)
            if module is None or cls.__module__ == "triton" or cls.__module__.startswith(("triton.", "builtins")):
                continue
            file = getattr(module, "__file__", None)
            if isinstance(file, str) and file.endswith(".py") and os.path.isfile(file):
                files.append(os.path.realpath(file))
        obj = obj.fn
        seen += 1
    return list(dict.fromkeys(files))


# ---- a call through the wrapper's own run ------------------------------------------------------


def run_wrapper(top, names, values, num_positional, grid, options, stream):
    """What Python's `top[grid](*args, **kwargs)` does, with torch's current stream set to `stream`
    (Triton's JITFunction.run launches on it): the first `num_positional` values positional, the
    rest by name, then `options` (launch and compile options the caller set) by name. `grid`: a
    tuple, or a callable that receives Triton's dict of the call's arguments."""
    from .autotune_hooks import _hook_stream
    args = list(values[:num_positional])
    kwargs = dict(zip(names[num_positional:], values[num_positional:]))
    kwargs.update(options)
    with _hook_stream(stream):
        top[grid](*args, **kwargs)


def wrapper_argument(address, dtype_name, nbytes, name):
    """A pointer argument as the wrapper's run receives it: a 1-D torch tensor over its bytes when
    its size is known and torch has CUDA; else the runtime's TensorArg (dtype, data_ptr(),
    element_size()), which Triton's JITFunction.run specializes and launches as it does a tensor."""
    from .autotune_hooks import hook_tensor, HookTensorArg
    from .heuristics import TensorArg
    value = hook_tensor(address, dtype_name, nbytes, name)
    return TensorArg(address, dtype_name) if isinstance(value, HookTensorArg) else value

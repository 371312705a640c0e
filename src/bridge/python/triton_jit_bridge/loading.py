"""Loading functions and their static signature: kernel modules imported by file or by module
name, the preloads, the description of a function's decorators, and the modules a Python host
handed over (adopt_module)."""

import hashlib
import importlib.util
import inspect
import os
import re
import sys
import threading
import traceback


_modules = {}  # canonical path -> imported module


class KernelLookupFailure(Exception):
    """Raised with `kind` in {"missing_file", "not_python", "import_failed", "preload_failed",
    "missing_function", "not_jit", "not_supported", "bad_decorator"}."""

    def __init__(self, kind, message, tb="", module=""):
        super().__init__(message)
        self.kind = kind
        self.tb = tb
        self.module = module  # the module that failed to preload


def _module_name(path):
    digest = hashlib.sha1(os.fsencode(path)).hexdigest()[:16]
    stem = os.path.splitext(os.path.basename(path))[0]
    return f"triton_jit_kernels_{stem}_{digest}"


MODULE_PREFIX = "module:"  # a source named by module ("module:pkg.sub.kernels"), not by file


def _import_source(source):
    """The module a function is loaded from: `source` is a file path, or MODULE_PREFIX and a
    module name."""
    if source.startswith(MODULE_PREFIX):
        return _import_module(source[len(MODULE_PREFIX):])
    return _import_file(source)


class _ExitDuringImport(BaseException):
    """Raised in place of os._exit by code being imported as a kernel's module."""

    def __init__(self, status):
        super().__init__(f"it called os._exit({status}), which would have ended this whole process without a "
                         f"word; the import was stopped there instead")


_importing_threads = {}  # thread id -> depth of kernel-module imports in progress on it
_exit_before_guard = None  # os._exit as it was when _guarded_exit took its place


def _guarded_exit(status):
    if threading.get_ident() in _importing_threads:
        raise _ExitDuringImport(status)
    _exit_before_guard(status)


class _GuardExit:
    """While a kernel's module is imported on this thread, os._exit raises _ExitDuringImport
    instead of ending the process: the embedded interpreter lives in the host program's process,
    which would end without a word. Other threads keep the real function. Code that took a
    reference to it before (posix._exit, an earlier `from os import _exit`) is beyond reach."""

    def __enter__(self):
        global _exit_before_guard
        thread = threading.get_ident()
        _importing_threads[thread] = _importing_threads.get(thread, 0) + 1
        if os._exit is not _guarded_exit:
            _exit_before_guard = os._exit
            os._exit = _guarded_exit
        return self

    def __exit__(self, *exc):
        thread = threading.get_ident()
        _importing_threads[thread] -= 1
        if not _importing_threads[thread]:
            del _importing_threads[thread]
        if not _importing_threads and os._exit is _guarded_exit:
            os._exit = _exit_before_guard
        return False


def _import_error_text(e):
    return str(e) if isinstance(e, _ExitDuringImport) else f"{type(e).__name__}: {e}"


def _import_module(name):
    """Imports `name` the normal way, so that its packages' __init__ run first and its relative
    imports work."""
    preload()
    try:
        with _GuardExit():
            return importlib.import_module(name)
    except BaseException as e:  # noqa: BLE001 - any failure of user code is reported whole
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        raise KernelLookupFailure("import_failed", f"importing the module {name} failed: {_import_error_text(e)}",
                                  tb) from None


def module_file(name):
    """The canonical path of the file the module `name` is imported from."""
    module = _import_module(name)
    file = getattr(module, "__file__", None)
    if not file:
        raise KernelLookupFailure("missing_file", f"the module {name} has no source file (a namespace package "
                                  f"or a built-in module cannot hold @triton.jit functions)")
    return os.path.realpath(file)


def _package_module_name(path):
    """The dotted name under which Python imports the file `path`, when it lies inside a package
    whose root folder is on sys.path (each folder from the file's up to the root holds an
    __init__.py); None for a file outside any package."""
    folder, stem = os.path.split(os.path.realpath(path))
    parts = [os.path.splitext(stem)[0]]
    if parts[0] == "__init__":
        parts = []
    roots = {os.path.realpath(p or os.getcwd()) for p in sys.path if isinstance(p, str)}
    found = None
    # The outermost package wins: a folder inside the package may be on sys.path too (a file
    # imported by path adds its own), which would make a sub-package look like a top-level one.
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, package = os.path.split(folder)
        parts.insert(0, package)
        if folder in roots and all(p.isidentifier() for p in parts):
            found = ".".join(parts)
    return found


def _import_file(path):
    module = _modules.get(path)
    if module is not None:
        return module
    if not os.path.isfile(path):
        raise KernelLookupFailure("missing_file", f"no such file: {path}")
    preload()
    package_name = _package_module_name(path)
    if package_name is not None:
        # Inside a package: imported as that package's module (its __init__ run, its relative
        # imports working), the same module object a module-named function gets. A file that
        # another package of that name shadows is imported on its own, as below.
        module = _import_module(package_name)
        if os.path.realpath(getattr(module, "__file__", "") or "") == os.path.realpath(path):
            _modules[path] = module
            return module
    # Kernels may import helpers that sit beside them; add their folder once, never per call.
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.append(folder)
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        # importlib makes specs for the suffixes of Python source and extension modules only.
        raise KernelLookupFailure("not_python", f"{path} is not a Python file (.py): kernels are read from Python "
                                                f"source files, FILE.py:FUNCTION")
    module = importlib.util.module_from_spec(spec)
    # Triton reads globals and source through the module, so it must be registered.
    sys.modules[name] = module
    try:
        with _GuardExit():
            spec.loader.exec_module(module)
    except BaseException as e:  # noqa: BLE001 - any failure of user code is reported whole
        del sys.modules[name]
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        raise KernelLookupFailure("import_failed", f"importing {path} failed: {_import_error_text(e)}",
                                  tb) from None
    _modules[path] = module
    return module


_preload_pending = []  # modules to import before the next kernel import, in order
_preloaded = []  # imported already, in order


def set_preload(modules):
    """Modules (TRITON_JIT_PRELOAD, triton_jit::preload_modules) to import, in order, before any
    kernel is imported. Imported ones stay imported; a new list adds the others."""
    _preload_pending[:] = [m for m in modules if m not in _preloaded]


def preload():
    """Imports the pending preload modules in order. A failure names the module and stays pending,
    so every later import reports it again instead of running kernels without it."""
    while _preload_pending:
        name = _preload_pending[0]
        try:
            importlib.import_module(name)
        except BaseException as e:  # noqa: BLE001 - any failure of user code is reported whole
            tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
            raise KernelLookupFailure("preload_failed", f"preloading the module {name} failed: "
                                      f"{type(e).__name__}: {e}", tb, module=name) from None
        _preloaded.append(name)
        _preload_pending.pop(0)


def _unwrap(obj):
    """Autotuner and Heuristics wrap the JITFunction in `.fn`, possibly several times."""
    from triton.runtime.jit import JITFunction
    seen = 0
    while not isinstance(obj, JITFunction) and hasattr(obj, "fn") and seen < 16:
        obj = obj.fn
        seen += 1
    return obj if isinstance(obj, JITFunction) else None


def _is_dtype(value):
    """A Triton dtype (tl.float16) or a torch dtype (torch.float16), without importing torch."""
    import triton.language as tl
    cls = type(value)
    return isinstance(value, tl.dtype) or (cls.__module__ == "torch" and cls.__name__ == "dtype")


def _default_description(value):
    """A default value in a form C++ can rebuild: kind, value, repr."""
    r = repr(value)
    if value is None:
        return {"kind": "none", "repr": r, "representable": True}
    if isinstance(value, bool):
        return {"kind": "bool", "value": value, "repr": r, "representable": True}
    if isinstance(value, int):
        if -(2**63) <= value < 2**64:
            return {"kind": "int", "value": value, "repr": r, "representable": True}
        return {"kind": "none", "repr": r, "representable": False}
    if isinstance(value, float):
        return {"kind": "float", "value": value, "repr": r, "representable": True}
    if isinstance(value, str):
        return {"kind": "string", "value": value, "repr": r, "representable": True}
    if _is_dtype(value):
        # C++ reads the dtype from the repr (triton.language.float16, torch.float16) and marks
        # dtypes it has no DType for (pointer or block types, complex) as not representable.
        return {"kind": "dtype", "repr": r, "representable": True}
    # tl.constexpr-wrapped defaults hold the value in `.value`.
    inner = getattr(value, "value", None)
    if value.__class__.__name__ == "constexpr" and inner is not value:
        d = _default_description(inner)
        d["repr"] = repr(inner)
        return d
    return {"kind": "none", "repr": r, "representable": False}


def _def_line(fn):
    """Line of the `def` in the file. Triton's starting_line_number is the first line of the source
    inspect returns, i.e. of the first decorator, while Triton's source (and error positions) start
    at the `def`."""
    start = int(getattr(fn, "starting_line_number", 0) or 0)
    try:
        lines, first = inspect.getsourcelines(fn.fn)
    except (OSError, TypeError):
        return start
    for i, text in enumerate(lines):
        if re.match(r"\s*(async\s+)?def\s", text):
            return first + i
    return start


def _param_index(fn, name, what):
    names = [p.name for p in fn.params]
    if name not in names:
        raise KernelLookupFailure(
            "bad_decorator", f"{fn.fn.__qualname__}: {what} names '{name}', which is not a parameter "
            f"(parameters: {', '.join(names)})")
    return names.index(name)


def _source_text(func):
    try:
        return inspect.getsource(func).strip()
    except (OSError, TypeError):
        return repr(func)


def _describe_heuristics(obj, fn):
    from .heuristic_options import heuristic_target  # here: these modules import this one
    from .heuristic_translation import translate_heuristic
    values = []
    for name, func in obj.values.items():
        program, reason = translate_heuristic(func, [p.name for p in fn.params])
        values.append({
            "name": name,
            "param": heuristic_target(obj, fn, name),
            "program": program or "",
            "reason": reason or "",
            "source": _source_text(func),
        })
    return {"kind": "heuristics", "values": values}


_LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas")


def _describe_config(config, fn):
    all_kwargs = config.all_kwargs()
    kwargs = []
    for name, value in config.kwargs.items():
        kwargs.append((_param_index(fn, name, f"triton.Config({config})"), _default_description(value)))
    options = {}
    for name, value in all_kwargs.items():
        if name in config.kwargs or name in _LAUNCH_OPTIONS or value is None:
            continue
        if not isinstance(value, (bool, int, float, str)):
            raise KernelLookupFailure(
                "bad_decorator", f"{fn.fn.__qualname__}: triton.Config({config}) sets {name}={value!r}, which the "
                "runtime cannot pass as a compile option")
        options[name] = value
    described = {"kwargs": kwargs, "options": options, "pre_hook": config.pre_hook is not None, "repr": str(config)}
    for name in _LAUNCH_OPTIONS:
        value = getattr(config, name, None)
        if value is not None:
            described[name] = int(value)
    return described


def _describe_autotune(obj, fn):
    top_k = getattr(obj, "configs_top_k", 1.0)
    return {
        "kind": "autotune",
        "key": [_param_index(fn, k, "autotune's key") for k in obj.keys],
        "configs": [_describe_config(c, fn) for c in obj.configs],
        "reset_to_zero": [_param_index(fn, k, "autotune's reset_to_zero") for k in obj.reset_to_zero],
        "restore_value": [_param_index(fn, k, "autotune's restore_value") for k in obj.restore_value],
        "pre_hook": bool(getattr(obj, "user_defined_pre_hook", False)),
        "post_hook": bool(getattr(obj, "user_defined_post_hook", False)),
        "perf_model": getattr(obj, "perf_model", None) is not None,
        "early_config_prune": getattr(obj, "early_config_prune", None) is not None,
        "top_k": float(top_k) if getattr(obj, "perf_model", None) is not None else 0.0,
        "warmup": float(getattr(obj, "num_warmups", None) or 25),
        "rep": float(getattr(obj, "num_reps", None) or 100),
        "cache_results": bool(getattr(obj, "cache_results", False)),
    }


def _describe_decorators(obj, fn):
    """The wrappers around `fn`, outermost first, each as the first kind of wrappers.WRAPPER_KINDS
    that recognises it (Triton's own Autotuner and Heuristics exactly; anything else with a `.fn`
    runs its own run through Python)."""
    from triton.runtime.jit import JITFunction
    from .wrappers import wrapper_kind
    layers = []
    while not isinstance(obj, JITFunction):
        kind = wrapper_kind(obj)
        if kind is None:
            raise KernelLookupFailure(
                "not_jit", f"{fn.fn.__qualname__} is wrapped in a {type(obj).__name__}, which the runtime does not "
                "know; name the undecorated function instead ('<name>.fn')")
        if kind.name == "libentry" and layers:
            # Under another wrapper its table would be consulted once per outer call, which the
            # runtime does not emulate.
            raise KernelLookupFailure(
                "bad_decorator", f"{fn.fn.__qualname__}: FlagGems' LibEntry is wrapper number {len(layers) + 1}, "
                "not the outermost one; the runtime emulates it only as FlagGems applies it (@libentry() first)")
        layers.append(kind.describe(obj, fn))
        if layers[-1]["kind"] == "python":
            break  # the wrapper's own run stands for the chain below it
        obj = obj.fn
    return layers


def decorator_callable(top, layer, name):
    """The heuristic function `name` of wrapper number `layer` (outermost is 0) around a kernel."""
    obj = top
    for _ in range(layer):
        obj = obj.fn
    if name.startswith("strategy:"):  # a LibTuner strategy written in Python (triton_jit_bridge/libtuner.py)
        from .libtuner import strategy_callable
        return strategy_callable(obj, int(name[len("strategy:"):]))
    return obj.values[name]


def load_function(path, name):
    """Returns (JITFunction, static signature dict, outermost wrapper) for `name` (a dotted attribute path allowed) in
    `path`, a file or MODULE_PREFIX and a module name."""
    module = _import_source(path)
    # "kernel.fn": an attribute path after the name, e.g. the @triton.jit function under
    # @triton.autotune or @triton.heuristics wrappers, for callers that apply the decorators.
    obj = module
    for attribute in name.split("."):
        obj = getattr(obj, attribute, None)
    if obj is None:
        available = sorted(k for k, v in vars(module).items() if _unwrap(v) is not None)
        raise KernelLookupFailure(
            "missing_function",
            f"{path} has no function '{name}'; @triton.jit functions there: {', '.join(available) or 'none'}")
    fn = _unwrap(obj)
    if fn is None:
        raise KernelLookupFailure(
            "not_jit", f"'{name}' in {path} is a {type(obj).__name__}, not a @triton.jit function")
    _refuse_gluon_here(fn, name, path)
    params = []
    for p in fn.params:
        params.append({
            "name": p.name,
            "index": p.num,
            "is_constexpr": bool(p.is_constexpr),
            "is_const": bool(p.is_const),
            "do_not_specialize": bool(p.do_not_specialize),
            "do_not_specialize_on_alignment": bool(p.do_not_specialize_on_alignment),
            "annotation": p.annotation or "",
            "annotation_type": p.annotation_type or "",
            "default": _default_description(p.default) if p.has_default else None,
        })
    signature = {
        "function": fn.fn.__qualname__,
        "file": path,
        "first_line": _def_line(fn),
        "params": params,
        "decorators": _describe_decorators(obj, fn),
    }
    from .wrappers import wrapper_files
    signature["wrapper_files"] = wrapper_files(obj)
    return fn, signature, obj


def _refuse_gluon_here(fn, name, path):
    """A @gluon.jit function is refused at load time where this Triton cannot compile it for the
    runtime (versions.gluon_refusal), rather than at its first compile."""
    from .versions import gluon_refusal, is_gluon
    if is_gluon(fn):
        refusal = gluon_refusal()
        if refusal is not None:
            raise KernelLookupFailure("not_supported", f"'{name}' in {path} is a @gluon.jit function; {refusal}")


def adopt_module(path, module):
    """The triton_jit Python package hands over a module its host process imported already (the
    file of a kernel given to triton_jit.jit), so that `path` is not imported a second time: the
    runtime then compiles the very function objects the host holds."""
    _modules.setdefault(os.path.realpath(path), module)
    _adopted.add(os.path.realpath(path))


_adopted = set()  # files whose module the host handed over: never imported by a compile worker


def workers_may_load(source):
    """Whether a compile worker may import `source` (a file, or MODULE_PREFIX and a module) itself:
    not a file whose module the host handed over (adopt_module), which must not run twice (a
    script, say) and whose functions are the host's own objects."""
    return source.startswith(MODULE_PREFIX) or os.path.realpath(source) not in _adopted

"""Bridge between libtriton_jit and the installed Triton.

The C++ runtime embeds this module's source and calls only the functions below. Everything that
differs between Triton versions (3.4 and newer) is handled here, so the C++ side never branches
on a version.
"""

import ast
import functools
import hashlib
import importlib.util
import inspect
import json
import os
import re
import stat
import sys
import threading
import traceback

import triton

_modules = {}  # canonical path -> imported module


class KernelLookupFailure(Exception):
    """Raised with `kind` in {"missing_file", "not_python", "import_failed", "preload_failed",
    "missing_function", "not_jit"}."""

    def __init__(self, kind, message, tb="", module=""):
        super().__init__(message)
        self.kind = kind
        self.tb = tb
        self.module = module  # the module that failed to preload


def triton_version():
    return triton.__version__


# ----------------------------------------------------------------------------------------------
# Loading functions and their static signature
# ----------------------------------------------------------------------------------------------


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
    values = []
    for name, func in obj.values.items():
        translate = globals().get("translate_heuristic")
        program, reason = (None, "this bridge has no translator") if translate is None else translate(
            func, [p.name for p in fn.params])
        values.append({
            "name": name,
            "param": _param_index(fn, name, "@triton.heuristics"),
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
    """The wrappers around `fn`, outermost first: Autotuner and Heuristics as Triton defines them."""
    from triton.runtime.autotuner import Autotuner, Heuristics
    from triton.runtime.jit import JITFunction
    layers = []
    while not isinstance(obj, JITFunction):
        if isinstance(obj, Heuristics):
            layers.append(_describe_heuristics(obj, fn))
        elif isinstance(obj, Autotuner):
            layers.append(_describe_autotune(obj, fn))
        else:
            raise KernelLookupFailure(
                "not_jit", f"{fn.fn.__qualname__} is wrapped in a {type(obj).__name__}, which the runtime does not "
                "know; name the undecorated function instead ('<name>.fn')")
        obj = obj.fn
    return layers


def decorator_callable(top, layer, name):
    """The heuristic function `name` of wrapper number `layer` (outermost is 0) around a kernel."""
    obj = top
    for _ in range(layer):
        obj = obj.fn
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
    return fn, signature, obj


# ----------------------------------------------------------------------------------------------
# Compilation
# ----------------------------------------------------------------------------------------------


def _arch_name(backend, arch):
    """GPUTarget's arch for the runtime's integer one: the compute capability for cuda, the gfx
    name for hip, whose hexadecimal digits the runtime keeps as a number (gfx942 is 0x942)."""
    return f"gfx{arch:x}" if backend == "hip" else arch


def _arch_number(backend, arch):
    return int(arch[3:], 16) if backend == "hip" else int(arch)


def _gpu_target(target):
    from triton.backends.compiler import GPUTarget
    backend, arch, warp_size = target
    return GPUTarget(backend, _arch_name(backend, arch), warp_size)


def _target_text(target):
    backend, arch, warp_size = target
    return f"{backend}:{_arch_name(backend, arch)}"


# The target backends the runtime compiles for, each with an architecture to ask Triton about.
_KNOWN_BACKENDS = (("cuda", 90, 32), ("hip", 0x942, 64))


def _installed_backends():
    """The runtime's target backends the installed Triton has a compiler for, e.g. ["cuda", "hip"]."""
    from triton.backends import backends
    found = []
    for target in _KNOWN_BACKENDS:
        gpu_target = _gpu_target(target)
        if any(b.compiler.supports_target(gpu_target) for b in backends.values()):
            found.append(target[0])
    return found


@functools.lru_cache(maxsize=None)
def _ptxas_archs(path):
    """The sm_ architectures a ptxas builds ("sm_90a", ...), from its --help; None when it cannot say."""
    import subprocess
    try:
        text = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    archs = set(re.findall(r"'(sm_\d+[a-z]?)'", text))
    return frozenset(archs) or None


def _cuda_target_problem(arch):
    """Why the installed Triton cannot build cuda:`arch` (ptxas does not know the architecture),
    or None. Asked before compiling: the failure would otherwise come from ptxas after the whole
    pipeline ran, with the PTX printed on stdout."""
    from triton.backends.nvidia import compiler as nv
    try:
        tool = nv.get_ptxas(arch)  # 3.5 and newer: Blackwell's own ptxas from sm_100 on
    except TypeError:
        tool = nv.get_ptxas()
    try:
        path = tool.path
    except Exception:  # no ptxas at all: the compile reports it
        return None
    archs = _ptxas_archs(path)
    if not archs:
        return None
    name = nv.sm_arch_from_capability(arch)
    if name in archs:
        return None
    numbers = sorted({int(re.match(r"sm_(\d+)", a).group(1)) for a in archs})
    return (f"the target cuda:{arch} ({name}) is not one the installed Triton {triton.__version__} can build: its "
            f"ptxas ({path}) knows {', '.join(f'cuda:{n}' for n in numbers)}")


@functools.lru_cache(maxsize=None)
def _hip_archs():
    """The gfx processors the LLVM inside the installed Triton's AMD backend knows (its
    "-mcpu=help" list, which LLVM prints on stderr), or None when it cannot say."""
    import tempfile
    try:
        from triton._C.libtriton import amd, llvm
        llvm.init_targets()
    except Exception:  # no AMD backend: the backend check reports it
        return None
    sys.stderr.flush()
    with tempfile.TemporaryFile() as listing:
        saved = os.dup(2)
        try:
            os.dup2(listing.fileno(), 2)
            # The triple: a constant up to 3.8, asked per processor from 3.9 (any gfx9 one will do
            # for the list). translate_to_asm took 7 arguments up to 3.7; 3.8 added canonicalize_gep.
            triple = getattr(amd, "TARGET_TRIPLE", None) or "amdgcn-amd-amdhsa"
            for extra in ((), (False,)):
                try:
                    llvm.translate_to_asm("", triple, "help", "", [], False, False, *extra)
                    break
                except TypeError:
                    continue
                except Exception:  # LLVM's own complaint about the empty module: the list is printed
                    break
            else:  # another signature in another Triton: no list, no check
                return None
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        listing.seek(0)
        text = listing.read(1 << 20).decode(errors="replace")
    cpus = text.split("Available features", 1)[0]
    return frozenset(re.findall(r"^\s+(gfx[0-9a-f]+)\s+- ", cpus, re.MULTILINE)) or None


def _hip_target_problem(arch):
    """Why the installed Triton cannot build hip:gfx`arch` (its LLVM does not know the processor),
    or None. Asked before compiling: LLVM would otherwise only warn, and the compile fail deep in
    its pipeline ("PassManager::run failed")."""
    archs = _hip_archs()
    name = f"gfx{arch:x}"
    if not archs or name in archs:
        return None
    def order(a):
        return (len(a), a)
    return (f"the target hip:{name} is not a processor the installed Triton {triton.__version__} can build: its "
            f"AMD backend's LLVM knows {', '.join(f'hip:{a}' for a in sorted(archs, key=order))}")


# The least value of integer compile options whose range Triton does not check itself (a
# negative maxnreg reaches ptxas as --maxrregcount=-5).
_OPTION_MINIMUM = {"maxnreg": (1, "a positive integer (registers per thread)")}


def _type_of(annotation):
    """(base type, whether None is allowed) of a dataclass field annotation: Optional[int] is (int, True)."""
    import typing
    origin = typing.get_origin(annotation)
    if origin is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return (args[0] if len(args) == 1 else None), True
    return (origin or annotation), False


def _option_problem(name, value, annotation):
    """Why `value` cannot be the compile option `name` of type `annotation`, or None."""
    base, _ = _type_of(annotation)
    if base is bool:
        ok, wanted = isinstance(value, (bool, int)), "a bool (true or false)"
    elif base is int:
        ok, wanted = isinstance(value, int) and not isinstance(value, bool), "an integer"
    elif base is float:
        ok, wanted = isinstance(value, (int, float)) and not isinstance(value, bool), "a number"
    elif base is str:
        ok, wanted = isinstance(value, str), "a string"
    elif base in (tuple, list, dict, set):
        ok, wanted = False, f"a {base.__name__}, which a compile option of this runtime cannot hold"
    else:
        return None  # a type the runtime does not know: Triton judges
    if ok:
        return None
    shown = "true" if value is True else "false" if value is False else repr(value)
    return f"the compile option {name} takes {wanted}, got {type(value).__name__} {shown}"


_checked_requests = {}  # (options as (name, type, value) tuples, target) -> check_compile_request's answer


def check_compile_request(options, target):
    """Checks, before anything compiles, what Triton would only reject deep inside its pipeline:
    that the installed Triton can build `target` ((backend, arch, warp_size)) and that each of
    `options` (the caller's compile options, a dict) is an option of that backend with a value of
    its type (the fields of CUDAOptions or HIPOptions). Returns None, or (what, message) with
    `what` the option's name or "target". Answers are kept: a batch asks once per distinct request."""
    key = (tuple((k, type(v).__name__, v) for k, v in sorted(options.items())), tuple(target))
    if key not in _checked_requests:
        _checked_requests[key] = _check_compile_request(options, target)
    return _checked_requests[key]


def _check_compile_request(options, target):
    import dataclasses
    import typing
    backend_name = target[0]
    installed = _installed_backends()
    if backend_name not in installed:
        return ("target", f"the installed Triton {triton.__version__} ({os.path.dirname(triton.__file__)}) cannot "
                          f"compile for {_target_text(target)}: it has compilers for "
                          f"{' and '.join(installed) or 'no backend'} targets")
    if backend_name in ("cuda", "hip"):
        problem = (_cuda_target_problem if backend_name == "cuda" else _hip_target_problem)(target[1])
        if problem:
            return ("target", problem)
    gpu_target = _gpu_target(target)
    backend = _make_backend(gpu_target)
    fields = dataclasses.fields(type(backend.parse_options({})))
    try:
        hints = typing.get_type_hints(type(backend.parse_options({})))
    except Exception:  # an annotation that does not evaluate: take the raw ones
        hints = {f.name: f.type for f in fields}
    known = {f.name for f in fields}
    for name, value in options.items():
        if name not in known:
            return (name, f"unknown compile option '{name}' for {backend_name} targets; options of Triton "
                          f"{triton.__version__}: {', '.join(sorted(known))}")
        problem = _option_problem(name, value, hints.get(name))
        if problem:
            return (name, problem)
        minimum = _OPTION_MINIMUM.get(name)
        if minimum and isinstance(value, int) and not isinstance(value, bool) and value < minimum[0]:
            return (name, f"the compile option {name} takes {minimum[1]}, got {value}")
    return None


def _make_backend(gpu_target):
    from triton.compiler import make_backend
    return make_backend(gpu_target)


def _constexpr_value(text):
    """The object a constexpr's repr stands for: a Python literal, a Triton dtype
    (triton.language.float16) or a torch dtype (torch.float16; torch is imported only then)."""
    if text.startswith("triton.language."):
        import triton.language as tl
        value = getattr(tl, text[len("triton.language."):], None)
        if isinstance(value, tl.dtype) and repr(value) == text:
            return value
        raise ValueError(f"{text} is not a dtype of triton.language")
    if text.startswith("torch."):
        try:
            import torch
        except ImportError as e:
            raise ImportError(f"the constexpr {text} is a torch dtype, but {sys.executable} cannot import torch: "
                              f"{e}") from None
        value = getattr(torch, text[len("torch."):], None)
        if isinstance(value, torch.dtype) and repr(value) == text:
            return value
        raise ValueError(f"{text} is not a dtype of torch")
    return ast.literal_eval(text)


def specialization(items):
    """Triton's specialization list from (type, text) pairs, where text is the hint's literal
    (None, '', 'D', 1) or the constexpr's repr (1024, 'relu', triton.language.float16)."""
    return [(ty, _constexpr_value(text)) for ty, text in items]


def _call_options(fn, options):
    """The keyword arguments JITFunction.run passes on for a call with `options`: the function's
    debug flag or TRITON_DEBUG (every version), and the options run takes from Triton's knobs when
    this Triton has them: instrumentation_mode (3.6 and newer), fpsan_homomorphic_casts (3.9).
    Unlike run, an option the caller gives explicitly is kept."""
    from triton import knobs
    kwargs = dict(options)
    kwargs["debug"] = bool(kwargs.get("debug", getattr(fn, "debug", False)) or knobs.runtime.debug)
    for name in ("instrumentation_mode", "fpsan_homomorphic_casts"):
        if name not in kwargs and hasattr(knobs.compilation, name):
            kwargs[name] = getattr(knobs.compilation, name)
    return kwargs


def _pack(fn, backend, specialization, kwargs):
    """Triton's own packing of a specialization into (options, signature, constexprs, attrs)."""
    bound_args = {p.name: (hint if ty == "constexpr" else None)
                  for p, (ty, hint) in zip(fn.params, specialization)}
    known = backend.parse_options({}).__dict__
    for k in kwargs:
        if k not in known:
            raise KeyError(f"unknown compile option '{k}'; options of this Triton: {', '.join(sorted(known))}")
    if hasattr(fn, "_pack_args"):  # Triton 3.5 and newer
        return fn._pack_args(backend, kwargs, bound_args, list(specialization), kwargs)
    return _pack_args_inline(fn, backend, kwargs, bound_args, list(specialization))


def _pack_args_inline(fn, backend, kwargs, bound_args, specialization):
    """Triton 3.4 packs inside JITFunction.run (3.5 moved these lines, unchanged, into
    JITFunction._pack_args): the same steps, on the same helpers of triton._utils."""
    from triton._utils import find_paths_if, get_iterable_path
    options = backend.parse_options(kwargs)
    sigkeys = [p.name for p in fn.params]
    sigvals = [ty for ty, _ in specialization]
    signature = dict(zip(sigkeys, sigvals))
    constexprs = find_paths_if(sigvals, lambda _, val: val == "constexpr")
    constexprs = {path: get_iterable_path(list(bound_args.values()), path) for path in constexprs}
    attrvals = [hint for _, hint in specialization]
    attrs = find_paths_if(attrvals, lambda _, x: isinstance(x, str))
    attrs = {k: backend.parse_attr(get_iterable_path(attrvals, k)) for k in attrs}
    return options, signature, constexprs, attrs


# Launch metadata (kernel.metadata) by Triton version, and what the C++ launcher takes from it:
#   3.4      global_scratch_size/align: the launcher appends one scratch pointer; cluster_dims.
#   3.5      + profile_scratch_size/align (a second pointer), instrumentation_mode, tmem_size.
#   3.6-3.8  - cluster_dims: Triton's launcher uses a (num_ctas, 1, 1) cluster; + enable_reflect_ftz.
#            3.8's launcher adds GSan arguments when instrumentation_mode has "gsan".
#   3.9      + clc, sched4reg, fpsan_homomorphic_casts, min_shared_mem.
# Read here: name, shared, num_warps, num_ctas, cluster_dims, the scratch sizes and alignments,
# launch_pdl, launch_cooperative_grid, tensordesc_meta, hash, instrumentation_mode. Every other
# field is deliberately ignored and kept in metadata_json only: they steer code generation, and
# Triton's own launcher (backends/nvidia/driver.py, driver.c) reads none of them either. That
# includes 3.9's clc (cluster launch control, sm_100+: lowered into the kernel, which launches
# like any other), min_shared_mem (already part of `shared`) and tmem_size (Triton checks it
# against the device when loading a Blackwell kernel; this runtime leaves that to the driver).


def _scratch_params(metadata):
    """The trailing pointers the launcher appends, one per scratch kind this Triton knows, whether
    or not the kernel uses it: global (every version), profile (3.5 and newer)."""
    params = ["global_scratch"]
    if hasattr(metadata, "profile_scratch_size"):
        params.append("profile_scratch")
    return params


def _cluster_dims(metadata):
    """The cluster shape a launch uses. Triton 3.4 and 3.5 record cluster_dims and launch with it;
    3.6 and newer have no such field and launch a (num_ctas, 1, 1) cluster, as the C++ launcher
    does for every version. cluster_dims is a compile option this runtime cannot set (a tuple), so
    PlanCTA's (num_ctas, 1, 1) is what 3.4 and 3.5 record; anything else is refused."""
    num_ctas = int(getattr(metadata, "num_ctas", 1))
    dims = [int(c) for c in getattr(metadata, "cluster_dims", (num_ctas, 1, 1))]
    dims += [1] * (3 - len(dims))
    if num_ctas != 1 and dims != [num_ctas, 1, 1]:
        raise NotImplementedError(f"the kernel was compiled for a {dims} cluster with num_ctas={num_ctas}; "
                                  f"this runtime launches ({num_ctas}, 1, 1) clusters only")
    return dims


def _check_launch_interface(metadata):
    """Refuses kernels whose launch needs arguments the C++ launcher cannot pass: GSan
    instrumentation (Triton 3.8 and newer) appends a globals pointer, a launch table and an index."""
    modes = {m.strip() for m in str(getattr(metadata, "instrumentation_mode", "") or "").split(",")}
    if "gsan" in modes:
        raise NotImplementedError("instrumentation_mode 'gsan' adds kernel arguments only Triton's own launcher "
                                  "passes; unset TRITON_INSTRUMENTATION_MODE (or the option) to compile for "
                                  "libtriton_jit")


def _metadata_dict(metadata):
    out = {}
    for k, v in metadata._asdict().items():
        if k == "target":
            out[k] = {"backend": v.backend, "arch": v.arch, "warp_size": v.warp_size}
        else:
            out[k] = v
    return out


_descriptor_scalars_cache = None


def _descriptor_scalars():
    """The flags Triton's launcher passes, after a host tensor descriptor's base, shape and strides,
    for a descriptor the compiler did not lower to TMA: none in 3.4, padding from 3.5,
    round_f32_to_tf32 too from 3.7. Read by running this Triton's own decomposition on a stand-in."""
    global _descriptor_scalars_cache
    if _descriptor_scalars_cache is None:
        try:
            from triton.backends.driver import decompose_descriptor as decompose  # 3.9 and newer
        except ImportError:
            from triton.backends.nvidia.driver import make_tensordesc_arg
            extra = len(inspect.signature(make_tensordesc_arg).parameters) - 2
            def decompose(arg):
                return make_tensordesc_arg(arg, None, *([None] * extra))
        tf32 = object()

        class _Stub:
            base, shape, strides, padding, round_f32_to_tf32 = "base", [7], [1], "nan", tf32

        flags = decompose(_Stub())[3:-2]
        names = ["padding" if x is True else "round_f32_to_tf32" if x is tf32 else None for x in flags]
        if None in names:
            raise RuntimeError(f"this Triton's launcher passes descriptor flags the runtime does not know: {flags!r}")
        _descriptor_scalars_cache = names
    return list(_descriptor_scalars_cache)


def _flush_std():
    """Python's buffered stdout and stderr out to their file descriptors now, while they still
    lead where the host wants them (a tool that captures compiler output restores nothing at
    exit); Triton prints the PTX there when ptxas fails."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed or missing stream
            pass


def compile(fn, specialization, options, target):
    """Compiles `fn` for `specialization` (Triton's list of (type, hint) tuples; constexprs as
    ("constexpr", value)) with `options` (dict) for `target` ((backend, arch, warp_size)).
    Returns the binary (cubin or hsaco) and the launch metadata: a dict holding every field of
    TRITON_JIT_KERNEL_FIELDS (src/kernel/kernel_fields.h), read by name in C++."""
    try:
        _take_stored_triton_key()
        result = _compile(fn, specialization, options, target)
        _store_triton_key()  # computed by the compile: storing it costs a small write
        return result
    finally:
        _flush_std()


def _compile(fn, specialization, options, target):
    from triton.compiler import ASTSource
    gpu_target = _gpu_target(target)
    backend = _make_backend(gpu_target)
    dependencies, constexpr_globals = _dependencies(fn)
    _pin_constexpr_globals(fn, constexpr_globals)
    opts, signature, constexprs, attrs = _pack(fn, backend, specialization, _call_options(fn, options))
    src = ASTSource(fn, signature, constexprs, attrs)
    kernel = triton.compile(src, target=gpu_target, options=opts.__dict__)
    md = kernel.metadata
    _check_launch_interface(md)
    return {
        "dependencies": dependencies,
        "triton_file": os.path.abspath(triton.__file__),
        "name": md.name,
        "cubin": kernel.asm[backend.binary_ext],  # a cubin for cuda, an hsaco for hip
        "shared": int(md.shared),
        "num_warps": int(md.num_warps),
        "num_ctas": int(getattr(md, "num_ctas", 1)),
        "cluster_dims": _cluster_dims(md),
        "global_scratch_size": int(getattr(md, "global_scratch_size", 0)),
        "global_scratch_align": int(getattr(md, "global_scratch_align", 1)),
        "profile_scratch_size": int(getattr(md, "profile_scratch_size", 0)),
        "profile_scratch_align": int(getattr(md, "profile_scratch_align", 1)),
        "launch_pdl": bool(getattr(md, "launch_pdl", False)),
        "launch_cooperative_grid": bool(getattr(md, "launch_cooperative_grid", False)),
        "tensordesc_meta": list(getattr(md, "tensordesc_meta", None) or []),
        "tensordesc_scalars": _descriptor_scalars(),
        "scratch_params": _scratch_params(md),
        "target": [gpu_target.backend, _arch_number(gpu_target.backend, gpu_target.arch), int(gpu_target.warp_size)],
        "hash": str(getattr(md, "hash", "")),
        "triton_version": triton.__version__,
        "metadata_json": json.dumps(_metadata_dict(md), default=str, sort_keys=True),
    }


def _dependencies(fn):
    """(files, constexpr globals) of `fn`. Files: the sources whose change must invalidate `fn`'s
    kernels: its own file, those of every @triton.jit function it calls (transitively) and those of
    the modules whose globals it reads. Constexpr globals: (name, module file, repr of the value) of
    every tl.constexpr global those functions read. Triton's DependenciesFinder decides what counts
    as a dependency, as for its own cache key."""
    from triton.language import constexpr
    from triton.runtime.jit import DependenciesFinder, JITFunction
    followed = _dependency_types()
    files, constexprs, seen, todo = set(), set(), set(), [fn]
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        source = inspect.getsourcefile(f.fn)
        if source:
            files.add(os.path.abspath(source))
        if not isinstance(f, JITFunction):
            continue
        callees = []

        class _Finder(DependenciesFinder):
            def _update_hash(self, func):
                if isinstance(func, followed):
                    callees.append(func)
                super()._update_hash(func)

        finder = _Finder(name=f._fn_name, globals=f.__globals__,
                         nonlocals=inspect.getclosurevars(f.fn).nonlocals, src=f.src)
        finder.visit(f.parse())
        for (name, _), (value, scope) in finder.used_global_vals.items():
            module_file = scope.get("__file__") if isinstance(scope, dict) else None
            if module_file:
                files.add(os.path.abspath(module_file))
            if isinstance(value, constexpr):
                constexprs.add((name, module_file or "", repr(value)))
        todo.extend(callees)
    return sorted(files), sorted(constexprs)


def _pin_constexpr_globals(fn, constexpr_globals):
    """Triton 3.4 only: its JITFunction.cache_key, which keys Triton's own disk cache, leaves out
    the values of the tl.constexpr globals a kernel reads (3.5 and newer hash them), so after
    such a global is edited Triton 3.4 hands back the old binary. Here the values are hashed into
    `fn`'s key as 3.5 does, once per function object; kernels reading none keep Triton's key."""
    if not constexpr_globals or getattr(fn, "_triton_jit_pinned", False) or _triton_version() >= (3, 5):
        return
    key = fn.cache_key + str(constexpr_globals)
    fn.hash = hashlib.sha256(key.encode("utf-8")).hexdigest()
    fn._triton_jit_pinned = True


def _triton_version():
    """(major, minor) of the installed Triton, for the rare difference no attribute reveals."""
    return tuple(int(p) for p in re.findall(r"\d+", triton.__version__)[:2])


def _dependency_types():
    """What the dependency walk follows among the values DependenciesFinder hashes: JITCallable
    (Triton 3.5 and newer: @triton.jit functions and @triton.constexpr_function helpers, the only
    values _update_hash receives), else JITFunction (Triton 3.4, whose _update_hash receives every
    value a name or attribute resolves to: numbers, modules, plain functions, None)."""
    import triton.runtime.jit as jit
    return getattr(jit, "JITCallable", jit.JITFunction)


# ----------------------------------------------------------------------------------------------
# Parallel compiles in worker processes
# ----------------------------------------------------------------------------------------------

# A worker is `python -c _WORKER_BOOT`: it reads this bridge's source from stdin, runs it, then
# serves compile jobs until its stdin ends. Messages are pickles; the worker's own stdout is moved
# to stderr so that anything Triton prints cannot corrupt the stream. Its input ending at any
# point (the parent exiting) ends it quietly: os._exit, as there is nothing to flush to a parent
# that is gone.
_WORKER_BOOT = (
    "import os, pickle, sys\n"
    "out = os.fdopen(os.dup(1), 'wb'); os.dup2(2, 1)\n"
    "try:\n"
    "    source = pickle.load(sys.stdin.buffer)\n"
    "except Exception:\n"
    "    os._exit(0)\n"
    "ns = {'__name__': 'triton_jit_bridge'}\n"
    "exec(compile(source, '<triton_jit_bridge>', 'exec'), ns)\n"
    "ns['_serve'](sys.stdin.buffer, out)\n"
    "os._exit(0)\n")


def _serve(inp, out, warm_up=True):
    import pickle
    if warm_up:
        _warm_up()
    while True:
        try:
            job = pickle.load(inp)
        except (EOFError, pickle.UnpicklingError):  # the parent closed the pipe, mid-message or not
            return
        if job is None:
            return
        reply = ("ok", None) if job == "ping" else _run_job(job)
        try:
            pickle.dump(reply, out)
            out.flush()
        except BrokenPipeError:
            return


def _warm_up():
    """Imports what every first compile imports (the code generator, the backends' compilers),
    while the parent still computes Triton's installation hash for the first job."""
    try:
        import triton.compiler.code_generator  # noqa: F401
        import triton.compiler.compiler  # noqa: F401
        from triton.backends import backends
        for backend in backends.values():
            backend.compiler  # noqa: B018 - the backend's compiler module, imported
    except BaseException:  # noqa: BLE001 - only a head start: a job reports any real failure
        pass


def worker_context():
    """What a worker needs to import kernels as this process does: its sys.path (package roots
    added at run time, folders of kernels imported by path) and the modules to preload."""
    return {"sys_path": list(sys.path), "preload": list(_preloaded) + list(_preload_pending)}


def _apply_context(context):
    # The parent's sys.path exactly: a worker's own first entry (its working directory, as for
    # any `python -c`) could make a file the parent imported on its own look like a package's.
    sys.path[:] = context["sys_path"]
    set_preload(context["preload"])


def _crash_hook(name, hook):
    """Test hook (TRITON_JIT_TEST_WORKER_CRASH, passed in the job's context): "NAME" kills the
    worker on every job of function NAME; "NAME@FILE" only on the job that first creates FILE."""
    target, _, marker = hook.partition("@")
    if target != name:
        return
    if marker:
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return
    import signal
    os.kill(os.getpid(), signal.SIGKILL)


def _triton_key_module():
    """The module whose triton_key() (the hash of the Triton installation, part of every compile's
    cache key; reading and hashing libtriton takes most of a second) triton.compile calls:
    triton.runtime.cache in Triton 3.5 and newer, triton.compiler.compiler in 3.4."""
    import triton.runtime.cache as cache
    if hasattr(cache, "triton_key"):
        return cache
    import triton.compiler.compiler as compiler
    return compiler


def _use_triton_key(triton_file, key):
    """Makes this worker's triton_key() return `key`, the parent's, so that each worker does not
    hash Triton again: when this worker's Triton is the parent's (`triton_file`, its __init__.py;
    the same installation has the same key)."""
    import functools
    if os.path.abspath(triton.__file__) != triton_file:
        return
    module = _triton_key_module()
    original = module.triton_key
    if getattr(original, "_triton_jit_key", None) == key:
        return

    @functools.lru_cache()
    def triton_key():
        return key
    triton_key._triton_jit_key = key
    for name, m in list(sys.modules.items()):
        if name.startswith("triton") and getattr(m, "triton_key", None) is original:
            m.triton_key = triton_key


# Triton's installation hash kept in the index: triton_key() reads and hashes libtriton (hundreds of
# MB, most of a second), in every process that compiles, and a compile worker's first job waited
# for it. The stored copy is used while every file of the installation has the size, times and
# inode it was computed from: a reinstall or an edit changes them. Looked at before the first
# compile only, so a process that never compiles does not fingerprint Triton.
_key_index_dir = ""      # the index the C++ side uses (set_index_dir_for_triton_key)
_key_looked_at = False   # whether _take_stored_triton_key has run
_stored_key_file = None  # where this process would store its key: (path, fingerprint), or None
_stored_key_lock = threading.Lock()


def _installation_fingerprint(triton_dir):
    h = hashlib.sha256(triton.__version__.encode())
    for root, dirs, files in os.walk(triton_dir):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")  # bytecode is not part of the key
        for name in sorted(files):
            path = os.path.join(root, name)
            st = os.stat(path)
            h.update(f"{os.path.relpath(path, triton_dir)}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}"
                     f"\0{st.st_ino}\n".encode())
    return h.hexdigest()


def _shared_index_trusted():
    return os.environ.get("TRITON_JIT_TRUST_SHARED_INDEX", "") in ("1", "true", "yes", "on")


def _index_folder_problem(path, is_root):
    """Why the index folder `path` may not be used, or None: the C++ side's rules
    (src/store/index_folders.h): no link below the index folder, owned by this user or root, not
    writable by others or by a group but the owner's private one without the sticky bit, unless
    TRITON_JIT_TRUST_SHARED_INDEX."""
    st = os.stat(path) if is_root else os.lstat(path)  # the index folder may be a link, not what is below
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "not a folder"
    if _shared_index_trusted():
        return None
    if st.st_uid not in (os.geteuid(), 0):
        return "owned by another user"
    if st.st_mode & stat.S_ISVTX:
        return None
    if st.st_mode & 0o002:
        return "writable by others"
    if st.st_mode & 0o020 and not _private_group_of(st.st_uid, st.st_gid):
        return "writable by its group"
    return None


def _private_group_of(uid, gid):
    """Whether `gid` is the private group of user `uid` (named as the user, the user's primary
    group, no other member), which a umask of 0002 leaves writable: as the C++ side accepts."""
    try:
        import grp
        import pwd
        user, group = pwd.getpwuid(uid), grp.getgrgid(gid)
    except (ImportError, KeyError):
        return False
    return user.pw_gid == gid and group.gr_name == user.pw_name and all(m == user.pw_name for m in group.gr_mem)


def _installation_key_folder(create):
    """The index's installations/ folder when every folder on the way is usable (made when
    `create`, mode 0755 less the umask), else None."""
    folder = _key_index_dir
    if create and not os.path.isdir(folder):
        os.makedirs(folder, mode=0o755, exist_ok=True)
    if _index_folder_problem(folder, True):
        return None
    for part in ("v3", "installations"):
        folder = os.path.join(folder, part)
        if create and not os.path.lexists(folder):
            try:
                os.mkdir(folder, 0o755)
            except FileExistsError:
                pass
        if _index_folder_problem(folder, False):
            return None
    return folder


def _read_installation_key_file(path):
    """The stored (fingerprint, key), never through a link; ("", "") when absent or unusable."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        foreign = st.st_uid not in (os.geteuid(), 0) or st.st_mode & 0o002
        if not stat.S_ISREG(st.st_mode) or (foreign and not _shared_index_trusted()):
            return "", ""
        fingerprint, key = os.read(fd, 1 << 16).decode("utf-8").split("\n")[:2]
        return fingerprint, key
    finally:
        os.close(fd)


def set_index_dir_for_triton_key(index_dir):
    """Where the stored installation key lives (the index directory; empty: nowhere)."""
    global _key_index_dir
    _key_index_dir = index_dir or ""


def _take_stored_triton_key():
    """Once per process, before its first compile: makes triton_key() return the copy stored in
    the index when it is still the installation's; else notes where to store it once computed.
    Any trouble with the file is only a lost shortcut."""
    global _key_looked_at, _stored_key_file
    with _stored_key_lock:  # held throughout: a second caller waits for the answer, not for a hash
        if _key_looked_at:
            return
        _key_looked_at = True
        if not _key_index_dir:
            return
        try:
            triton_file = os.path.abspath(triton.__file__)
            fingerprint = _installation_fingerprint(os.path.dirname(triton_file))
            name = hashlib.sha256(triton_file.encode()).hexdigest()[:32] + ".key"
            path = os.path.join(_key_index_dir, "v3", "installations", name)
            try:
                folder = _installation_key_folder(create=False)
                stored_fingerprint, key = _read_installation_key_file(path) if folder else ("", "")
            except (OSError, ValueError):
                stored_fingerprint, key = "", ""
            if stored_fingerprint == fingerprint and key:
                _use_triton_key(triton_file, key)
            else:
                _stored_key_file = (path, fingerprint)
        except Exception:  # noqa: BLE001
            pass


def _store_triton_key():
    """Stores this process's triton_key() where _take_stored_triton_key noted, once; call it
    when the key is computed already (after a compile) or about to be needed anyway."""
    global _stored_key_file
    with _stored_key_lock:
        target, _stored_key_file = _stored_key_file, None
    if target is None:
        return
    path, fingerprint = target
    tmp = None
    try:
        key = _triton_key_module().triton_key()
        if _installation_key_folder(create=True) is None:
            return
        name = f"{path}.tmp.{os.getpid()}.{threading.get_ident()}"  # the store's temporary names
        # O_EXCL|O_NOFOLLOW: never written through a link; os.replace renames over a link, never into it.
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        tmp = name
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(f"{fingerprint}\n{key}\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except Exception:  # noqa: BLE001 - a read-only or full index: computed again next time
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _installation_key():
    """This process's triton_key(): the copy stored in the index while it is still the
    installation's, else computed now and stored."""
    _take_stored_triton_key()
    key = _triton_key_module().triton_key()
    _store_triton_key()
    return key


_worker_functions = {}  # (source, name) -> JITFunction, in a worker


def _run_job(job):
    path, name, items, options, target, context = job
    fn = None
    try:
        if context.get("crash"):
            _crash_hook(name, context["crash"])
        if context.get("triton_key"):
            _use_triton_key(*context["triton_key"])
        if context.get("ping"):
            return ("ok", None)
        _apply_context(context)
        fn = _worker_functions.get((path, name))
        if fn is None:
            # Loaded once per worker, as the parent loads a function once per process; the
            # descriptions load_function also builds are not needed again.
            fn = _worker_functions[(path, name)] = load_function(path, name)[0]
        return ("ok", compile(fn, specialization(items), options, target))
    except KernelLookupFailure as e:
        return ("error", ("KernelLookupFailure", str(e), path, 0, e.tb or str(e)))
    except BaseException as e:  # noqa: BLE001 - reported to the parent whole
        return ("error", describe_exception(e, fn))


# The fork server: one process that imported Triton and its compiler and holds Triton's
# installation key forks the compile workers. Started by the C++ side (src/bridge/fork_server.cpp),
# possibly while this process still starts: it runs _forkserver_main on fd 3, its end of a
# SOCK_SEQPACKET socket pair. A worker so made starts in a millisecond or two, where a fresh
# Python pays its start, Triton's import and the key again (most of a second, and 16 of them at
# once contend for the machine).
_FORKSERVER_GRACE = 2.0  # seconds its workers get to finish when the server's parent is gone


def _forkserver_main(sock, index_dir):
    """The server's loop. Requests (pickles, one per message): ("fork",) with two descriptors, the
    worker's job input and reply output, answered ("pid", pid); ("reap", pid), answered ("status",
    exit status as subprocess reports it, or None); ("kill", pid), answered the same way. Its
    workers stay its children until reaped on request, so their ids are never reused while the
    parent may still signal them. End of input: the parent is gone or shutting the pool down."""
    import pickle
    import signal
    import socket
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the parent's to handle
    set_index_dir_for_triton_key(index_dir)
    try:
        _installation_key()  # the stored copy, or computed here once for every worker
    except BaseException:  # noqa: BLE001 - each worker then computes it at its first compile
        pass
    _warm_up()
    live = set()
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(sock, 4096, 2)
        except OSError:
            break
        if not message:
            for fd in fds:
                os.close(fd)
            break
        request = pickle.loads(message)
        if request[0] == "fork" and len(fds) == 2:
            reply = ("pid", _fork_worker(sock, fds))
            live.add(reply[1])
        elif request[0] in ("reap", "kill") and request[1] in live:
            if request[0] == "kill":
                os.kill(request[1], signal.SIGKILL)
            live.discard(request[1])
            reply = ("status", _reap(request[1], 5.0))
        else:
            reply = ("status", None)
        for fd in fds:
            os.close(fd)
        sock.send(pickle.dumps(reply))
    _end_forked(live)


def _fork_worker(sock, fds):
    """Forks a worker serving jobs from fds[0] and replies to fds[1]; returns its process id."""
    pid = os.fork()
    if pid:
        return pid
    try:
        sock.close()
        _die_with_parent()
        _serve(os.fdopen(fds[0], "rb"), os.fdopen(fds[1], "wb"), warm_up=False)
    finally:
        os._exit(0)


def _die_with_parent():
    """A forked worker is killed when its fork server dies (Linux's PR_SET_PDEATHSIG): never an
    orphan that nothing reaps in order."""
    try:
        import ctypes
        import signal
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    except BaseException:  # noqa: BLE001 - elsewhere the worker still ends with its input
        pass


def _reap(pid, timeout):
    """The exit status of child `pid` (-N: killed by signal N) once it ends, or None after
    `timeout` seconds."""
    import time
    deadline = time.monotonic() + timeout
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            return None
        time.sleep(0.002)


def _end_forked(live):
    """At the server's end: its workers' input ended with the parent's, so they exit once their
    job is done; one still running after the grace period is killed. All are reaped."""
    import signal
    import time
    deadline = time.monotonic() + _FORKSERVER_GRACE
    for pid in live:
        if _reap(pid, max(0.0, deadline - time.monotonic())) is None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _reap(pid, 5.0)


class _ForkServer:
    """The pool's handle on a fork server the C++ side started (process `pid`, a child of this
    process, serving the socket `fd`, which this handle owns from now on); fork() is safe from
    any thread."""

    def __init__(self, pid, fd):
        import socket
        self.proc = _Child(pid)
        self.sock = socket.socket(fileno=fd)
        self.sock.settimeout(120)  # its boot, on a loaded machine: beyond that it is stuck
        self._lock = threading.Lock()

    def _request(self, request, fds=()):
        import pickle
        import socket
        with self._lock:
            socket.send_fds(self.sock, [pickle.dumps(request)], list(fds), socket.MSG_NOSIGNAL)
            reply = self.sock.recv(4096)
        if not reply:
            raise OSError(f"the compile fork server (process {self.proc.pid}) exited "
                          f"(exit status {self.proc.poll()})")
        return pickle.loads(reply)

    def fork(self):
        """A new worker, booted (it serves jobs at once): (process, job socket, reply file)."""
        import socket
        jobs, their_jobs = socket.socketpair()
        reply_read, reply_write = os.pipe()
        try:
            kind, pid = self._request(("fork",), (their_jobs.fileno(), reply_write))
            if kind != "pid":
                raise OSError(f"the compile fork server answered {kind!r} to a fork")
            pidfd = os.pidfd_open(pid)
        except BaseException:
            jobs.close()
            os.close(reply_read)
            raise
        finally:
            their_jobs.close()
            os.close(reply_write)
        return _ForkedProcess(self, pid, pidfd), jobs, os.fdopen(reply_read, "rb")

    def status_of(self, pid, kill=False):
        """The exit status of a worker that ended (killed first when `kill`), or None."""
        try:
            return self._request(("kill" if kill else "reap", pid))[1]
        except (OSError, EOFError):
            return None

    def stop(self, timeout=5.0):
        """Ends the server: end of input, then SIGKILL after `timeout` seconds; reaped."""
        self.sock.close()
        if self.proc.wait(timeout) is None:
            self.proc.kill()
            self.proc.wait()


class _Child:
    """A child process this one did not start with subprocess (the fork server)."""

    def __init__(self, pid):
        self.pid, self.returncode = pid, None

    def poll(self):
        if self.returncode is None:
            try:
                done, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere
                done, status = self.pid, 0
            if done:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout=None):
        """The exit status once the process ended; None after `timeout` seconds."""
        import time
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                return None
            time.sleep(0.002)
        return self.returncode

    def kill(self):
        import signal
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)  # still unreaped: the id is still its own


class _ForkedProcess:
    """A worker forked by the fork server, with the parts of subprocess.Popen the pool uses. It is
    the server's child, not this process's: its end is seen through a pidfd, and the server, which
    holds its id until it reaps it, signals it and reports its exit status."""

    def __init__(self, server, pid, pidfd):
        self.server, self.pid, self._pidfd = server, pid, pidfd
        self.returncode = None  # once ended: as subprocess reports it, or "unknown" (its server died)

    def poll(self):
        import select
        if self._pidfd is not None and select.select([self._pidfd], [], [], 0)[0]:
            self._collect(kill=False)
        return self.returncode

    def wait(self, timeout=None):
        import select
        import subprocess
        if self._pidfd is not None:
            if not select.select([self._pidfd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(f"compile worker {self.pid}", timeout)
            self._collect(kill=False)
        return self.returncode

    def kill(self):
        if self._pidfd is not None:
            self._collect(kill=True)

    def _collect(self, kill):
        status = self.server.status_of(self.pid, kill)
        self.returncode = "unknown" if status is None else status
        os.close(self._pidfd)
        self._pidfd = None


def _fork_supported():
    """Whether this platform can run the fork server: Linux's pidfd and descriptor passing."""
    import socket
    if not (hasattr(os, "pidfd_open") and hasattr(socket, "send_fds") and hasattr(socket, "SOCK_SEQPACKET")):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
        return True
    except OSError:
        return False


def _send(sock, data):
    """Sends all of `data` on `sock`. A peer that is gone raises BrokenPipeError rather than
    sending SIGPIPE, which an embedded interpreter does not ignore: it would end the host."""
    import socket
    sock.sendall(data, socket.MSG_NOSIGNAL)


class _Worker:
    """One compile process and the sources it has imported (a job goes preferably to a worker
    that imported its file already). Jobs go to it on a socket (`jobs`), replies come back on a
    pipe (`replies`)."""

    def __init__(self, python, source, forkserver=None):
        import pickle
        import socket
        import subprocess
        self.sources = set()
        if forkserver is not None:
            self.proc, self.jobs, self.replies = forkserver.fork()
            self.keyed = True  # its fork server held Triton's key
            return
        self.jobs, theirs = socket.socketpair()
        try:
            self.proc = subprocess.Popen([python, "-c", _WORKER_BOOT], stdin=theirs.fileno(), stdout=subprocess.PIPE)
        except BaseException:
            self.jobs.close()
            raise
        finally:
            theirs.close()
        self.replies = self.proc.stdout
        self.keyed = False  # whether it has been handed the parent's triton_key
        _send(self.jobs, pickle.dumps(source))

    def run(self, job, triton_key=None):
        """The worker's reply to `job` (a compile job, or "ping")."""
        import pickle
        if triton_key and not self.keyed:
            if job == "ping":
                job = ("", "", [], {}, None, {"triton_key": triton_key, "ping": True})
            else:
                job = job[:5] + (dict(job[5], triton_key=triton_key),)
            self.keyed = True
        _send(self.jobs, pickle.dumps(job))
        reply = pickle.load(self.replies)
        if job != "ping" and job[0]:
            self.sources.add(job[0])
        return reply

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout):
        """Ends the process: end of input, then SIGKILL after `timeout` seconds; always reaped."""
        import subprocess
        try:
            self.jobs.close()
        except BaseException:  # noqa: BLE001
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        try:
            self.replies.close()
        except BaseException:  # noqa: BLE001
            pass


class CompilePool:
    """Compile worker processes started on demand and kept for the process's life, shared by
    every thread: run(job) blocks the calling thread (not the interpreter: waits release the GIL)
    until a worker has compiled the job. At most `limit` workers exist unless a caller allows
    more (prepare's explicit jobs). A worker that dies is reaped and replaced, and its job run
    once more on a fresh one. Workers are forked by the fork server (_ForkServer) where the
    platform allows, else each is a fresh Python. `track(pid, fd)` and `untrack(pid)` tell the
    C++ side which processes to end at exit when Python itself never finalizes (an embedded
    interpreter)."""

    def __init__(self, python, source, limit, track=None, untrack=None, spawn_server=None):
        import atexit
        import threading
        self.python, self.source, self.limit = python, source, max(1, int(limit))
        self.pid = os.getpid()
        self._track, self._untrack, self._spawn_server = track, untrack, spawn_server
        self._cond = threading.Condition()
        self._idle = []   # workers waiting for a job, most recently used last
        self._live = 0    # workers starting, idle or busy
        self._pids = set()  # processes started and not yet ended
        self._closed = False
        self.started = 0  # workers ever started
        self.replaced = 0  # workers that died under a job
        self.jobs = 0     # jobs run to a reply
        atexit.register(self.shutdown)  # a Python host: before its interpreter finalizes
        self._forkserver = None  # started with the first worker; False: workers are spawned
        self._forkserver_failures = 0
        self._forkserver_lock = threading.Lock()
        # Triton's installation hash for spawned workers, computed here once while the first of
        # them start, instead of by each of them before its first compile.
        self._triton_key = None
        self._key_done = threading.Event()
        self._key_started = False

    def _fork_server(self):
        """The running fork server, started on first use; None where workers are spawned."""
        with self._forkserver_lock:
            if self._forkserver is None:
                self._forkserver = False
                if self._spawn_server is not None and _fork_supported():
                    try:  # (pid, fd), tracked for the exit already; None: workers are spawned
                        started = self._spawn_server(self.python)
                        if started is not None:
                            self._forkserver = _ForkServer(*started)
                    except BaseException:  # noqa: BLE001 - no server: spawned workers still compile
                        self._forkserver_failures += 1
            return self._forkserver or None

    def _drop_fork_server(self, server, timeout):
        """Ends `server`, once; after a failure, the next worker starts a new one (twice at most:
        then workers are spawned)."""
        with self._forkserver_lock:
            if self._forkserver is not server:
                return
            self._forkserver = False if self._closed or self._forkserver_failures >= 1 else None
            self._forkserver_failures += 1
        self._stop_fork_server(server, timeout)

    def _stop_fork_server(self, server, timeout=5.0):
        if self._untrack is not None:
            self._untrack(server.proc.pid)
        server.stop(timeout)

    def _new_worker(self):
        server = self._fork_server()
        if server is not None:
            try:
                return _Worker(self.python, self.source, server)
            except BaseException:  # noqa: BLE001 - the server died or is stuck: spawn this one
                self._drop_fork_server(server, 1.0)
        with self._cond:
            start_key, self._key_started = not self._key_started, True
        if start_key:
            threading.Thread(target=self._compute_triton_key, daemon=True).start()
        return _Worker(self.python, self.source)

    def _compute_triton_key(self):
        try:
            self._triton_key = (os.path.abspath(triton.__file__), _installation_key())
        except BaseException:  # noqa: BLE001 - the workers then compute their own
            pass
        finally:
            self._key_done.set()

    def _acquire(self, source, allowance, fresh=False):
        """An idle worker (one that imported `source` if any), else a new one while fewer than
        max(limit, allowance) run, else the next to be released. `fresh`: a new one or None."""
        with self._cond:
            while True:
                if self._closed:
                    raise RuntimeError("the compile worker pool is shut down (the process is exiting)")
                if fresh and self._live >= self.limit:
                    return None
                if self._idle and not fresh:
                    for i in range(len(self._idle) - 1, -1, -1):
                        if source in self._idle[i].sources:
                            return self._idle.pop(i)
                    return self._idle.pop()
                if self._live < max(self.limit, allowance):
                    self._live += 1
                    break
                self._cond.wait()
        try:
            worker = self._new_worker()
        except BaseException:
            with self._cond:
                self._live -= 1
                self._cond.notify()
            raise
        with self._cond:
            self.started += 1
            self._pids.add(worker.proc.pid)
        if self._track is not None:
            self._track(worker.proc.pid, worker.jobs.fileno())
        return worker

    def _release(self, worker):
        with self._cond:
            if not self._closed:
                self._idle.append(worker)
                self._cond.notify()
                return
        self._end(worker, 5.0)

    def _end(self, worker, timeout):
        if self._untrack is not None:
            self._untrack(worker.proc.pid)
        worker.stop(timeout)
        with self._cond:
            self._live -= 1
            self._pids.discard(worker.proc.pid)
            self._cond.notify()
            last = self._closed and self._live == 0
        if last:
            self._end_fork_server()

    def _end_fork_server(self):
        """At shutdown, once no worker is left: the server's end of input, then it exits."""
        with self._forkserver_lock:
            server, self._forkserver = self._forkserver, False
        if server:
            self._stop_fork_server(server)

    def run(self, job, allowance=0):
        """(status, result) of `job`, as a worker's _run_job returns it; ("error", description)
        when the worker died on it twice."""
        failures = []
        for _ in range(2):
            self._end_dead_idle()
            worker = self._acquire(job[0], allowance)
            try:
                if not worker.keyed:
                    self._key_done.wait(120)
                reply = worker.run(job, self._triton_key)
            except BaseException as e:  # noqa: BLE001 - the process failed: replace it, retry once
                with self._cond:
                    self.replaced += 1
                self._end(worker, 1.0)
                failures.append(f"{type(e).__name__}: {e} (exit status {worker.proc.returncode})")
                continue
            with self._cond:
                self.jobs += 1
            self._release(worker)
            return reply
        return ("error", ("WorkerError", f"the compile worker process ({self.python}) died on this job twice: "
                          + "; then ".join(failures), job[0], 0, ""))

    def _end_dead_idle(self):
        """Ends idle workers that died waiting (killed from outside, or with their fork server),
        so that no job is sent to them."""
        with self._cond:
            dead = [w for w in self._idle if not w.alive()]
            if dead:
                self._idle = [w for w in self._idle if all(w is not d for d in dead)]
        for worker in dead:
            self._end(worker, 1.0)

    def start(self, count):
        """Starts workers until `count` run (at most the limit), in the background: each is idle
        once it has booted and answered a ping."""
        import threading

        def boot():
            worker = None
            try:
                with self._cond:
                    if self._live >= min(count, self.limit) or self._closed:
                        return
                worker = self._acquire(None, 0, fresh=True)
                if worker is None:
                    return
                if not worker.keyed:
                    self._key_done.wait(120)
                worker.run("ping", self._triton_key)
                self._release(worker)
            except BaseException:  # noqa: BLE001 - a worker that cannot start: the next job says why
                if worker is not None:
                    self._end(worker, 0)

        for _ in range(max(0, min(count, self.limit) - self._live)):
            threading.Thread(target=boot, daemon=True).start()

    def trim(self):
        """Ends idle workers beyond the limit (a batch that asked for more, a lowered limit)."""
        with self._cond:
            extra = min(len(self._idle), self._live - self.limit)
            if extra <= 0:
                return
            ending, self._idle = self._idle[:extra], self._idle[extra:]  # the least recently used
        for worker in ending:
            self._end(worker, 5.0)

    def status(self):
        with self._cond:
            server = self._forkserver
            return {"limit": self.limit, "idle": len(self._idle), "pids": sorted(self._pids), "started": self.started,
                    "replaced": self.replaced, "jobs": self.jobs, "forkserver": server.proc.pid if server else 0}

    def shutdown(self):
        """Ends every idle worker now, and each busy one when its job returns."""
        if self.pid != os.getpid():
            return  # a forked child's copy: the workers are its parent's
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._cond.notify_all()
            none_busy = self._live == len(idle)
        for worker in idle:
            self._end(worker, 5.0)
        if none_busy:
            self._end_fork_server()


_pool = None
_pool_lock = threading.Lock()  # creating the pool releases the GIL (it starts a thread)


def compile_pool(python, source, limit, track=None, untrack=None, spawn_server=None):
    """The process's compile pool, created on first use; later calls adjust its limit."""
    global _pool
    with _pool_lock:
        # A forked child inherits the pool's pipes to its parent's workers: it starts its own.
        if _pool is None or _pool.pid != os.getpid():
            _pool = CompilePool(python, source, limit, track, untrack, spawn_server)
        else:
            _pool.limit = max(1, int(limit))
        pool = _pool
    pool.trim()
    return pool


def compile_many(pool, jobs, concurrency, on_done):
    """Runs `jobs` ((source, name, specialization items, options, target, worker_context())
    tuples, the source as load_function takes it, the items as `specialization` reads them) on
    `pool`, at most `concurrency` at once, calling on_done(index, status, result) in this thread
    as each finishes."""
    import queue
    import threading

    pending = queue.Queue()
    for i, job in enumerate(jobs):
        pending.put((i, job))
    done = queue.Queue()

    def submitter():
        # Every job taken is reported exactly once, whatever happens to its worker.
        while True:
            try:
                i, job = pending.get_nowait()
            except queue.Empty:
                return
            try:
                done.put((i,) + tuple(pool.run(job, concurrency)))
            except BaseException as e:  # noqa: BLE001 - no worker could be started
                done.put((i, "error", ("WorkerError", f"no compile worker process ({pool.python}) could run "
                                       f"the job: {type(e).__name__}: {e}", job[0], 0, "")))

    threads = [threading.Thread(target=submitter, daemon=True) for _ in range(max(1, min(concurrency, len(jobs))))]
    for t in threads:
        t.start()
    for _ in range(len(jobs)):
        i, status, result = done.get()
        on_done(i, status, result)
    for t in threads:
        t.join()
    pool.trim()


# ----------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------


def describe_exception(exc, fn=None):
    """(python type, message, file, line, traceback) of an exception raised by Triton."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    file, line = "", 0
    if fn is not None:
        file = inspect.getsourcefile(fn.fn) or ""
        line = _def_line(fn)
        node = getattr(exc, "node", None)
        lineno = getattr(node, "lineno", None)
        if lineno is not None:
            # Triton parses the dedented source of the function alone: its line 1 is the `def`.
            line = line + int(lineno) - 1
    return type(exc).__name__, _error_message(exc), file, line, tb


def _error_message(exc):
    """str(exc), followed by each exception of its chain of causes (__cause__, else __context__
    unless suppressed). A CompilationError raised in a nested @triton.jit call shows only a caret
    under that call; the reason (a failing static_assert, an undefined name) is at the end of the
    chain. Triton 3.4 leaves error_message empty when a builtin raised (the reason is only the
    __cause__); 3.5 and newer repeat the cause's text in error_message: text already in the
    message is not repeated."""
    message = str(exc).strip() or type(exc).__name__
    seen = {id(exc)}
    cause = _next_cause(exc)
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        text = str(cause).strip()
        if not text or text not in message:
            message += f"\ncaused by {type(cause).__name__}: " + (text or "(no message)")
        cause = _next_cause(cause)
    return message


def _next_cause(exc):
    """The exception `exc` was raised from, as Python's traceback printing follows the chain."""
    if exc.__cause__ is not None:
        return exc.__cause__
    return None if exc.__suppress_context__ else exc.__context__


# ----------------------------------------------------------------------------------------------
# Heuristic programs
# ----------------------------------------------------------------------------------------------
# A @triton.heuristics value (`lambda args: ...`, or a def returning one expression) in a common
# subset is translated once into a small stack program that C++ evaluates per call without Python
# (src/decorators/heuristic_program.h documents the text format and the semantics). Anything else
# runs through call_heuristic, which records the arguments it reads.

_HEURISTIC_PROGRAM_VERSION = 1
_HEURISTIC_MAX_STACK = 64  # HeuristicProgram's evaluation stack

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
        return super().get(key, default)

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


_heuristic_ast_cache = {}  # filename -> (source lines, ast.Module)


def _source_tree(func):
    code = func.__code__
    try:
        lines, _ = inspect.findsource(code)
    except (OSError, TypeError) as e:
        raise HeuristicNotTranslatable(f"its source is not available ({e})") from None
    filename = code.co_filename
    text = "".join(lines)
    cached = _heuristic_ast_cache.get(filename)
    if cached is not None and cached[0] == text:
        return cached[1], filename
    try:
        tree = ast.parse(text, filename)
    except SyntaxError as e:
        raise HeuristicNotTranslatable(f"its source file does not parse ({e})") from None
    _heuristic_ast_cache[filename] = (text, tree)
    return tree, filename


def _same_code(a, b):
    """Whether two code objects were compiled from the same source (line numbers aside)."""
    if a.co_code != b.co_code or a.co_names != b.co_names or a.co_varnames != b.co_varnames:
        return False
    if a.co_freevars != b.co_freevars or a.co_argcount != b.co_argcount:
        return False
    ca = [c for c in a.co_consts if not inspect.iscode(c)]
    cb = [c for c in b.co_consts if not inspect.iscode(c)]
    return len(ca) == len(cb) and all(type(x) is type(y) and repr(x) == repr(y) for x, y in zip(ca, cb))


def _module_imports(tree):
    """Copies of the import statements of the module's own scope (outside functions and classes)."""
    found = []

    def visit(stmts):
        for st in stmts:
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                found.append(st)
            elif not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for field in ("body", "orelse", "finalbody", "handlers"):
                    visit(getattr(st, field, None) or [])
                for case in getattr(st, "cases", None) or []:
                    visit(case.body)
    visit(tree.body)
    return found


def _compile_candidate(node, filename, code, tree):
    """The code object `node` (a Lambda or FunctionDef) compiles to, in a wrapper that makes the
    function's free variables closure cells as in the original."""
    import copy
    node = copy.deepcopy(node)
    if isinstance(node, ast.Lambda):
        inner = ast.Return(value=node)
    else:
        inner = node
    body = [ast.Assign(targets=[ast.Name(id=v, ctx=ast.Store())], value=ast.Constant(None))
            for v in code.co_freevars]
    body.append(inner)
    if isinstance(node, ast.FunctionDef):
        body.append(ast.Return(value=ast.Name(id=node.name, ctx=ast.Load())))
    wrapper = ast.FunctionDef(name="_triton_jit_wrapper", args=ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=body, decorator_list=[], returns=None, type_comment=None)
    # Names imported at module level compile differently (CPython 3.11 loads `mod.f` of an imported
    # `mod` as an attribute, not a method): the imports come along, compiled but never run.
    module = ast.Module(body=_module_imports(tree) + [wrapper], type_ignores=[])
    ast.fix_missing_locations(module)
    import builtins  # this module's own `compile` shadows the builtin
    top = builtins.compile(module, filename, "exec", dont_inherit=True)
    found = []

    def walk(c):
        for k in c.co_consts:
            if inspect.iscode(k):
                if k.co_name == code.co_name:
                    found.append(k)
                walk(k)
    walk(top)
    return found


def _find_heuristic_node(func):
    """The Lambda or FunctionDef node `func` was compiled from, checked by compiling it again."""
    code = func.__code__
    tree, filename = _source_tree(func)
    line = code.co_firstlineno
    candidates = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and code.co_name == "<lambda>" and node.lineno == line:
            candidates.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if line in (node.lineno, first):
                candidates.append(node)
    matches = []
    for node in candidates:
        try:
            if any(_same_code(c, code) for c in _compile_candidate(node, filename, code, tree)):
                matches.append(node)
        except (SyntaxError, ValueError, TypeError):
            continue
    if not matches:
        raise HeuristicNotTranslatable(
            f"no source matching its code at {filename}:{line} (was the file edited after import?)")
    if len(matches) > 1 and any(ast.dump(m) != ast.dump(matches[0]) for m in matches[1:]):
        raise HeuristicNotTranslatable(f"several different functions at {filename}:{line} match its code")
    return matches[0]


class _HeuristicTranslator:
    """Emits the program of one expression. Instructions are lists of strings, one per line."""

    _BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
               ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "lshift", ast.RShift: "rshift", ast.BitAnd: "bitand",
               ast.BitOr: "bitor", ast.BitXor: "bitxor"}
    _UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert", ast.Not: "not"}
    _COMPARE = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
    # Stack effect of each instruction (jumps aside).
    _EFFECT = dict({op: -1 for op in list(_BINOPS.values()) + list(_COMPARE.values()) + ["cdiv"]},
                   **{op: 0 for op in ["neg", "pos", "invert", "not", "isnone", "istrue", "isfalse", "abs", "int",
                                       "float", "bool", "next_power_of_2", "dtype_of", "element_size"]})

    def __init__(self, func, param_names, args_name):
        self.func = func
        self.params = {name: i for i, name in enumerate(param_names)}
        self.args_name = args_name
        self.code = []  # [op, operand...]
        self.depth = 0
        self.max_depth = 0
        self.read = set()
        self.labels = {}

    # -- emitting --
    def emit(self, op, *operands, effect=None):
        self.code.append([op, *[str(o) for o in operands]])
        self.depth += self._EFFECT[op] if effect is None else effect
        self.max_depth = max(self.max_depth, self.depth)
        if self.max_depth > _HEURISTIC_MAX_STACK:
            raise HeuristicNotTranslatable(f"the expression nests deeper than {_HEURISTIC_MAX_STACK} values")
        return len(self.code) - 1

    def push(self, *line):
        return self.emit(*line, effect=1)

    def jump(self, op):
        """A forward jump whose target is patched later; returns its index."""
        effect = {"jump": 0, "jump_if_true_or_pop": -1, "jump_if_false_or_pop": -1, "pop_jump_if_false": -1}[op]
        return self.emit(op, "?", effect=effect)

    def patch(self, index):
        self.code[index][1] = str(len(self.code))

    def constant(self, value, what):
        if value is None:
            self.push("none")
        elif isinstance(value, bool):
            self.push("bool", int(value))
        elif isinstance(value, int):
            if not -(2**63) <= value < 2**64:
                raise HeuristicNotTranslatable(f"{what} = {value} is outside the 64-bit range")
            self.push("int", value)
        elif isinstance(value, float):
            self.push("float", value.hex())
        elif isinstance(value, str):
            self.push("str", value.encode("utf-8", "surrogatepass").hex())
        else:
            d = _runtime_dtype(value)
            if d is None:
                raise HeuristicNotTranslatable(
                    f"{what} is a {type(value).__qualname__} ({value!r}); only int, float, bool, None, str and "
                    "dtype values can be constants")
            self.push("dtype", d[0], d[1])

    # -- names --
    def resolve_name(self, name):
        """(found, value) of a free name: closure cell, then module global, then builtin."""
        code = self.func.__code__
        if name in code.co_freevars:
            cell = self.func.__closure__[code.co_freevars.index(name)]
            try:
                return cell.cell_contents
            except ValueError:
                raise HeuristicNotTranslatable(f"the closure variable '{name}' is not set") from None
        g = self.func.__globals__
        if name in g:
            return g[name]
        b = getattr(self.func, "__builtins__", None)
        if b is None:
            b = g.get("__builtins__", {})
        if not isinstance(b, dict):
            b = vars(b)
        if name in b:
            return b[name]
        raise HeuristicNotTranslatable(f"the name '{name}' is not defined")

    def resolve_value(self, node):
        """The object a Name or an Attribute chain over modules names, looked up now."""
        import types
        if isinstance(node, ast.Name):
            if node.id == self.args_name:
                raise HeuristicNotTranslatable(f"'{self.args_name}' is used other than as {self.args_name}['name']")
            return self.resolve_name(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve_value(node.value)
            if not isinstance(base, types.ModuleType):
                raise HeuristicNotTranslatable(
                    f"attribute '.{node.attr}' of a {type(base).__qualname__} (only module attributes are read "
                    "at translation time)")
            if not hasattr(base, node.attr):
                raise HeuristicNotTranslatable(f"module {base.__name__} has no attribute '{node.attr}'")
            return getattr(base, node.attr)
        raise HeuristicNotTranslatable(f"{ast.unparse(node)} cannot be resolved at translation time")

    def param_key(self, node):
        """The parameter name of `args[...]` / `args.get(...)`'s key."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            key = node.value
        elif isinstance(node, (ast.Name, ast.Attribute)):
            key = self.resolve_value(node)
            if not isinstance(key, str):
                raise HeuristicNotTranslatable(f"{self.args_name}[{ast.unparse(node)}]: the key is not a string")
        else:
            raise HeuristicNotTranslatable(f"{self.args_name}[{ast.unparse(node)}]: the key is not a constant")
        if key not in self.params:
            raise HeuristicNotTranslatable(f"{self.args_name}[{key!r}]: '{key}' is not a parameter of the function")
        return key

    def is_args(self, node):
        return isinstance(node, ast.Name) and node.id == self.args_name

    # -- expressions --
    def expr(self, node):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise HeuristicNotTranslatable(f"unsupported construct {type(node).__name__}: {ast.unparse(node)}")
        method(node)

    def expr_Constant(self, node):
        self.constant(node.value, repr(node.value))

    def expr_Name(self, node):
        value = self.resolve_value(node)
        self.constant(value, f"'{node.id}'")

    def expr_Attribute(self, node):
        if node.attr == "dtype" and not self._resolvable(node.value):
            if _torch_module() is None:
                raise HeuristicNotTranslatable(".dtype of a tensor argument: torch does not import here, so "
                                               "it would be a Triton dtype")
            self.expr(node.value)
            self.emit("dtype_of")
            return
        if not self._resolvable(node.value):
            raise HeuristicNotTranslatable(
                f"attribute '.{node.attr}' of {ast.unparse(node.value)} (of an argument, only .dtype and "
                ".element_size() are supported)")
        value = self.resolve_value(node)
        self.constant(value, ast.unparse(node))

    def _resolvable(self, node):
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id != self.args_name

    def expr_Subscript(self, node):
        if not self.is_args(node.value):
            raise HeuristicNotTranslatable(f"unsupported subscript {ast.unparse(node)}")
        index = node.slice
        if isinstance(index, getattr(ast, "Index", ())):  # Python 3.8
            index = index.value
        key = self.param_key(index)
        self.read.add(self.params[key])
        self.push("param", self.params[key])

    def expr_BinOp(self, node):
        op = self._BINOPS.get(type(node.op))
        if op is None:
            raise HeuristicNotTranslatable(f"unsupported operator {type(node.op).__name__}: {ast.unparse(node)}")
        self.expr(node.left)
        self.expr(node.right)
        self.emit(op)

    def expr_UnaryOp(self, node):
        self.expr(node.operand)
        self.emit(self._UNARY[type(node.op)])

    def expr_BoolOp(self, node):
        op = "jump_if_false_or_pop" if isinstance(node.op, ast.And) else "jump_if_true_or_pop"
        jumps = []
        for value in node.values[:-1]:
            self.expr(value)
            jumps.append(self.jump(op))
        self.expr(node.values[-1])
        for j in jumps:
            self.patch(j)

    def expr_IfExp(self, node):
        self.expr(node.test)
        to_else = self.jump("pop_jump_if_false")
        self.expr(node.body)
        to_end = self.jump("jump")
        self.depth -= 1  # the else branch starts without the body's value
        self.patch(to_else)
        self.expr(node.orelse)
        self.patch(to_end)

    def compare_one(self, left, op, right):
        if isinstance(op, (ast.Is, ast.IsNot)):
            other = None
            for a, b in ((left, right), (right, left)):
                if isinstance(b, ast.Constant) and (b.value is None or isinstance(b.value, bool)):
                    other = (a, b.value)
                    break
            if other is None:
                raise HeuristicNotTranslatable(
                    f"'is' with something other than None, True or False: {ast.unparse(left)} "
                    f"{'is' if isinstance(op, ast.Is) else 'is not'} {ast.unparse(right)}")
            self.expr(other[0])
            self.emit({None: "isnone", True: "istrue", False: "isfalse"}[other[1]])
            if isinstance(op, ast.IsNot):
                self.emit("not")
            return
        name = self._COMPARE.get(type(op))
        if name is None:
            raise HeuristicNotTranslatable(f"unsupported comparison {type(op).__name__}")
        self.expr(left)
        self.expr(right)
        self.emit(name)

    def expr_Compare(self, node):
        # a < b < c is (a < b) and (b < c) with b evaluated once; evaluating a pure b twice is the same.
        jumps = []
        left = node.left
        for i, (op, right) in enumerate(zip(node.ops, node.comparators)):
            self.compare_one(left, op, right)
            if i + 1 < len(node.ops):
                jumps.append(self.jump("jump_if_false_or_pop"))
            left = right
        for j in jumps:
            self.patch(j)

    def expr_Call(self, node):
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise HeuristicNotTranslatable(f"a call with keyword or starred arguments: {ast.unparse(node)}")
        f = node.func
        # Methods of arguments: args.get('x'), args['x'].element_size().
        if isinstance(f, ast.Attribute) and self.is_args(f.value):
            if f.attr != "get" or not 1 <= len(node.args) <= 2:
                raise HeuristicNotTranslatable(f"unsupported use of {self.args_name}: {ast.unparse(node)}")
            if len(node.args) == 2 and not isinstance(node.args[1], ast.Constant):
                raise HeuristicNotTranslatable(f"{ast.unparse(node)}: the default is not a constant")
            key = self.param_key(node.args[0])
            self.read.add(self.params[key])
            self.push("param", self.params[key])
            return
        if isinstance(f, ast.Attribute) and f.attr == "element_size" and not self._resolvable(f.value):
            if node.args:
                raise HeuristicNotTranslatable(f"element_size() takes no arguments: {ast.unparse(node)}")
            self.expr(f.value)
            self.emit("element_size")
            return
        if not isinstance(f, (ast.Name, ast.Attribute)) or not self._resolvable(f):
            raise HeuristicNotTranslatable(f"unsupported call {ast.unparse(node)}")
        callee = self.resolve_value(f)
        import builtins
        n = len(node.args)
        known = [(builtins.min, "min", None), (builtins.max, "max", None), (builtins.abs, "abs", 1),
                 (builtins.int, "int", 1), (builtins.float, "float", 1), (builtins.bool, "bool", 1),
                 (triton.next_power_of_2, "next_power_of_2", 1), (triton.cdiv, "cdiv", 2)]
        for obj, op, arity in known:
            if callee is obj:
                break
        else:
            raise HeuristicNotTranslatable(
                f"call of {ast.unparse(f)} ({type(callee).__qualname__}); supported: min, max, abs, int, float, "
                "bool, triton.next_power_of_2, triton.cdiv")
        if arity is None and n < 2:
            raise HeuristicNotTranslatable(f"{op}() with {n} argument(s) (an iterable): {ast.unparse(node)}")
        if arity is not None and n != arity:
            raise HeuristicNotTranslatable(f"{op}() with {n} argument(s): {ast.unparse(node)}")
        for a in node.args:
            self.expr(a)
        if arity is None:
            self.emit(op, n, effect=-(n - 1))
        else:
            self.emit(op)

    def text(self):
        lines = [f"heuristic-program {_HEURISTIC_PROGRAM_VERSION}"]
        lines += [" ".join(parts) for parts in self.code]
        return "\n".join(lines) + "\n"


def translate_heuristic(func, param_names):
    """(program text, "") for a heuristic in the supported subset, else (None, reason)."""
    try:
        code = getattr(func, "__code__", None)
        if code is None or not inspect.isfunction(func):
            raise HeuristicNotTranslatable(f"it is a {type(func).__qualname__}, not a Python function")
        node = _find_heuristic_node(func)
        a = node.args
        if (len(a.args) + len(getattr(a, "posonlyargs", [])) != 1 or a.vararg or a.kwarg or a.kwonlyargs
                or a.defaults):
            raise HeuristicNotTranslatable("it does not take exactly one argument (the args mapping)")
        args_name = (getattr(a, "posonlyargs", []) + a.args)[0].arg
        if isinstance(node, ast.Lambda):
            body = node.body
        else:
            stmts = node.body
            if stmts and isinstance(stmts[0], ast.Expr) and isinstance(stmts[0].value, ast.Constant) \
                    and isinstance(stmts[0].value.value, str):
                stmts = stmts[1:]  # a docstring
            if len(stmts) != 1 or not isinstance(stmts[0], ast.Return) or stmts[0].value is None:
                kinds = ", ".join(type(s).__name__ for s in stmts)
                raise HeuristicNotTranslatable(f"the def is not a single `return <expression>` (it has: {kinds})")
            if node.decorator_list:
                raise HeuristicNotTranslatable("the def is decorated")
            body = stmts[0].value
        t = _HeuristicTranslator(func, list(param_names), args_name)
        t.expr(body)
        assert t.depth == 1, t.depth
        return t.text(), ""
    except HeuristicNotTranslatable as e:
        return None, str(e)
    except RecursionError:
        return None, "the expression is too deeply nested"
    except Exception as e:  # noqa: BLE001 - a translator failure keeps the heuristic in Python
        return None, f"the translator failed: {type(e).__name__}: {e}"


# ----------------------------------------------------------------------------------------------
# Triton's own autotuning cache (Autotuner.check_disk_cache, cache_results=True)
# ----------------------------------------------------------------------------------------------
# The same file under the same key as Triton's: a Python process and the runtime each use what
# the other tuned. Triton hashes str(tuning_key); the runtime's key repr is that string.


def _autotuner_at(top, layer):
    obj = top
    for _ in range(layer):
        obj = obj.fn
    return obj


def _autotune_cache_file(tuner, key_repr, target):
    from triton._C.libtriton import get_cache_invalidating_env_vars
    from triton.runtime.cache import get_cache_manager
    from triton.runtime.jit import JITFunction
    try:
        from triton.runtime.cache import triton_key  # 3.5 and newer
    except ImportError:
        from triton.compiler.compiler import triton_key  # 3.4
    env_vars = get_cache_invalidating_env_vars()
    fn = tuner.fn
    while not isinstance(fn, JITFunction):
        fn = fn.fn
    parts = [triton_key(), _make_backend(_gpu_target(target)).hash(), fn.cache_key, str(sorted(env_vars.items())), key_repr]
    parts += [str(c) for c in tuner.configs]
    cache_key = hashlib.sha256("-".join(parts).encode("utf-8")).hexdigest()
    return get_cache_manager(cache_key), f"{fn.__name__[:150]}.autotune.json"


def autotune_cache_lookup(top, layer, key_repr, target):
    """The index of the config Triton's cache holds as fastest for this key, or None."""
    tuner = _autotuner_at(top, layer)
    cache, name = _autotune_cache_file(tuner, key_repr, target)
    path = cache.get_file(name)
    if not path:
        return None
    from triton import Config
    with open(path) as f:
        timings = {str(Config(**config)): timing for config, timing in json.load(f)["configs_timings"]}
    if not timings:
        return None
    best = min(timings, key=timings.get)
    names = [str(c) for c in tuner.configs]
    return names.index(best) if best in names else None


def autotune_cache_store(top, layer, key_repr, target, timings):
    """Writes the runtime's timings (one [median, p20, p80] per config, inf where it failed,
    negative for a config pruned before timing) as Triton's autotuner writes them."""
    tuner = _autotuner_at(top, layer)
    cache, name = _autotune_cache_file(tuner, key_repr, target)
    key = list(ast.literal_eval(key_repr))
    timed = [(c.__dict__, list(t)) for c, t in zip(tuner.configs, timings) if not c.pre_hook and t[0] >= 0]
    cache.put(json.dumps({"key": key, "configs_timings": timed}), name, binary=False)


def prune_autotune_configs(top, layer, names, values):
    """The indices of the configs Triton's Autotuner.prune_configs keeps for a call whose caller
    arguments are names=values (tensors as TensorArg): early_config_prune, then perf_model with
    top_k, run through Triton's own method."""
    tuner = _autotuner_at(top, layer)
    tuner.nargs = dict(zip(names, values))
    try:
        kept = tuner.prune_configs({})
    finally:
        tuner.nargs = None
    reprs = [str(c) for c in tuner.configs]
    out = []
    for config in kept:
        text = str(config)
        if text not in reprs:
            raise ValueError(f"prune_configs_by returned a config the autotuner does not have: {text}")
        out.append(reprs.index(text))
    return out


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


# ----------------------------------------------------------------------------------------------
# Autotune hooks (Autotuner's pre_hook and post_hook, a Config's pre_hook), run on the dict
# Triton's Autotuner builds: the caller's arguments, what outer wrappers set, and the config's
# all_kwargs(). A pointer argument becomes a torch tensor over its memory when torch has CUDA and
# its size is known; otherwise a stand-in whose other attributes say what is missing.


class HookTensorUnavailable(TypeError):
    """A hook used more of a tensor argument than the runtime can give it."""


class HookTensorArg(TensorArg):
    """A pointer argument a hook receives when it cannot be a torch tensor: `dtype`,
    `data_ptr()` and `element_size()` work; any other attribute raises HookTensorUnavailable."""

    __slots__ = ("_name", "_why")

    def __init__(self, address, dtype_name, name, why):
        super().__init__(address, dtype_name)
        self._name = str(name)
        self._why = str(why)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise HookTensorUnavailable(
            f"the hook used .{attr} of argument '{self._name}', which the runtime cannot give it as a torch tensor: "
            f"{self._why}. From C++ pass it as an at::Tensor or as TypedPtr{{ptr, dtype, bytes}} (with its size in "
            "bytes), in a process where torch with CUDA imports")


class _DeviceBytes:
    """`nbytes` bytes of device memory at `address`, for torch.as_tensor (CUDA array interface)."""

    def __init__(self, address, nbytes):
        self.__cuda_array_interface__ = {"shape": (int(nbytes), ), "typestr": "|u1", "data": (int(address), False),
                                         "version": 2}


def hook_tensor(address, dtype_name, nbytes, name):
    """The argument `name` as a hook sees it: a 1-D torch tensor viewing its `nbytes` bytes as its
    dtype, on the device that holds it; a HookTensorArg saying why when that cannot be."""
    torch = _torch_module()
    if torch is None:
        why = "torch does not import"
    elif not torch.cuda.is_available():
        why = "torch has no CUDA device here (torch.cuda.is_available() is False)"
    elif nbytes <= 0:
        why = "its size is unknown (a plain pointer or a TypedPtr without bytes)"
    else:
        tname = next((t for t, n in _TORCH_DTYPE_NAMES.items() if n == dtype_name), None)
        if tname is None or not hasattr(torch, tname):
            why = f"torch has no dtype for its element type {dtype_name}"
        else:
            try:
                raw = torch.as_tensor(_DeviceBytes(address, nbytes))
                dtype = getattr(torch, tname)
                size = torch.empty((), dtype=dtype).element_size()
                return raw[:nbytes - nbytes % size].view(dtype)
            except Exception as e:  # noqa: BLE001 - reported through the stand-in
                why = f"torch could not view it: {type(e).__name__}: {e}"
    return HookTensorArg(address, dtype_name, name, why)


def autotune_hook_args(top, layer, config_index, names, values, num_passed, grid):
    """The dict autotuner `layer`'s hooks receive for config `config_index`, as Autotuner builds
    it ({**nargs, **kwargs, **config.all_kwargs()}): the caller's arguments (the first
    `num_passed` names), the `grid` and `warmup` that kernel[grid](...) passes on as keywords,
    what outer wrappers set (the other names), then config.all_kwargs()."""
    tuner = _autotuner_at(top, layer)
    args = dict(zip(names[:num_passed], values[:num_passed]))
    args["grid"] = tuple(grid)
    args["warmup"] = False
    args.update(zip(names[num_passed:], values[num_passed:]))
    args.update(tuner.configs[config_index].all_kwargs())
    return args


def _hook_stream(stream):
    """torch's current stream set to the launch's stream while a hook runs, so its tensor
    operations are ordered with the kernels (nothing when torch has no CUDA or it is stream 0)."""
    import contextlib
    torch = _torch_module()
    if not stream or torch is None or not torch.cuda.is_available():
        return contextlib.nullcontext()
    return torch.cuda.stream(torch.cuda.ExternalStream(stream))


def call_autotune_hook(top, layer, config_index, which, args, stream, reset_only, exception_message):
    """Runs one hook as Triton's Autotuner does: "config_pre_hook" is configs[config_index].pre_hook(args);
    "pre_hook" is the autotuner's pre_hook(args) (with reset_only=True after tuning); "post_hook" its
    post_hook(args, exception=...) (a RuntimeError carrying the launch's error when it failed)."""
    tuner = _autotuner_at(top, layer)
    with _hook_stream(stream):
        if which == "config_pre_hook":
            tuner.configs[config_index].pre_hook(args)
        elif which == "pre_hook":
            if reset_only:
                tuner.pre_hook(args, reset_only=True)
            else:
                tuner.pre_hook(args)
        else:
            exception = None if exception_message is None else RuntimeError(exception_message)
            tuner.post_hook(args, exception=exception)

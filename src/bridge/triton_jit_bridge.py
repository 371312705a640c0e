"""Bridge between libtriton_jit and the installed Triton.

The C++ runtime embeds this module's source and calls only the functions below. Everything that
differs between Triton versions (3.4 and newer) is handled here, so the C++ side never branches
on a version.
"""

import ast
import hashlib
import importlib.util
import inspect
import json
import os
import re
import sys
import traceback

import triton

_modules = {}  # canonical path -> imported module


class KernelLookupFailure(Exception):
    """Raised with `kind` in {"missing_file", "import_failed", "preload_failed", "missing_function",
    "not_jit"}."""

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
    digest = hashlib.sha1(path.encode()).hexdigest()[:16]
    stem = os.path.splitext(os.path.basename(path))[0]
    return f"triton_jit_kernels_{stem}_{digest}"


MODULE_PREFIX = "module:"  # a source named by module ("module:pkg.sub.kernels"), not by file


def _import_source(source):
    """The module a function is loaded from: `source` is a file path, or MODULE_PREFIX and a
    module name."""
    if source.startswith(MODULE_PREFIX):
        return _import_module(source[len(MODULE_PREFIX):])
    return _import_file(source)


def _import_module(name):
    """Imports `name` the normal way, so that its packages' __init__ run first and its relative
    imports work."""
    preload()
    try:
        return importlib.import_module(name)
    except BaseException as e:  # noqa: BLE001 - any failure of user code is reported whole
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        raise KernelLookupFailure("import_failed", f"importing the module {name} failed: {type(e).__name__}: {e}",
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
    module = importlib.util.module_from_spec(spec)
    # Triton reads globals and source through the module, so it must be registered.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as e:  # noqa: BLE001 - any failure of user code is reported whole
        del sys.modules[name]
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        raise KernelLookupFailure("import_failed", f"importing {path} failed: {type(e).__name__}: {e}",
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


def _gpu_target(target):
    from triton.backends.compiler import GPUTarget
    backend, arch, warp_size = target
    return GPUTarget(backend, arch, warp_size)


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


def compile(fn, specialization, options, target):
    """Compiles `fn` for `specialization` (Triton's list of (type, hint) tuples; constexprs as
    ("constexpr", value)) with `options` (dict) for `target` ((backend, arch, warp_size)).
    Returns the cubin and the launch metadata: a dict holding every field of
    TRITON_JIT_KERNEL_FIELDS (src/kernel/kernel_fields.h), read by name in C++."""
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
        "cubin": kernel.asm["cubin"],
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
        "target": [gpu_target.backend, int(gpu_target.arch), int(gpu_target.warp_size)],
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
# serves compile jobs. Messages are pickles; the worker's own stdout is moved to stderr so that
# anything Triton prints cannot corrupt the stream.
_WORKER_BOOT = (
    "import os, pickle, sys\n"
    "out = os.fdopen(os.dup(1), 'wb'); os.dup2(2, 1)\n"
    "ns = {'__name__': 'triton_jit_bridge'}\n"
    "exec(compile(pickle.load(sys.stdin.buffer), '<triton_jit_bridge>', 'exec'), ns)\n"
    "ns['_serve'](sys.stdin.buffer, out)\n")


def _serve(inp, out):
    import pickle
    while True:
        try:
            job = pickle.load(inp)
        except EOFError:
            return
        if job is None:
            return
        pickle.dump(_run_job(job), out)
        out.flush()


def worker_context():
    """What a worker needs to import kernels as this process does: its sys.path (package roots
    added at run time, folders of kernels imported by path) and the modules to preload."""
    return {"sys_path": list(sys.path), "preload": list(_preloaded) + list(_preload_pending)}


def _apply_context(context):
    # The parent's sys.path exactly: a worker's own first entry (its working directory, as for
    # any `python -c`) could make a file the parent imported on its own look like a package's.
    sys.path[:] = context["sys_path"]
    set_preload(context["preload"])


def _run_job(job):
    path, name, items, options, target, context = job
    fn = None
    try:
        _apply_context(context)
        fn = load_function(path, name)[0]
        return ("ok", compile(fn, specialization(items), options, target))
    except KernelLookupFailure as e:
        return ("error", ("KernelLookupFailure", str(e), path, 0, e.tb or str(e)))
    except BaseException as e:  # noqa: BLE001 - reported to the parent whole
        return ("error", describe_exception(e, fn))


def compile_many(jobs, workers, python, source, on_done):
    """Runs `jobs` ((source, name, specialization items, options, target, worker_context())
    tuples, the source as load_function takes it, the items as `specialization` reads them) on `workers` processes of `python`, calling
    on_done(index, status, result) in this thread as each finishes."""
    import pickle
    import queue
    import subprocess
    import threading

    pending = queue.Queue()
    for i, job in enumerate(jobs):
        pending.put((i, job))
    done = queue.Queue()

    def start():
        proc = subprocess.Popen([python, "-c", _WORKER_BOOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        pickle.dump(source, proc.stdin)
        proc.stdin.flush()
        return proc

    def stop(proc):
        try:
            pickle.dump(None, proc.stdin)
            proc.stdin.close()
        except BaseException:  # noqa: BLE001 - already gone
            pass
        proc.wait()

    def worker():
        # Every job taken is reported exactly once, whatever happens to the process.
        proc = None
        while True:
            try:
                i, job = pending.get_nowait()
            except queue.Empty:
                break
            try:
                if proc is None:
                    proc = start()
                pickle.dump(job, proc.stdin)
                proc.stdin.flush()
                done.put((i,) + pickle.load(proc.stdout))
            except BaseException as e:  # noqa: BLE001 - the process failed: report, start anew
                code = proc.poll() if proc is not None else None
                done.put((i, "error", ("WorkerError", f"the compile process ({python}) failed: "
                                       f"{type(e).__name__}: {e} (exit code {code})", job[0], 0, "")))
                if proc is not None:
                    proc.kill()
                    proc.wait()
                    proc = None
        if proc is not None:
            stop(proc)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, min(workers, len(jobs))))]
    for t in threads:
        t.start()
    for _ in range(len(jobs)):
        i, status, result = done.get()
        on_done(i, status, result)
    for t in threads:
        t.join()


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

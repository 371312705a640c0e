"""Compilation: one function compiled for one specialization, and what the C++ side reads back
(binary, metadata, the launch interface, the files it depends on)."""

import inspect
import json
import os
import sys

import triton

from .targets import _arch_number, _gpu_target, _make_backend
from .triton_key import _store_triton_key, _take_stored_triton_key
from .versions import _dependency_types, _pin_constexpr_globals, launch_global_scratch_size, source_class


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
# On AMD, Triton's launcher passes NULL for the global scratch before 3.8: global_scratch_size is
# what the launch allocates (versions.launch_global_scratch_size), 0 there.
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
    source = source_class(fn)  # refuses a Gluon kernel before any work where this Triton cannot compile it
    gpu_target = _gpu_target(target)
    backend = _make_backend(gpu_target)
    dependencies, constexpr_globals = _dependencies(fn)
    _pin_constexpr_globals(fn, constexpr_globals)
    opts, signature, constexprs, attrs = _pack(fn, backend, specialization, _call_options(fn, options))
    src = source(fn, signature, constexprs, attrs)
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
        "global_scratch_size": launch_global_scratch_size(gpu_target.backend, md),
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

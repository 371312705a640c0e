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


class _RangedPointer(_Pointer):
    """A pointer into a buffer of known size: Triton's HIP backend reads ptr_range()
    (HIPBackend.is_within_2gb) as it reads a torch tensor's untyped_storage().size()."""

    def __init__(self, address, dtype, storage_bytes):
        super().__init__(address, dtype)
        self._storage_bytes = storage_bytes

    def ptr_range(self):
        return self._storage_bytes


def make_pointer(address, dtype_name, storage_bytes=None):
    """A pointer stand-in; with `storage_bytes`, one whose buffer size Triton's HIP binder sees."""
    import triton.language as tl
    from triton.runtime.jit import type_canonicalisation_dict
    canonical = type_canonicalisation_dict[dtype_name]
    for obj in vars(tl).values():
        if isinstance(obj, tl.dtype) and type_canonicalisation_dict.get(str(obj).split(".")[-1]) == canonical:
            if storage_bytes is not None:
                return _RangedPointer(address, obj, storage_bytes)
            return _Pointer(address, obj)
    raise KeyError(dtype_name)


def hip_target(text):
    """GPUTarget's fields for "hip:gfx942": the warp size as Triton's AMD backend takes it (64
    before gfx10, else 32)."""
    arch = text.split(":")[1]
    return ("hip", arch, 32 if int(arch[3:-2]) >= 10 else 64)


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
    bind = create_function_from_signature(fn.signature, fn.params, make_backend(GPUTarget(*target)))
    return _without_torch_allowed(bind) if target[0] == "hip" else bind


def _without_torch_allowed(bind):
    """Triton 3.4 to 3.7's HIPBackend.is_within_2gb imports torch before anything else (3.8 asks
    whether torch imports), so without torch Triton's HIP binder raises for every pointer. Where
    torch does not import, the binder runs with a stand-in module whose Tensor no argument is:
    Triton then decides as it does beside torch for these arguments (none is a torch tensor; a
    stand-in with ptr_range() is read through it)."""
    try:
        import torch  # noqa: F401
        return bind
    except ImportError:
        pass
    import sys
    import types

    def run(*args, **kwargs):
        stand_in = types.ModuleType("torch")
        stand_in.Tensor = type("Tensor", (), {})
        absent = "torch" not in sys.modules
        saved = sys.modules.get("torch")
        sys.modules["torch"] = stand_in
        try:
            return bind(*args, **kwargs)
        finally:
            if absent:
                del sys.modules["torch"]
            else:
                sys.modules["torch"] = saved
    return run


def triton_specialization(fn, calls, target=("cuda", 90, 32)):
    """repr of Triton's specialization list for each call in `calls` (a list of (args, kwargs)),
    computed by the binder Triton's JIT itself builds for `fn`; "error: TypeError" for a call the
    binder rejects (a dtype given to a runtime parameter, say)."""
    bind = binder(fn, target)

    def one(args, kwargs):
        try:
            return repr(bind(*args, **kwargs)[1])
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
    it needs for the device: the binder's specialization, _pack_args, the function's AST source
    (GluonASTSource for a @gluon.jit function), triton.compile.
    None where this Triton has no _pack_args (3.4 packs inline in run)."""
    from triton import knobs
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, compile, make_backend
    source = ASTSource
    if fn.is_gluon():  # what GluonJITFunction.create_binder sets as its ASTSource
        from triton.experimental.gluon._runtime import GluonASTSource as source
    if not hasattr(fn, "_pack_args"):
        return None
    gpu_target = GPUTarget(*target)
    backend = make_backend(gpu_target)
    kwargs = dict(kwargs or {})
    kwargs["debug"] = kwargs.get("debug", fn.debug) or knobs.runtime.debug
    if hasattr(knobs.compilation, "instrumentation_mode"):
        kwargs["instrumentation_mode"] = knobs.compilation.instrumentation_mode
    bound_args, specialization, options = binder(fn, target)(*args, **kwargs)
    options, signature, constexprs, attrs = fn._pack_args(backend, kwargs, bound_args, specialization, options)
    kernel = compile(source(fn, signature, constexprs, attrs), target=gpu_target, options=options.__dict__)
    return kernel.metadata.hash, kernel.asm["hsaco" if target[0] == "hip" else "cubin"]


def triton_num_stages(fn, args, kwargs=None, target=("cuda", 90, 32)):
    """The num_stages JITFunction.run compiles this call with for `target`: that of the options
    _pack_args makes of the launch's keywords (backend.parse_options; inline in 3.4's run), so
    the backend's default where the launch names none."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    backend = make_backend(GPUTarget(*target))
    kwargs = dict(kwargs or {})
    if hasattr(fn, "_pack_args"):
        bound_args, specialization, options = binder(fn, target)(*args, **kwargs)
        options = fn._pack_args(backend, kwargs, bound_args, specialization, options)[0]
    else:
        options = backend.parse_options(kwargs)
    return options.num_stages


def make_descriptor(address, dtype_name, shape, strides, block_shape, padding="zero"):
    """Triton's TensorDescriptor over a pointer stand-in. Built without __post_init__, whose checks
    read torch-only attributes (itemsize); Triton's specializer reads base.dtype and block_shape."""
    from triton.tools.tensor_descriptor import TensorDescriptor
    d = object.__new__(TensorDescriptor)
    d.base = make_pointer(address, dtype_name)
    d.shape, d.strides, d.block_shape, d.padding = list(shape), list(strides), list(block_shape), padding
    return d


class _Tensor(_Pointer):
    """Stands for a tensor as heuristics and autotuners see it: dtype is torch's when torch
    imports (as x.dtype is), with element_size()."""

    def element_size(self):
        size = getattr(self.dtype, "itemsize", None)
        return size if size is not None else self.dtype.primitive_bitwidth // 8


def make_tensor(address, dtype_name):
    """A tensor stand-in of dtype `dtype_name` (float16, bfloat16, float32, int32, ...)."""
    try:
        import torch
        return _Tensor(address, getattr(torch, dtype_name))
    except ImportError:
        return _Tensor(address, make_pointer(address, dtype_name).dtype)


def wrappers_call(obj, args, pick=0):
    """What Triton's own wrappers (Heuristics.run, Autotuner.run) hand to JITFunction.run for
    obj.run(*args), JITFunction.run replaced by a recorder and timing by a fixed choice (config
    `pick` of each autotuner): (the JITFunction, its autotuners outermost first, the positional
    arguments, the keywords but grid and warmup). Raises what Triton's call raises."""
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction
    inner, tuners = obj, []
    while not isinstance(inner, JITFunction):
        if isinstance(inner, Autotuner):
            tuners.append(inner)
        inner = inner.fn
    captured = []
    inner.run = lambda *a, **k: captured.append((a, k))  # the instance attribute shadows the method
    for t in tuners:
        t.cache.clear()
        t._bench = lambda *a, config, _t=t, **meta: [0.0 if _t.configs.index(config) == pick else 1.0] * 3
    try:
        obj.run(*args, grid=(1, ), warmup=False)
    finally:
        vars(inner).pop("run", None)
        for t in tuners:
            vars(t).pop("_bench", None)
    run_args, run_kwargs = captured[-1]
    return inner, tuners, run_args, {k: v for k, v in run_kwargs.items() if k not in ("grid", "warmup")}


def decorated_call(obj, args, pick=0):
    """What Triton's own wrappers hand to JITFunction.run for obj.run(*args) (wrappers_call):
    returns (Triton's specialization repr, num_warps, num_stages, the autotuners' tuning keys as
    str)."""
    inner, tuners, run_args, kwargs = wrappers_call(obj, args, pick)
    _, specialization, options = binder(inner)(*run_args, **kwargs)
    keys = [str(key) for t in tuners for key in t.cache]
    return repr(specialization), kwargs.get("num_warps", 4), kwargs.get("num_stages", 3), keys


class _TargetOnlyDriver:
    """Enough of a Triton driver for Autotuner.check_disk_cache on a machine without a GPU."""

    def get_current_target(self):
        from triton.backends.compiler import GPUTarget
        return GPUTarget("cuda", 90, 32)


def triton_autotune_cache(tuner, key, timings=None):
    """Triton's own Autotuner.check_disk_cache for `key` (a tuple) as on a cuda:90 device. With
    `timings` (one [median, p20, p80] per config) it benchmarks to those and writes the cache;
    without, it reads it. Returns (whether the cache answered, the index of the config taken)."""
    from triton.runtime import driver as config  # the DriverConfig instance
    saved = dict(vars(config))
    config.set_active(_TargetOnlyDriver())

    def bench():
        tuner.configs_timings = dict(zip(tuner.configs, timings))
        tuner.cache[key] = min(tuner.configs_timings, key=tuner.configs_timings.get)

    try:
        tuner.cache.clear()
        used = tuner.check_disk_cache(key, tuner.configs, bench)
    finally:
        vars(config).clear()
        vars(config).update(saved)
    chosen = tuner.cache.get(key)
    return used, (tuner.configs.index(chosen) if chosen is not None else None)


# ---- autotune hooks (tests/kernels/decorated_hooks.py report to builtins.triton_jit_hook_log) ----

HOOK_EVENTS = []


def _hook_value(value):
    if hasattr(value, "data_ptr") and hasattr(value, "dtype"):
        return f"tensor(0x{value.data_ptr():x}, {value.dtype})"
    return repr(value)


def format_hook_event(name, args, extra):
    items = [f"{k}={_hook_value(v)}" for k, v in args.items()]
    items += [f"{k}={v!r}" for k, v in extra.items()]
    return f"{name}({', '.join(items)})"


def install_hook_recorder(note=None):
    """Makes the hooks of decorated_hooks.py append their calls to HOOK_EVENTS (and call `note()`,
    which lets a C++ test place them among the fake driver's launches)."""
    import builtins
    HOOK_EVENTS.clear()

    def record(name, args, extra):
        HOOK_EVENTS.append(format_hook_event(name, args, extra))
        if note is not None:
            note()

    builtins.triton_jit_hook_log = record


def hook_events():
    return list(HOOK_EVENTS)


def triton_hook_events(obj, args, pick=0, launches=1, grid=(1, )):
    """The hook calls and launches of Triton's own Autotuner.run(*args) made `launches` times, as
    strings: each config is timed by one call of its kernel_call (config `pick` is the fastest),
    JITFunction.run records "launch(num_warps=W)" instead of launching."""
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction
    inner, tuners = obj, []
    while not isinstance(inner, JITFunction):
        if isinstance(inner, Autotuner):
            tuners.append(inner)
        inner = inner.fn
    install_hook_recorder()
    inner.run = lambda *a, **k: HOOK_EVENTS.append(f"launch(num_warps={k.get('num_warps', 4)})")
    for t in tuners:
        t.cache.clear()
        counter = [0]

        def bench(kernel_call, quantiles, _counter=counter):
            index = _counter[0]
            _counter[0] += 1
            kernel_call()
            return [0.0 if index == pick else 1.0] * 3

        t.__dict__["do_bench"] = bench  # shadows the cached_property
    try:
        for _ in range(launches):
            obj.run(*args, grid=grid, warmup=False)
    finally:
        del inner.run
        for t in tuners:
            t.__dict__.pop("do_bench", None)
    return list(HOOK_EVENTS)


def hip_launcher_layout(fn, args, target):
    """The launch Triton's own AMD launcher makes for this call, from the signature its JIT builds
    with the binder: a dict with "params", its kernel parameter array in order ("argI" for call
    argument I, "global_scratch", "profile_scratch"), "types", the C type each argI is passed as,
    "warp_size", the factor of num_warps in its block size, and "global_scratch_null", whether it
    passes NULL there. Up to Triton 3.6 HIPLauncher generates a C launcher per kernel
    (make_launcher in triton/backends/amd/driver.py), read here from its source (it embeds the HIP
    runtime's path only, so a stand-in path is given; nothing is compiled). From 3.7 on one C
    launcher (driver.c's launch) serves every kernel: the non-constexpr arguments, then NULL, then
    the profile scratch (3.8: the global scratch it allocates, as the CUDA launcher does, in place of
    NULL), block warp_size * num_warps with HIPLauncher's metadata.warp_size; the layout is read
    from that source, which must still say so."""
    import inspect
    import os
    import re

    import triton.backends.amd.driver as amd
    bound_args, specialization, options = binder(fn, target)(*args)
    signature = {i: s[0] for i, s in enumerate(specialization)}
    constants = {(i, ): s[1] for i, s in enumerate(specialization) if s[0] == "constexpr"}
    float_storage = {"fp16": "uint16_t", "bf16": "uint16_t", "fp32": "uint32_t", "f32": "uint32_t", "fp64": "uint64_t"}
    float_storage.update(getattr(amd, "FLOAT_STORAGE_TYPE", {}))
    types = {f"arg{i}": float_storage.get(ty) or amd.ty_to_cpp(ty) for i, ty in signature.items() if ty != "constexpr"}
    if hasattr(amd, "make_launcher"):
        saved = amd._get_path_to_hip_runtime_dylib
        amd._get_path_to_hip_runtime_dylib = lambda: "/stand-in/libamdhip64.so"
        try:
            extra = [None] * (len(inspect.signature(amd.make_launcher).parameters) - 3)  # tensordesc_meta from 3.6
            src = amd.make_launcher(constants, signature, target[2], *extra)
        finally:
            amd._get_path_to_hip_runtime_dylib = saved
        params = [p.strip().lstrip("&") for p in re.search(r"void \*params\[\] = \{ ([^}]*) \}", src).group(1).split(",")]
        launch = re.search(r"hipModuleLaunchKernel\(function, gridX, gridY, gridZ, (\d+)\s*\*\s*num_warps, 1, 1, "
                           r"shared_memory, stream, params, 0\)", src)
        return {
            "params": params,
            "types": types,
            "warp_size": int(launch.group(1)) if launch else -1,
            "global_scratch_null": "hipDeviceptr_t global_scratch = 0;" in src,
        }
    with open(os.path.join(os.path.dirname(amd.__file__), "driver.c")) as f:
        src = f.read()
    null_at = src.find("extractPointer(params[params_idx++], Py_None)")  # 3.7: NULL
    global_at = src.find("extractPointer(params[params_idx++], global_scratch_obj)")  # 3.8: allocated
    scratch_at = max(null_at, global_at)
    profile_at = src.find("extractPointer(params[params_idx++], profile_scratch_obj)")
    args_at = src.find("extractor.extract(params[params_idx++], current_arg)")
    if min(scratch_at, profile_at, args_at) < 0 or not args_at < scratch_at < profile_at:
        raise RuntimeError("this Triton's backends/amd/driver.c no longer builds the parameters as 3.7 did: "
                           "update tests/support/triton_reference.py to read its layout")
    block = "warp_size * num_warps" in src
    return {
        "params": list(types) + ["global_scratch", "profile_scratch"],
        "types": types,
        "warp_size": target[2] if block else -1,
        "global_scratch_null": null_at >= 0,
    }

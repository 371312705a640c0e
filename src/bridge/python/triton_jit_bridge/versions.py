"""What differs between Triton versions (3.4 and newer) and no attribute reveals: the version, the
types the dependency walk follows, Triton 3.4's key of tl.constexpr globals, the form of the launch
hooks and of a compiled kernel's metadata, the source class a function compiles through (Gluon from
3.5)."""

import hashlib
import re
from collections import namedtuple

import triton


def triton_version():
    return triton.__version__


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


def hook_chain_type():
    """triton.knobs.HookChain (3.5 and newer: each launch hook knob holds one, empty by default,
    which Triton calls on every launch), or None (3.4: a knob holds None or the hook itself)."""
    from triton import knobs
    return getattr(knobs, "HookChain", None)


def launch_hook_set(hook):
    """Whether a launch hook knob's value does something when Triton calls it: anything but None
    and an empty HookChain."""
    if hook is None:
        return False
    chain_type = hook_chain_type()
    if chain_type is not None and isinstance(hook, chain_type):
        return bool(hook.calls)
    return True


def kernel_metadata(metadata):
    """A compiled kernel's `metadata` namedtuple, from its JSON dict, as CompiledKernel.__init__
    makes it: the target a GPUTarget, and (3.4 and 3.5, the versions with the field) cluster_dims
    a tuple."""
    from triton.backends.compiler import GPUTarget
    target = metadata["target"]
    metadata["target"] = GPUTarget(target["backend"], target["arch"], target["warp_size"])
    if "cluster_dims" in metadata:
        metadata["cluster_dims"] = tuple(metadata["cluster_dims"])
    return namedtuple("KernelMetadata", sorted(metadata.keys()))(**metadata)


# Gluon (triton.experimental.gluon) is in every supported Triton, but only from 3.5 does its
# GluonASTSource.make_ir compile for the target it is given: 3.4's asks the GPU driver for the
# current device's target (failing without a GPU, and compiling for the wrong device with an
# explicit one) and fixes 32 threads per warp.
GLUON_MIN_VERSION = (3, 5)


def is_gluon(fn):
    """Whether `fn` is a @gluon.jit function (GluonJITFunction.is_gluon; JITFunction's says no)."""
    probe = getattr(fn, "is_gluon", None)
    return bool(callable(probe) and probe())


def gluon_refusal():
    """Why this Triton cannot compile Gluon kernels for the runtime, or None where it can."""
    if _triton_version() < GLUON_MIN_VERSION:
        return (f"Gluon kernels need Triton {'.'.join(map(str, GLUON_MIN_VERSION))} or newer (installed: "
                f"{triton.__version__}): this Triton's GluonASTSource compiles for the GPU of the running "
                f"process only, not for a given target; upgrade Triton, or write the kernel with @triton.jit")
    try:
        from triton.experimental.gluon._runtime import GluonASTSource  # noqa: F401
    except ImportError as e:
        return (f"this Triton ({triton.__version__}) has no triton.experimental.gluon._runtime.GluonASTSource, "
                f"which Gluon kernels compile through ({type(e).__name__}: {e})")
    return None


def source_class(fn):
    """The AST source JITFunction.run compiles `fn` through: GluonASTSource for a @gluon.jit
    function, ASTSource otherwise. Triton's JIT takes it from fn.ASTSource, which create_binder
    sets for the current GPU; chosen here by is_gluon, as triton._filecheck does, since the
    runtime compiles for explicit targets without a GPU."""
    from triton.compiler import ASTSource
    if not is_gluon(fn):
        return ASTSource
    refusal = gluon_refusal()
    if refusal is not None:
        raise NotImplementedError(f"{fn.fn.__qualname__} is a @gluon.jit function; {refusal}")
    from triton.experimental.gluon._runtime import GluonASTSource
    return GluonASTSource


def launch_global_scratch_size(backend, metadata):
    """Bytes of global scratch per program the launcher allocates, as Triton's own launcher for
    the backend does: the metadata's global_scratch_size, except on AMD before 3.8, whose launcher
    passes NULL whatever the metadata says (3.4 to 3.6: `hipDeviceptr_t global_scratch = 0` in
    make_launcher's source; 3.7: driver.c's extractPointer(..., Py_None)); 3.8's HIPLauncher
    allocates it as the CUDA launcher does."""
    size = int(getattr(metadata, "global_scratch_size", 0))
    if backend == "hip" and _triton_version() < (3, 8):
        return 0
    return size


def hip_buffer_ops():
    """Whether the installed Triton's HIP backend adds 'S' to a pointer argument whose buffer
    holds at most 2**31 - 1 bytes (HIPBackend.get_tensor_specialization, get_arg_specialization
    in 3.4 and 3.5): its knob amd.use_buffer_ops (AMDGCN_USE_BUFFER_OPS), off by default up to
    3.5 and on from 3.6. Read at each call, as Triton's binder reads it at each launch."""
    from triton import knobs
    amd = getattr(knobs, "amd", None)
    return bool(getattr(amd, "use_buffer_ops", False)) if amd is not None else False


def descriptor_fields(desc):
    """The fields of a host TensorDescriptor that decide its launch, as this Triton's class has them:
    (base, shape, strides, block_shape, padding). Triton 3.4's class has no padding (loads pad with
    zeros); 3.7 added round_f32_to_tf32, which the runtime's descriptors do not carry, so a
    descriptor asking for it is refused rather than launched differently."""
    if getattr(desc, "round_f32_to_tf32", False):
        raise ValueError("a TensorDescriptor with round_f32_to_tf32=True, which the runtime does not support; "
                         "round the tensor before the call or pass round_f32_to_tf32=False")
    return desc.base, desc.shape, desc.strides, desc.block_shape, getattr(desc, "padding", "zero")


def new_host_descriptor(base, shape, strides, block_shape, padding):
    """Triton's own host TensorDescriptor over `base` (the class config pre_hooks expect: FlagGems
    sets `.block_shape` on it), made without __post_init__'s checks, which the runtime already ran on
    the descriptor and which need a real tensor `base` may not be. Only the fields this Triton's
    class has are set (no padding on 3.4)."""
    from triton.tools.tensor_descriptor import TensorDescriptor
    d = object.__new__(TensorDescriptor)
    d.base, d.shape, d.strides, d.block_shape = base, list(shape), list(strides), list(block_shape)
    if "padding" in getattr(TensorDescriptor, "__dataclass_fields__", {}):
        d.padding = padding
    if "round_f32_to_tf32" in getattr(TensorDescriptor, "__dataclass_fields__", {}):
        d.round_f32_to_tf32 = False
    return d


# The Triton versions whose JITFunction.run triton_jit.install() was tested against (the CI's
# version matrix, scripts/test-triton-versions.sh): run(self, *args, grid, warmup, **kwargs), the
# same key from the same binder. Outside it, the installed run hands every call to Triton's own.
INSTALL_TESTED_VERSIONS = ((3, 4), (3, 9))


def install_supported():
    """Whether triton_jit.install() may route this Triton's launches through the runtime."""
    low, high = INSTALL_TESTED_VERSIONS
    return low <= _triton_version() <= high


def async_compile_checker():
    """A function telling whether a Triton async-compile mode is active (3.5 and newer have one): its compiles are
    futures Triton's own run resolves, so such calls go to Triton's run."""
    try:
        from triton.runtime import _async_compile
    except ImportError:
        return lambda: False
    return lambda: _async_compile.active_mode.get() is not None


def async_compile_mode_var():
    """The ContextVar async_compile_checker()'s function reads (its value is not None while a mode is
    active), for a reader without a Python call (triton_jit.install()'s C++ run); None where this
    Triton has no async-compile mode."""
    try:
        from triton.runtime import _async_compile
    except ImportError:
        return None
    return getattr(_async_compile, "active_mode", None)


def instrumentation_knobs():
    """An object whose `instrumentation_mode` is Triton's knob (TRITON_INSTRUMENTATION_MODE, which
    Triton's run adds to every call's options from 3.5 on), or an empty mode where this Triton
    has no such knob (3.4)."""
    from types import SimpleNamespace

    from triton import knobs
    compilation = getattr(knobs, "compilation", None)
    if compilation is not None and hasattr(compilation, "instrumentation_mode"):
        return compilation
    return SimpleNamespace(instrumentation_mode="")


# The sha256 of ConstexprFunction.__call__'s source (dedented) in the Triton versions whose host
# call triton_jit.install() serves from C++: 3.5.1 to 3.9.0 have the same one. It unwraps each
# argument's tl.constexpr, drops the compiler's _semantic, and, without it, returns what the
# wrapped function returns.
_CONSTEXPR_CALL_SOURCES = frozenset({"36b72af5f345edef731cb016235210e2799ab3284b442e5368ed5d400e494ec4"})


def constexpr_function_type():
    """triton.runtime.jit.ConstexprFunction (3.5 and newer: triton.cdiv and the other
    @triton.constexpr_function helpers) where its __call__ is one the runtime knows (its source
    among _CONSTEXPR_CALL_SOURCES), whose host calls triton_jit.install() may then serve; None
    otherwise (3.4 has no such type; a Triton that changed it, or installed without its sources,
    keeps its own)."""
    import inspect
    import textwrap

    import triton.runtime.jit as jit
    cls = getattr(jit, "ConstexprFunction", None)
    call = getattr(cls, "__dict__", {}).get("__call__")
    try:
        source = textwrap.dedent(inspect.getsource(call))
    except (OSError, TypeError):
        return None
    return cls if hashlib.sha256(source.encode("utf-8")).hexdigest() in _CONSTEXPR_CALL_SOURCES else None

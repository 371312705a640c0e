"""Kernel launches on JAX values inside a trace (jax.jit, and a triton_jit.Function's forward and
backward under jax.jit): each launch becomes an XLA custom call, "triton_jit_launch", whose handler
(the extension's XLA FFI handler, python/src/xla_ffi.cpp) launches the kernel through the same
runtime on XLA's GPU stream (CUDA's, or HIP's on ROCm) with XLA's device buffers.

Under a trace there is no memory yet, and JAX values are immutable, so the arrays a kernel writes
are declared: ``triton_jit.empty(shape, dtype, like=x)`` with a traced ``x`` gives an ``Output``
(shape and dtype); a launch that is passed one makes it a result of the custom call, and the
launch's result is then ``out.value`` (a triton_jit.Function's forward may return the Output itself:
apply() hands back its value). An Output passed to a second launch is that call's operand and
result at once (aliased), so kernels may accumulate into it.

    @jax.jit
    def add(x, y):
        out = triton_jit.empty(x.shape, like=x)
        add_kernel[(triton_jit.cdiv(x.size, 1024), )](x, y, out, x.size, BLOCK=1024)
        return out.value

The call's other arguments (scalars, constexprs, options, the grid) are fixed when it is traced:
with its buffers replaced by stand-ins, the launch is prepared then (converted, specialized, its
errors raised where it was written) and named by an integer id, the custom call's `launch`
attribute. A launch of concrete arrays on a GPU (no trace) goes straight to the runtime.
"""
import math

from . import _C
from .errors import ArgumentError, NoDeviceError

TARGET = "triton_jit_launch"

_registered = False
_prepared = {}  # a traced launch's arguments -> the id of its prepared launch


class Output:
    """An array a kernel launched under a JAX trace will write: `shape` and `dtype` now; after
    the launch, `value` (the custom call's result)."""

    __slots__ = ("shape", "dtype", "value")

    def __init__(self, shape, dtype):
        import jax.numpy as jnp
        self.shape = tuple(int(d) for d in shape)
        self.dtype = jnp.dtype(dtype)
        self.value = None

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    def __jax_array__(self):
        return resolve(self)

    def __repr__(self):
        state = "written" if self.value is not None else "not written yet"
        return f"triton_jit Output(shape={self.shape}, dtype={self.dtype.name}, {state})"


def resolve(x):
    """x, or the value of an Output (raising if no launch wrote it); tuples and lists element-wise."""
    if isinstance(x, Output):
        if x.value is None:
            raise ArgumentError(f"{x!r} was returned, or used as an array, before any kernel launch wrote it")
        return x.value
    if isinstance(x, (tuple, list)):
        return type(x)(resolve(v) for v in x)
    return x


def is_tracer(x):
    try:
        import jax
    except ImportError:
        return False
    return isinstance(x, jax.core.Tracer)


def available():
    """Whether the extension was built with the XLA FFI handler (jax importable at build time)."""
    return _C._xla_ffi_handler() is not None


def _register():
    global _registered
    if not _registered:
        import jax
        # The same handler for JAX on ROCm: XLA passes the platform's stream (a hipStream_t there),
        # which the runtime launching through the HIP runtime takes where a CUstream goes. A
        # platform this jaxlib lacks keeps the registration pending (xla_client), harmlessly.
        for platform in ("CUDA", "ROCM"):
            jax.ffi.register_ffi_target(TARGET, _C._xla_ffi_handler(), platform=platform)
        _registered = True


class _Buffer:
    """The stand-in of a custom call's buffer while its launch is prepared: a tagged address the
    handler replaces, and the element type."""

    __slots__ = ("address", "dtype")

    def __init__(self, index, dtype):
        self.address = _C._deferred_buffer_address(index)
        self.dtype = dtype

    def data_ptr(self):
        return self.address


def _is_jax_value(x):
    return isinstance(x, Output) or is_tracer(x) or type(x).__module__.split(".", 1)[0] in ("jax", "jaxlib")


def _key_of(x):
    if isinstance(x, _Buffer):
        return (_Buffer, x.address, x.dtype)
    return (type(x), x)


def deferred_launch(kernel, grid, args, kwargs):
    """The extension's hook for a launch whose arguments failed to convert: under a JAX trace, the
    launch as a custom call; NotImplemented otherwise (the launch's own error is raised)."""
    values = (*args, *kwargs.values())
    if not any(isinstance(v, Output) or is_tracer(v) for v in values):
        return NotImplemented
    if not available():
        raise ArgumentError(
            f"{kernel.name}: a launch inside jax.jit needs the extension's XLA FFI handler, which was not built: jax "
            f"was not importable when triton_jit was built. Install jax, then rebuild (pip install .)")
    import jax
    import jax.numpy as jnp
    import numpy as np  # jax's own dependency: imported here, so the package imports without it
    operands, results, aliases = [], [], {}
    seen = {}  # id(value) -> ("operand" | "result", index)

    def classify(v):
        if id(v) in seen:
            return seen[id(v)]
        if isinstance(v, Output):
            if v.value is not None:  # written before: read and written again, in place
                operands.append(v.value)
                aliases[len(operands) - 1] = len(results)
            results.append(v)
            place = ("result", len(results) - 1)
        else:
            operands.append(v)
            place = ("operand", len(operands) - 1)
        seen[id(v)] = place
        return place

    places = [classify(v) if _is_jax_value(v) else None for v in values]
    if not results:
        # A custom call without results has no effect XLA keeps (it is dropped as dead code), and
        # whatever the kernel writes into an operand is lost: an error, not a silent no-op.
        raise ArgumentError(
            f"{kernel.name}: this launch under a JAX trace (jax.jit, or a Function's backward under jax.jit) writes "
            f"no array JAX can see: JAX arrays are immutable, so a kernel under a trace writes only arrays declared "
            f"with triton_jit.empty(shape, like=x) (an Output), read after the launch as out.value; none of its "
            f"arguments is one")
    stand_ins = []
    for v, place in zip(values, places):
        if place is None:
            stand_ins.append(v)
            continue
        index = place[1] if place[0] == "operand" else len(operands) + place[1]
        stand_ins.append(_Buffer(index, jnp.dtype(v.dtype).name))
    new_args = stand_ins[:len(args)]
    new_kwargs = dict(zip(kwargs.keys(), stand_ins[len(args):]))
    key = None
    if not callable(grid):
        try:
            key = (kernel, grid, tuple(_key_of(v) for v in new_args),
                   tuple((k, _key_of(v)) for k, v in new_kwargs.items()))
            hash(key)
        except TypeError:
            key = None
    launch_id = _prepared.get(key) if key is not None else None
    if launch_id is None:
        launch_id = _C._prepare_deferred(kernel, grid, *new_args, **new_kwargs)
        if key is not None:
            _prepared[key] = launch_id
        # Compiled now where there is a GPU, so that XLA's first run of the call does not wait for
        # Triton (stand-ins are aligned as XLA's buffers are: the same kernel).
        try:
            kernel.compile(*new_args, **new_kwargs)
        except NoDeviceError:
            pass
    _register()
    call = jax.ffi.ffi_call(TARGET, [jax.ShapeDtypeStruct(o.shape, o.dtype) for o in results],
                            input_output_aliases=aliases or None)
    outs = call(*operands, launch=np.int64(launch_id))
    for o, value in zip(results, outs):
        o.value = value
    return None


_C._set_deferred_hook(deferred_launch)

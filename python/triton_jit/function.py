"""triton_jit.Function: one differentiable operation written once, with a forward and a backward
that launch Triton kernels, used from torch with its autograd (and from frameworks without
autograd, CuPy, as a plain call).

    class Scale(triton_jit.Function):
        @staticmethod
        def forward(ctx, x, alpha):
            ctx.alpha = alpha
            out = triton_jit.empty(triton_jit.shape(x), like=x)
            scale_kernel[(triton_jit.cdiv(x.numel(), 1024),)](x, out, alpha, x.numel())
            return out

        @staticmethod
        def backward(ctx, grad):
            return Scale.apply(grad, ctx.alpha), None

    y = Scale.apply(x, 2.0)

`ctx.save_for_backward(*tensors)`, `ctx.saved_tensors` and plain attributes on ctx work as in
torch.autograd.Function; backward returns one gradient per forward input (None for the others).
With torch tensors the class becomes a torch.autograd.Function (made once per class), or, when it
has a static `fake(ctx, *args)` (forward's ctx bookkeeping, and an uninitialized output of the
right shape and dtype, no kernels), a torch.library operator that torch.compile(fullgraph=True)
traces and torch.library.opcheck tests. With JAX arrays a jax.custom_vjp (made once per class and
set of non-array arguments, which are static), so jax.grad differentiates it; ctx attributes that
are not arrays travel as static data. Under jax.jit its launches are XLA custom calls (_jax.py):
forward may return the triton_jit.empty Output its kernel wrote.
"""
import functools
import itertools
import re

from ._frameworks import first_framework
from ._jax import resolve


class FunctionCtx:
    """The ctx of a call without autograd (CuPy arrays): saves what forward saves."""

    def __init__(self):
        self.saved_tensors = ()
        self.needs_input_grad = ()

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors

    def mark_non_differentiable(self, *args):
        pass


def _torch_function(cls):
    """The torch.autograd.Function standing for `cls`, made on first use."""
    made = cls.__dict__.get("_torch_autograd_function")
    if made is None:
        import torch

        def forward(ctx, *args):
            return cls.forward(ctx, *args)

        def backward(ctx, *grads):
            return cls.backward(ctx, *grads)
        made = type(cls.__name__, (torch.autograd.Function, ), {
            "forward": staticmethod(forward),
            "backward": staticmethod(backward),
            "__module__": cls.__module__,
            "__qualname__": cls.__qualname__ + "._torch",
        })
        setattr(cls, "_torch_autograd_function", made)
    return made


# bool before int (bool is an int); ints are SymInt so that torch.compile may pass symbolic sizes.
_SCHEMA_TYPES = ((bool, "bool"), (int, "SymInt"), (float, "float"), (str, "str"))
_op_numbers = itertools.count()
_library = None


def _schema_type(cls, position, value):
    import torch
    if isinstance(value, torch.Tensor):
        return "Tensor"
    if value is None:
        return "Tensor?"
    if isinstance(value, torch.SymInt):
        return "SymInt"
    for python_type, name in _SCHEMA_TYPES:
        if isinstance(value, python_type):
            return name
    raise TypeError(f"{cls.__name__}.apply: argument {position} is a {type(value).__name__}; an operation registered "
                    f"with torch (a Function with fake()) takes tensors, None, bool, int, float and str")


def _torch_op(cls, args):
    """The torch.library operator standing for `cls` with arguments of these types, made on first
    use: its forward runs cls.forward, its fake (Meta) kernel cls.fake, its backward cls.backward
    with a ctx that cls.fake set up, so torch.compile traces it and opcheck tests it."""
    import torch
    schema = tuple(_schema_type(cls, i, a) for i, a in enumerate(args))
    op = _TORCH_OPS.get((cls, schema))
    if op is None:
        if torch.compiler.is_compiling():
            # Registering an operator is not traceable by Dynamo.
            raise RuntimeError(f"{cls.__name__}: its torch operator for arguments ({', '.join(schema)}) is made at "
                               f"its first use outside torch.compile: call {cls.__name__}.apply once eagerly (or "
                               f"{cls.__name__}.register_torch(*example_args)) before compiling")
        op = _make_torch_op(cls, schema)
    return op


_TORCH_OPS = {}  # (Function class, schema types) -> its torch.library operator


def _make_torch_op(cls, schema):
    import torch
    global _library
    ops = cls.__dict__.get("_torch_ops")
    if ops is None:
        ops = {}
        setattr(cls, "_torch_ops", ops)
    op = ops.get(schema)
    if op is not None:
        return op
    if _library is None:
        _library = torch.library.Library("triton_jit", "FRAGMENT")
    name = re.sub(r"\W", "_", cls.__qualname__) + f"_{next(_op_numbers)}"
    qualname = f"triton_jit::{name}"
    params = ", ".join(f"{t} a{i}" for i, t in enumerate(schema))
    _library.define(f"{name}({params}) -> Tensor")

    def forward(*a):
        return cls.forward(FunctionCtx(), *a)

    def fake(*a):
        return cls.fake(FunctionCtx(), *a)

    def setup_context(ctx, inputs, output):
        # fake() does to ctx what forward does; what it saves of its own output is the real output.
        shadow = FunctionCtx()
        placeholder = cls.fake(shadow, *inputs)
        for key, value in vars(shadow).items():
            if key not in ("saved_tensors", "needs_input_grad"):
                setattr(ctx, key, value)
        ctx.save_for_backward(*(output if t is placeholder else t for t in shadow.saved_tensors))

    def backward(ctx, *grads):
        result = cls.backward(ctx, *grads)
        return result if isinstance(result, tuple) else (result, )

    _library.impl(name, forward, "CompositeExplicitAutograd")
    torch.library.register_fake(qualname, fake, lib=_library)
    torch.library.register_autograd(qualname, backward, setup_context=setup_context, lib=_library)
    op = getattr(torch.ops.triton_jit, name).default
    ops[schema] = op
    _TORCH_OPS[(cls, schema)] = op
    return op


def _is_jax_array(x):
    try:
        import jax
    except ImportError:
        return False
    return isinstance(x, jax.Array)


class _Static:
    """ctx attributes that are not arrays, carried through jax.custom_vjp's residuals as static
    data of a pytree node (no leaves), so that backward sees them as Python values under jit."""

    def __init__(self, items):
        self.items = items

    def __hash__(self):
        return hash(self.items)

    def __eq__(self, other):
        return isinstance(other, _Static) and self.items == other.items


_static_registered = False


def _register_static():
    global _static_registered
    if not _static_registered:
        import jax
        jax.tree_util.register_pytree_node(_Static, lambda s: ((), s.items), lambda items, _: _Static(items))
        _static_registered = True


def _jax_function(cls, static_positions):
    """The jax.custom_vjp standing for `cls` when the arguments at `static_positions` are not
    arrays (they become nondiff_argnums), made once per class and positions."""
    cache = cls.__dict__.get("_jax_custom_vjp")
    if cache is None:
        cache = {}
        setattr(cls, "_jax_custom_vjp", cache)
    made = cache.get(static_positions)
    if made is not None:
        return made
    import jax
    _register_static()

    @functools.partial(jax.custom_vjp, nondiff_argnums=static_positions)
    def call(*args):
        return resolve(cls.forward(FunctionCtx(), *args))

    def call_fwd(*args):
        ctx = FunctionCtx()
        out = resolve(cls.forward(ctx, *args))
        arrays, static = {}, []
        for name, value in vars(ctx).items():
            if name in ("saved_tensors", "needs_input_grad"):
                continue
            value = resolve(value)
            if _is_jax_array(value):
                arrays[name] = value
            else:
                static.append((name, value))
        try:
            hash(tuple(static))
        except TypeError as e:
            raise TypeError(f"{cls.__name__}.forward: ctx attributes that are not arrays must be hashable under "
                            f"JAX ({e}); use tuples rather than lists") from None
        return out, (tuple(resolve(tuple(ctx.saved_tensors))), arrays, _Static(tuple(static)))

    def call_bwd(*rest):
        # nondiff arguments first, then the residuals and the output's cotangent.
        residuals, cotangent = rest[-2], rest[-1]
        saved, arrays, static = residuals
        ctx = FunctionCtx()
        ctx.saved_tensors = saved
        for name, value in static.items:
            setattr(ctx, name, value)
        for name, value in arrays.items():
            setattr(ctx, name, value)
        grads = cls.backward(ctx, *cotangent) if isinstance(cotangent, tuple) else cls.backward(ctx, cotangent)
        if not isinstance(grads, tuple):
            grads = (grads, )
        grads = resolve(grads)
        return tuple(g for i, g in enumerate(grads) if i not in static_positions)

    call.defvjp(call_fwd, call_bwd)
    cache[static_positions] = call
    return call


class Function:
    """Base of a differentiable operation: subclass it with static `forward(ctx, *args)` and
    `backward(ctx, *grads)`, and call `MyOp.apply(*args)`. An optional static `fake(ctx, *args)`
    (forward without the kernels: the same ctx bookkeeping, and an uninitialized output of the
    right shape and dtype) registers the operation with torch.library, so torch.compile traces it
    and torch.library.opcheck tests it."""

    fake = None

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("a triton_jit.Function needs a static forward(ctx, *args)")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("a triton_jit.Function needs a static backward(ctx, *grads) to be differentiated")

    @classmethod
    def register_torch(cls, *example_args):
        """Makes (or finds) the torch operator for arguments of these types; apply() does it at
        first use, which must come before torch.compile traces a call. Returns the OpOverload."""
        return _torch_op(cls, example_args)

    @classmethod
    def apply(cls, *args):
        framework = first_framework(args)
        if framework == "torch":
            if cls.fake is not None:
                return _torch_op(cls, args)(*args)
            return _torch_function(cls).apply(*args)
        if framework == "jax":
            static = tuple(i for i, a in enumerate(args) if not _is_jax_array(a))
            return _jax_function(cls, static)(*args)
        return cls.forward(FunctionCtx(), *args)

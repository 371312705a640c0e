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
With torch tensors the class becomes a torch.autograd.Function (made once per class); with JAX
arrays a jax.custom_vjp (made once per class and set of non-array arguments, which are static),
so jax.grad differentiates it; ctx attributes that are not arrays travel as static data. A kernel
launch inside jax.jit (an XLA FFI call) is not supported yet: there the launch sees a tracer and
raises ArgumentError.
"""
import functools

from ._frameworks import first_framework


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
        return cls.forward(FunctionCtx(), *args)

    def call_fwd(*args):
        ctx = FunctionCtx()
        out = cls.forward(ctx, *args)
        arrays, static = {}, []
        for name, value in vars(ctx).items():
            if name in ("saved_tensors", "needs_input_grad"):
                continue
            if _is_jax_array(value):
                arrays[name] = value
            else:
                static.append((name, value))
        try:
            hash(tuple(static))
        except TypeError as e:
            raise TypeError(f"{cls.__name__}.forward: ctx attributes that are not arrays must be hashable under "
                            f"JAX ({e}); use tuples rather than lists") from None
        return out, (tuple(ctx.saved_tensors), arrays, _Static(tuple(static)))

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
        return tuple(g for i, g in enumerate(grads) if i not in static_positions)

    call.defvjp(call_fwd, call_bwd)
    cache[static_positions] = call
    return call


class Function:
    """Base of a differentiable operation: subclass it with static `forward(ctx, *args)` and
    `backward(ctx, *grads)`, and call `MyOp.apply(*args)`."""

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("a triton_jit.Function needs a static forward(ctx, *args)")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("a triton_jit.Function needs a static backward(ctx, *grads) to be differentiated")

    @classmethod
    def apply(cls, *args):
        framework = first_framework(args)
        if framework == "torch":
            return _torch_function(cls).apply(*args)
        if framework == "jax":
            static = tuple(i for i, a in enumerate(args) if not _is_jax_array(a))
            return _jax_function(cls, static)(*args)
        return cls.forward(FunctionCtx(), *args)

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
With torch tensors the class becomes a torch.autograd.Function (made once per class). JAX arrays
(jax.custom_vjp and an XLA FFI call for jax.jit) are not supported yet: they raise
NotImplementedError.
"""
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
            raise NotImplementedError(f"{cls.__name__}.apply: JAX arrays are not supported yet by triton_jit.Function "
                                      f"(jax.custom_vjp and the XLA FFI call are still to be built)")
        return cls.forward(FunctionCtx(), *args)

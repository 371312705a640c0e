"""dot(a, b, transpose_a=False, transpose_b=False) = op(a) @ op(b), differentiable, written once
with triton_jit.Function: the forward and each gradient are one launch of the same strided Triton
matmul (a transposed operand is read through swapped strides, never copied)."""
from .._frameworks import empty, first_framework, shape, strides
from ..function import Function

_BLOCK_M, _BLOCK_N, _BLOCK_K = 64, 64, 32
_kernel = None


def _output(a, b, transpose_a, transpose_b):
    """The uninitialized (m, n) result of op(a) @ op(b), checked: forward's and fake's."""
    (a0, a1), (b0, b1) = shape(a), shape(b)
    m, k = (a1, a0) if transpose_a else (a0, a1)
    kb, n = (b1, b0) if transpose_b else (b0, b1)
    if k != kb:
        raise ValueError(f"dot: inner dimensions differ: op(a) is {m}x{k}, op(b) is {kb}x{n}")
    return empty((m, n), like=a)


def matmul(a, b, transpose_a=False, transpose_b=False):
    """op(a) @ op(b) by one launch of the Triton kernel; a new array in a's framework and dtype."""
    global _kernel
    if _kernel is None:
        from .. import jit
        from . import _kernels
        _kernel = jit(_kernels.matmul_kernel)
    c = _output(a, b, transpose_a, transpose_b)
    (a0, a1), (b0, b1) = shape(a), shape(b)
    (sa0, sa1), (sb0, sb1) = strides(a), strides(b)
    m, k, sam, sak = (a1, a0, sa1, sa0) if transpose_a else (a0, a1, sa0, sa1)
    n, sbk, sbn = (b0, sb1, sb0) if transpose_b else (b1, sb0, sb1)
    scm, scn = strides(c)
    grid = ((m + _BLOCK_M - 1) // _BLOCK_M, (n + _BLOCK_N - 1) // _BLOCK_N)
    _kernel[grid](a, b, c, m, n, k, sam, sak, sbk, sbn, scm, scn, BLOCK_M=_BLOCK_M, BLOCK_N=_BLOCK_N,
                  BLOCK_K=_BLOCK_K)
    return c


class MatMul(Function):
    """matmul as an operation of its own, not differentiated: what Dot's backward launches, so that
    torch.compile traces the backward too (a torch.library operator with a fake kernel)."""

    @staticmethod
    def forward(ctx, a, b, transpose_a, transpose_b):
        return matmul(a, b, transpose_a, transpose_b)

    @staticmethod
    def fake(ctx, a, b, transpose_a, transpose_b):
        return _output(a, b, transpose_a, transpose_b)


def _matmul_in_backward(a, b, transpose_a, transpose_b):
    if first_framework((a, b)) == "torch":
        return MatMul.apply(a, b, transpose_a, transpose_b)
    return matmul(a, b, transpose_a, transpose_b)


class Dot(Function):
    @staticmethod
    def forward(ctx, a, b, transpose_a=False, transpose_b=False):
        Dot.save(ctx, a, b, transpose_a, transpose_b)
        return matmul(a, b, transpose_a, transpose_b)

    @staticmethod
    def fake(ctx, a, b, transpose_a=False, transpose_b=False):
        Dot.save(ctx, a, b, transpose_a, transpose_b)
        return _output(a, b, transpose_a, transpose_b)

    @staticmethod
    def save(ctx, a, b, transpose_a, transpose_b):
        ctx.save_for_backward(a, b)
        ctx.transpose_a, ctx.transpose_b = transpose_a, transpose_b

    @staticmethod
    def backward(ctx, grad):
        # C = op(A) op(B) and G = dL/dC; each rule yields the gradient in A's and B's own layout.
        a, b = ctx.saved_tensors
        ta, tb = ctx.transpose_a, ctx.transpose_b
        need_a, need_b = tuple(getattr(ctx, "needs_input_grad", None) or (True, True))[:2]
        if not ta and not tb:    # C = A B:       dA = G Bᵀ,   dB = Aᵀ G
            rules = (grad, b, False, True), (a, grad, True, False)
        elif ta and not tb:      # C = Aᵀ B:      dA = B Gᵀ,   dB = A G
            rules = (b, grad, False, True), (a, grad, False, False)
        elif not ta and tb:      # C = A Bᵀ:      dA = G B,    dB = Gᵀ A
            rules = (grad, b, False, False), (grad, a, True, False)
        else:                    # C = Aᵀ Bᵀ:     dA = Bᵀ Gᵀ,  dB = Gᵀ Aᵀ
            rules = (b, grad, True, True), (grad, a, True, True)
        da = _matmul_in_backward(*rules[0]) if need_a else None
        db = _matmul_in_backward(*rules[1]) if need_b else None
        return da, db, None, None


def dot(a, b, transpose_a=False, transpose_b=False):
    """op(a) @ op(b) with op(x) = xᵀ where asked; differentiable in torch (also under torch.compile)
    and JAX (also under jax.jit, where its launches are XLA custom calls)."""
    return Dot.apply(a, b, transpose_a, transpose_b)

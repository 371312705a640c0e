"""triton_jit_ops.matmul against torch on a CUDA GPU: dtypes, shapes, transposes; gradients against
torch autograd. Every test here skips without a CUDA GPU."""
import math

import pytest
import torch

import triton_jit_ops
from conftest import requires_cuda
from cuda_util import CUDA, NONCONTIG, assert_same, rand

pytestmark = requires_cuda
ops = torch.ops.triton_jit_ops

MATMUL_SHAPES = [(1, 1, 1), (3, 5, 7), (16, 16, 16), (33, 17, 65), (64, 128, 32), (127, 255, 129),
                 (512, 384, 256), (1, 1000, 1), (1000, 3, 2), (0, 4, 3), (4, 0, 3), (5, 3, 0)]


def mm_tols(dtype, k):
    # Inputs scaled by 1/sqrt(K) keep results O(1); fp32 goes through tf32 tensor cores.
    return {torch.float32: (1e-2, 1e-2), torch.float16: (1e-2, 1e-2), torch.bfloat16: (3e-2, 3e-2)}[dtype]


def mm_inputs(m, k, n, ta, tb, dtype):
    scale = 1.0 / math.sqrt(max(k, 1))
    a = (torch.randn(m, k, device=CUDA) * scale).to(dtype)
    b = torch.randn(k, n, device=CUDA).to(dtype)
    a_arg = a.t().contiguous() if ta else a
    b_arg = b.t().contiguous() if tb else b
    return a, b, a_arg, b_arg


TRANSPOSES = [(False, False), (True, False), (False, True), (True, True)]
# Every shape and transpose in fp16; a few of them in fp32 (tf32) and bf16.
MATMUL_CASES = ([(torch.float16, s, ta, tb) for s in MATMUL_SHAPES for ta, tb in TRANSPOSES] +
                [(d, s, ta, tb) for d in (torch.float32, torch.bfloat16)
                 for s in [(3, 5, 7), (127, 255, 129), (512, 384, 256), (0, 4, 3), (4, 0, 3)]
                 for ta, tb in [(False, False), (True, True)]])


@pytest.mark.parametrize("dtype,mkn,ta,tb", MATMUL_CASES, ids=str)
def test_matmul(dtype, mkn, ta, tb):
    m, k, n = mkn
    a, b, a_arg, b_arg = mm_inputs(m, k, n, ta, tb, dtype)
    ref = (a.double() @ b.double()).to(dtype)
    out = ops.matmul(a_arg, b_arg, ta, tb)
    assert_same(out, ref, *mm_tols(dtype, k))
    assert_same(triton_jit_ops.matmul(a_arg, b_arg, transpose_a=ta, transpose_b=tb), ref, *mm_tols(dtype, k))


@pytest.mark.parametrize("view", ["transposed", "sliced", "offset"])
def test_matmul_non_contiguous(view):
    x, y = rand((60, 60)) / 8, rand((60, 60)) / 8
    a, b = NONCONTIG[view](x), NONCONTIG[view](y)
    b = b.t() if a.shape[1] != b.shape[0] else b
    ref = (a.double() @ b.double()).float()
    assert_same(ops.matmul(a, b), ref, 1e-2, 1e-2)
    assert_same(ops.matmul(a, b.t(), False, True), ref, 1e-2, 1e-2)


@pytest.mark.parametrize("mkn", [(3, 5, 7), (33, 17, 65), (64, 128, 32), (1, 1, 1), (0, 4, 3), (4, 0, 3)], ids=str)
@pytest.mark.parametrize("ta,tb", TRANSPOSES)
def test_matmul_gradients(mkn, ta, tb):
    dtype = torch.float32
    m, k, n = mkn
    _, _, a0, b0 = mm_inputs(m, k, n, ta, tb, dtype)
    a = a0.clone().requires_grad_()
    b = b0.clone().requires_grad_()
    ar = a0.clone().double().requires_grad_()
    br = b0.clone().double().requires_grad_()
    out = ops.matmul(a, b, ta, tb)
    ref = (ar.t() if ta else ar) @ (br.t() if tb else br)
    assert out.requires_grad and out.grad_fn is not None
    grad = torch.randn_like(out)
    out.backward(grad)
    ref.backward(grad.double())
    rtol, atol = 1e-2, 1e-2  # tf32
    torch.testing.assert_close(out.double(), ref.detach(), rtol=rtol, atol=atol)
    torch.testing.assert_close(a.grad.double(), ar.grad, rtol=rtol, atol=atol)
    torch.testing.assert_close(b.grad.double(), br.grad, rtol=rtol, atol=atol)
    assert a.grad.shape == a.shape and b.grad.shape == b.shape


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_matmul_gradients_half(dtype):
    a = (torch.randn(48, 40, device=CUDA) / 7).to(dtype).requires_grad_()
    b = (torch.randn(40, 24, device=CUDA) / 7).to(dtype).requires_grad_()
    out = triton_jit_ops.matmul(a, b)
    g = torch.randn_like(out)
    ga, gb = torch.autograd.grad(out, (a, b), g)
    assert ga.dtype == dtype and gb.dtype == dtype
    torch.testing.assert_close(ga.float(), g.float() @ b.float().t(), rtol=3e-2, atol=3e-2)
    torch.testing.assert_close(gb.float(), a.float().t() @ g.float(), rtol=3e-2, atol=3e-2)


def test_matmul_grad_only_for_one_input():
    a = (torch.randn(8, 16, device=CUDA)).requires_grad_()
    b = torch.randn(16, 4, device=CUDA)
    out = ops.matmul(a, b)
    out.sum().backward()
    torch.testing.assert_close(a.grad, torch.ones(8, 4, device=CUDA) @ b.t(), rtol=1e-2, atol=1e-2)
    assert b.grad is None


def test_matmul_gradcheck_float64():
    a = torch.randn(5, 4, device=CUDA, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, 3, device=CUDA, dtype=torch.float64, requires_grad=True)
    try:
        ops.matmul(a.detach(), b.detach())
    except RuntimeError:
        pytest.skip("matmul does not support float64")
    for ta, tb in [(False, False), (True, True)]:
        x = a.detach().t().contiguous().requires_grad_() if ta else a
        y = b.detach().t().contiguous().requires_grad_() if tb else b
        assert torch.autograd.gradcheck(lambda p, q: ops.matmul(p, q, ta, tb), (x, y))



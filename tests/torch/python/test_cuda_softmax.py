"""triton_jit_ops.softmax against torch.softmax on a CUDA GPU: dtypes, shapes, every dim, views. Every test here skips without a CUDA GPU."""
import pytest
import torch

import triton_jit_ops
from conftest import FLOAT_DTYPES, requires_cuda, tols
from cuda_util import CUDA, NONCONTIG, assert_same, rand

pytestmark = requires_cuda
ops = torch.ops.triton_jit_ops

SOFTMAX_SHAPES = [(), (1,), (7,), (33, 17), (3, 0, 5), (4, 5, 6, 7), (2, 16384), (3, 16385), (2, 100003),
                  (513, 1000)]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", SOFTMAX_SHAPES, ids=str)
def test_softmax_each_dim(dtype, shape):
    x = rand(shape, dtype) * 3
    for d in (range(-len(shape), len(shape)) if shape else (0, -1)):
        ref = torch.softmax(x.float(), d).to(dtype)
        out = ops.softmax(x, d)
        assert_same(out, ref, *((1e-5, 1e-6) if dtype == torch.float32 else tols(dtype)))
        assert_same(triton_jit_ops.softmax(x, d), ref, *((1e-5, 1e-6) if dtype == torch.float32 else tols(dtype)))


@pytest.mark.parametrize("view", sorted(NONCONTIG))
def test_softmax_non_contiguous(view):
    x = NONCONTIG[view](rand((40, 30)))
    for d in range(x.dim()):
        assert_same(ops.softmax(x, d), torch.softmax(x, d), 1e-5, 1e-6)


def test_softmax_extreme_values():
    x = torch.tensor([[1e4, 0.0, -1e4], [-float("inf"), 0.0, 1.0], [-float("inf")] * 3, [float("nan"), 0, 1],
                      [float("inf"), 0.0, 1.0]], device=CUDA)
    assert_same(ops.softmax(x, 1), torch.softmax(x, 1), 1e-6, 1e-7)
    assert torch.isfinite(ops.softmax(torch.randn(4, 50, device=CUDA) * 1e4, 1)).all()



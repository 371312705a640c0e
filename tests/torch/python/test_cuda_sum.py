"""triton_jit_ops.sum against torch.sum on a CUDA GPU: dtypes, shapes, every dim, keepdim, dtype=. Every test here skips without a CUDA GPU."""
import math

import pytest
import torch

import triton_jit_ops
from conftest import requires_cuda, tols
from cuda_util import CUDA, NONCONTIG, assert_same, grid, rand

pytestmark = requires_cuda
ops = torch.ops.triton_jit_ops

SUM_DTYPES = [torch.float32, torch.float16, torch.int32, torch.bfloat16, torch.float64, torch.int64, torch.int8, torch.bool]


def sum_ref(x, dim=None, keepdim=False, dtype=None):
    """torch.sum, computed in float64 for floating results (then rounded), exact for integers."""
    ref = torch.sum(x, dim=dim, keepdim=keepdim, dtype=dtype) if dim is not None else torch.sum(x, dtype=dtype)
    if ref.dtype.is_floating_point:
        hi = x.to(torch.float64) if dtype is None else x.to(dtype).to(torch.float64)
        exact = torch.sum(hi, dim=dim, keepdim=keepdim) if dim is not None else torch.sum(hi)
        ref = exact.to(ref.dtype)
    return ref


def sum_tols(dtype, n):
    rtol, atol = tols(dtype)
    if dtype == torch.float32:
        return 1e-5, 1e-5 * math.sqrt(max(n, 1))
    if dtype in (torch.float16, torch.bfloat16):
        return rtol, atol * math.sqrt(max(n, 1))
    return rtol, atol


@pytest.mark.parametrize("dtype,shape", grid(SUM_DTYPES[:3], [(), (0,), (1,), (7,), (33, 17), (3, 0, 5), (4, 5, 6, 7),
                                                          ((1 << 20) + 3,), (3, 100003)],
                                            SUM_DTYPES[3:], [(7,), (33, 17), ((1 << 20) + 3,)]), ids=str)
def test_sum_all(dtype, shape):
    x = rand(shape, dtype)
    ref = sum_ref(x)
    assert_same(ops.sum(x), ref, *sum_tols(ref.dtype, x.numel()))
    assert_same(triton_jit_ops.sum(x), ref, *sum_tols(ref.dtype, x.numel()))


@pytest.mark.parametrize("dtype,shape", grid(SUM_DTYPES[:2], [(1,), (7,), (33, 17), (3, 0, 5), (4, 5, 6, 7),
                                                          (2, 3, 1, 5, 3), (5, 70001), (70001, 5), (3, 4099, 7)],
                                            SUM_DTYPES[2:], [(33, 17), (3, 4099, 7)]), ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_each_dim(dtype, shape, keepdim):
    x = rand(shape, dtype)
    for d in range(-len(shape), len(shape)):
        ref = sum_ref(x, [d], keepdim)
        assert_same(ops.sum(x, [d], keepdim), ref, *sum_tols(ref.dtype, x.shape[d]))
        assert_same(triton_jit_ops.sum(x, d, keepdim), ref, *sum_tols(ref.dtype, x.shape[d]))


@pytest.mark.parametrize("view", sorted(NONCONTIG))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_sum_non_contiguous(view, dtype):
    x = NONCONTIG[view](rand((40, 30), dtype))
    for d in range(x.dim()):
        ref = sum_ref(x, [d])
        assert_same(ops.sum(x, [d]), ref, *sum_tols(ref.dtype, x.shape[d]))
    ref = sum_ref(x)
    assert_same(ops.sum(x), ref, *sum_tols(ref.dtype, x.numel()))


@pytest.mark.parametrize("src,dst", [(torch.float16, torch.float32), (torch.float32, torch.float64),
                                     (torch.int32, torch.float32), (torch.bfloat16, torch.float16),
                                     (torch.float32, torch.int64), (torch.int64, torch.int32),
                                     (torch.float32, torch.float16), (torch.bool, torch.int32)])
def test_sum_dtype_argument(src, dst):
    x = rand((17, 29), src)
    for dim in (None, [0], [1], [-1]):
        ref = sum_ref(x, dim, False, dst)
        out = ops.sum(x, dim, dtype=dst)
        assert_same(out, ref, *sum_tols(ref.dtype, 29))


@pytest.mark.parametrize("dims", [[0, 1], [1, 2], [0, 2], [-1, 1], [0, 1, 2, 3], [1, 3]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_several_dims(dims, keepdim):
    x = rand((6, 33, 5, 129))
    ref = sum_ref(x, dims, keepdim)
    n = x.numel() // ref.numel()
    assert_same(ops.sum(x, dims, keepdim), ref, *sum_tols(ref.dtype, n))
    assert_same(triton_jit_ops.sum(x, dims, keepdim), ref, *sum_tols(ref.dtype, n))


def test_sum_fp16_accumulates_in_fp32():
    # 4096 ones in fp16 sum exactly to 4096; fp16 accumulation would stop at 2048.
    x = torch.ones(4096, dtype=torch.float16, device=CUDA)
    assert ops.sum(x).item() == 4096
    assert ops.sum(x.view(64, 64), [0]).eq(64).all()



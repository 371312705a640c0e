"""triton_jit_ops.add against torch.add on a CUDA GPU: dtypes, shapes, alpha, broadcasting, type
promotion, non-contiguous views. Every test here skips without a CUDA GPU."""
import pytest
import torch

import triton_jit_ops
from conftest import requires_cuda
from cuda_util import CUDA, NONCONTIG, assert_same, grid, rand

pytestmark = requires_cuda
ops = torch.ops.triton_jit_ops

ADD_DTYPES = [torch.float32, torch.float16, torch.int32, torch.bfloat16, torch.float64, torch.int8, torch.uint8, torch.int16, torch.int64,
                             torch.bool]
SHAPES = [(), (0,), (1,), (7,), (33, 17), (3, 0, 5), (1000,), (4, 5, 6, 7), (2, 3, 1, 4, 5), ((1 << 20) + 3,)]


@pytest.mark.parametrize("dtype,shape", grid([torch.float32, torch.float16, torch.int32], SHAPES,
                                            ADD_DTYPES[3:], [(), (33, 17), ((1 << 20) + 3,)]), ids=str)
def test_add(dtype, shape):
    a, b = rand(shape, dtype), rand(shape, dtype)
    assert_same(ops.add(a, b), torch.add(a, b))


@pytest.mark.parametrize("dtype", ADD_DTYPES)
@pytest.mark.parametrize("alpha", [2, -3, 0, 0.5, True])
def test_add_alpha(dtype, alpha):
    a, b = rand((37, 5), dtype), rand((37, 5), dtype)
    try:
        ref = torch.add(a, b, alpha=alpha)
    except RuntimeError:  # torch refuses this alpha for this dtype: so must the operator
        with pytest.raises(RuntimeError, match="alpha"):
            ops.add(a, b, alpha=alpha)
        return
    assert_same(ops.add(a, b, alpha=alpha), ref)
    assert_same(triton_jit_ops.add(a, b, alpha=alpha), ref)


@pytest.mark.parametrize("sa,sb", [((3, 1), (1, 5)), ((5,), (4, 1, 5)), ((2, 3, 4, 5), (4, 1)), ((), (3, 4)),
                                   ((1,), (6, 7)), ((0, 3), (1, 3)), ((2, 1, 3, 1, 5), (1, 4, 1)),
                                   ((7, 1, 1, 9), (1, 8, 5, 1)), ((1025, 1), (1, 513))], ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32])
def test_add_broadcast(sa, sb, dtype):
    a, b = rand(sa, dtype), rand(sb, dtype)
    assert_same(ops.add(a, b, alpha=2), torch.add(a, b, alpha=2))
    assert_same(ops.add(b, a), torch.add(b, a))


@pytest.mark.parametrize("da,db", [(torch.float16, torch.float32), (torch.int32, torch.float16),
                                   (torch.bool, torch.int64), (torch.bfloat16, torch.float16),
                                   (torch.uint8, torch.int8), (torch.int64, torch.float64)])
def test_add_type_promotion(da, db):
    a, b = rand((9, 13), da), rand((13,), db)
    assert_same(ops.add(a, b), torch.add(a, b))


def test_add_cpu_scalar_tensor_joins():
    a = rand((5, 6))
    s = torch.tensor(2.5)
    assert_same(ops.add(a, s), torch.add(a, s))
    assert_same(ops.add(s, a, alpha=3), torch.add(s, a, alpha=3))




@pytest.mark.parametrize("view", sorted(NONCONTIG))
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_add_non_contiguous(view, dtype):
    x, y = rand((40, 30), dtype), rand((40, 30), dtype)
    a, b = NONCONTIG[view](x), NONCONTIG[view](y)
    assert_same(ops.add(a, b), torch.add(a, b))
    assert_same(ops.add(a, b.contiguous()), torch.add(a, b))
    assert_same(ops.add(a.contiguous(), b, alpha=-1), torch.add(a, b, alpha=-1))


def test_add_does_not_modify_inputs():
    a, b = rand((100,)), rand((100,))
    a0, b0 = a.clone(), b.clone()
    out = ops.add(a, b)
    assert out.data_ptr() not in (a.data_ptr(), b.data_ptr())
    assert torch.equal(a, a0) and torch.equal(b, b0)



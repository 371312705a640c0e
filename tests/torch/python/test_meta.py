"""Shapes, dtypes and devices from the Meta kernels (meta tensors, and fake CUDA tensors as
torch.compile traces with): no GPU needed."""
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx

import triton_jit_ops

ops = torch.ops.triton_jit_ops
ALL_DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int32, torch.int64, torch.int8,
              torch.uint8, torch.bool]


def meta(*shape, dtype=torch.float32):
    return torch.empty(shape, dtype=dtype, device="meta")


def assert_like(out, ref):
    """`out` has the shape, dtype and device of `ref` (a torch result on the same device)."""
    assert out.shape == ref.shape
    assert out.dtype == ref.dtype
    assert out.device == ref.device


# --- add ----------------------------------------------------------------------------------------

ADD_SHAPES = [((), ()), ((0,), (0,)), ((1,), (1,)), ((7,), (7,)), ((3, 5), (3, 5)), ((3, 1), (1, 5)),
              ((5,), (4, 1, 5)), ((2, 3, 4, 5), (4, 1)), ((0, 3), (1, 3)), ((2, 1, 3, 1, 5), (1, 4, 1)), ((), (2, 3))]


@pytest.mark.parametrize("sa,sb", ADD_SHAPES)
def test_add_meta_broadcast_shapes(sa, sb):
    a, b = meta(*sa), meta(*sb)
    assert_like(ops.add(a, b), torch.add(a, b))
    assert_like(triton_jit_ops.add(a, b, alpha=2.5), torch.add(a, b, alpha=2.5))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_add_meta_dtypes(dtype):
    a, b = meta(4, 3, dtype=dtype), meta(4, 3, dtype=dtype)
    assert_like(ops.add(a, b), torch.add(a, b))


@pytest.mark.parametrize("da,db", [(torch.float16, torch.float32), (torch.int32, torch.float16),
                                   (torch.bool, torch.int64), (torch.bfloat16, torch.float16),
                                   (torch.uint8, torch.int8)])
def test_add_meta_type_promotion(da, db):
    a, b = meta(4, 3, dtype=da), meta(3, dtype=db)
    assert_like(ops.add(a, b), torch.add(a, b))


def test_add_meta_result_is_contiguous():
    a = meta(6, 4).t()
    out = ops.add(a, a)
    assert out.shape == (4, 6)
    assert out.is_contiguous() or out.stride() == torch.add(a, a).stride()


# --- sum ----------------------------------------------------------------------------------------

SUM_SHAPES = [(), (1,), (7,), (3, 5), (2, 3, 4), (2, 0, 3), (2, 3, 4, 5)]


@pytest.mark.parametrize("shape", SUM_SHAPES)
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_meta_each_dim(shape, keepdim):
    x = meta(*shape)
    dims = list(range(-len(shape), len(shape))) if shape else [0, -1]
    for d in dims:
        assert_like(ops.sum(x, [d], keepdim), torch.sum(x, d, keepdim=keepdim))
        assert_like(triton_jit_ops.sum(x, d, keepdim), torch.sum(x, d, keepdim=keepdim))


@pytest.mark.parametrize("shape", SUM_SHAPES)
def test_sum_meta_all(shape):
    x = meta(*shape)
    assert_like(ops.sum(x), torch.sum(x))
    assert_like(triton_jit_ops.sum(x), torch.sum(x))
    assert ops.sum(x).shape == ()


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_sum_meta_result_dtype(dtype):
    # torch.sum: integer and bool inputs sum to int64, floating ones keep their dtype.
    x = meta(3, 4, dtype=dtype)
    assert_like(ops.sum(x, [1]), torch.sum(x, 1))
    assert_like(ops.sum(x), torch.sum(x))


@pytest.mark.parametrize("src,dst", [(torch.float16, torch.float32), (torch.float32, torch.float64),
                                     (torch.int32, torch.float32), (torch.bfloat16, torch.float16),
                                     (torch.float32, torch.int64)])
def test_sum_meta_dtype_argument(src, dst):
    x = meta(3, 4, dtype=src)
    assert_like(ops.sum(x, [0], dtype=dst), torch.sum(x, 0, dtype=dst))
    assert_like(ops.sum(x, dtype=dst), torch.sum(x, dtype=dst))
    assert_like(triton_jit_ops.sum(x, 1, True, dtype=dst), torch.sum(x, 1, keepdim=True, dtype=dst))


# --- softmax ------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (2, 3, 4), (0, 4), (2, 3, 4, 5)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_softmax_meta(shape, dtype):
    x = meta(*shape, dtype=dtype)
    for d in (range(-len(shape), len(shape)) if shape else (0, -1)):
        assert_like(ops.softmax(x, d), torch.softmax(x, d))
        assert_like(triton_jit_ops.softmax(x, d), torch.softmax(x, d))


# --- matmul -------------------------------------------------------------------------------------

@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (3, 5, 7), (64, 32, 16), (0, 4, 3), (4, 0, 3), (5, 3, 0)])
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_meta(m, k, n, ta, tb):
    a = meta(k, m) if ta else meta(m, k)
    b = meta(n, k) if tb else meta(k, n)
    out = ops.matmul(a, b, ta, tb)
    assert out.shape == (m, n) and out.dtype == torch.float32 and out.device.type == "meta"
    assert triton_jit_ops.matmul(a, b, transpose_a=ta, transpose_b=tb).shape == (m, n)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_matmul_meta_dtype(dtype):
    out = ops.matmul(meta(4, 8, dtype=dtype), meta(8, 2, dtype=dtype))
    assert out.dtype == dtype and out.shape == (4, 2)


def test_matmul_meta_backward_shapes():
    a = meta(4, 8).requires_grad_()
    b = meta(8, 3).requires_grad_()
    out = ops.matmul(a, b)
    assert out.requires_grad and out.grad_fn is not None
    ga, gb = torch.autograd.grad(out, (a, b), meta(4, 3))
    assert ga.shape == a.shape and gb.shape == b.shape
    at = meta(8, 4).requires_grad_()
    bt = meta(3, 8).requires_grad_()
    ga, gb = torch.autograd.grad(ops.matmul(at, bt, True, True), (at, bt), meta(4, 3))
    assert ga.shape == at.shape and gb.shape == bt.shape


# --- fake CUDA tensors (what torch.compile and torch.export trace with) -------------------------

def test_fake_cuda_tensors():
    with FakeTensorMode():
        a = torch.empty(4, 8, device="cuda")
        b = torch.empty(8, 3, device="cuda")
        h = torch.empty(4, 8, device="cuda", dtype=torch.float16)
        for out, ref in [(ops.add(a, a), a + a), (ops.add(a, h, alpha=2), torch.add(a, h, alpha=2)),
                         (ops.sum(a, [1], True), a.sum(1, keepdim=True)), (ops.sum(h), h.sum()),
                         (ops.sum(h, [0], dtype=torch.float32), h.sum(0, dtype=torch.float32)),
                         (ops.softmax(a, -1), a.softmax(-1)), (ops.matmul(a, b), a @ b),
                         (ops.matmul(b, a, True, True), b.t() @ a.t())]:
            assert out.shape == ref.shape and out.dtype == ref.dtype
            assert out.device.type == "cuda"


def test_make_fx_fake_trace_records_the_operators():
    def f(a, b):
        return triton_jit_ops.softmax(triton_jit_ops.matmul(triton_jit_ops.add(a, a, alpha=0.5), b), -1).sum()

    with FakeTensorMode() as mode:
        a = torch.empty(4, 8, device="cuda")
        b = torch.empty(8, 3, device="cuda")
    gm = make_fx(f, tracing_mode="fake")(a, b)
    targets = {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}
    for name in ("add", "matmul", "softmax"):
        assert f"triton_jit_ops.{name}.default" in targets, targets
    del mode


@pytest.mark.parametrize("dims", [[0, 1], [1, 2], [0, 2], [-1, 0], [0, 1, 2, 3], []])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_meta_several_dims(dims, keepdim):
    x = meta(2, 3, 4, 5)
    ref = torch.sum(x, dims, keepdim=keepdim) if dims else torch.sum(x)  # dim=[] reduces all, as torch
    if dims == [] and keepdim:
        ref = torch.sum(x, (0, 1, 2, 3), keepdim=True)
    assert_like(ops.sum(x, dims, keepdim), ref)

"""Bad inputs raise RuntimeError (or torch's IndexError for a dimension out of range) with a
message that says what is wrong; nothing crashes. Meta tensors and CPU tensors run everywhere;
the same checks on CUDA tensors need a GPU."""
import re

import pytest
import torch

import triton_jit_ops
from conftest import requires_cuda

ops = torch.ops.triton_jit_ops
DEVICES = ["meta", pytest.param("cuda", marks=requires_cuda)]
DIM_ERRORS = (IndexError, RuntimeError)  # torch's maybe_wrap_dim raises IndexError


def t(*shape, dtype=torch.float32, device="meta"):
    if device == "meta":
        return torch.empty(shape, dtype=dtype, device=device)
    if dtype.is_complex or dtype.is_floating_point:
        return torch.randn(shape, dtype=dtype, device=device)
    return torch.ones(shape, dtype=dtype, device=device)


# --- CPU tensors: no CPU implementation, a clear error ------------------------------------------

CPU_CALLS = {
    "add": lambda: ops.add(torch.ones(3), torch.ones(3)),
    "add_alpha": lambda: triton_jit_ops.add(torch.ones(3), torch.ones(3), alpha=2),
    "sum": lambda: ops.sum(torch.ones(3, 4), [1]),
    "sum_all": lambda: triton_jit_ops.sum(torch.ones(3, 4)),
    "softmax": lambda: ops.softmax(torch.ones(3, 4), 1),
    "matmul": lambda: ops.matmul(torch.ones(3, 4), torch.ones(4, 5)),
    "matmul_grad": lambda: ops.matmul(torch.ones(3, 4, requires_grad=True), torch.ones(4, 5)),
}


@pytest.mark.parametrize("name", sorted(CPU_CALLS))
def test_cpu_tensors_raise(name):
    with pytest.raises(RuntimeError) as info:
        CPU_CALLS[name]()
    msg = str(info.value)
    assert re.search(r"CPU|cpu|CUDA|cuda", msg), msg
    assert "triton_jit_ops" in msg, msg


@requires_cuda
@pytest.mark.parametrize("name", ["add", "matmul"])
def test_mixed_devices_raise(name):
    a = torch.ones(3, 3, device="cuda")
    b = torch.ones(3, 3)
    with pytest.raises(RuntimeError, match=r"device|CPU|cpu"):
        getattr(ops, name)(a, b)
    with pytest.raises(RuntimeError, match=r"device|CPU|cpu"):
        getattr(ops, name)(b, a)


# --- add ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_add_shapes_that_do_not_broadcast(device):
    with pytest.raises(RuntimeError, match=r"size|shape|broadcast"):
        ops.add(t(3, 4, device=device), t(5, device=device))
    with pytest.raises(RuntimeError):
        ops.add(t(2, 3, device=device), t(3, 2, device=device))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_add_unsupported_dtype(device, dtype):
    with pytest.raises(RuntimeError, match=r"dtype|Complex|complex"):
        ops.add(t(4, dtype=dtype, device=device), t(4, dtype=dtype, device=device))


@pytest.mark.parametrize("device", DEVICES)
def test_add_bad_alpha(device):
    # As torch.add: no floating alpha for an integral result, no bool alpha for a non-bool one.
    a = t(4, dtype=torch.int32, device=device)
    with pytest.raises(RuntimeError, match="alpha"):
        ops.add(a, a, alpha=0.5)
    f = t(4, device=device)
    with pytest.raises(RuntimeError, match="alpha"):
        ops.add(f, f, alpha=True)


# --- sum ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dim", [2, -3, 100])
def test_sum_dim_out_of_range(device, dim):
    with pytest.raises(DIM_ERRORS, match=r"[Dd]im"):
        ops.sum(t(3, 4, device=device), [dim])
    with pytest.raises(DIM_ERRORS, match=r"[Dd]im"):
        triton_jit_ops.sum(t(3, 4, device=device), dim, True)


@pytest.mark.parametrize("device", DEVICES)
def test_sum_unsupported_dtype(device):
    with pytest.raises(RuntimeError, match=r"dtype|Complex|complex"):
        ops.sum(t(4, dtype=torch.complex64, device=device), [0])


# --- softmax ------------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape,dim", [((3, 4), 2), ((3, 4), -3), ((5,), 1), ((), 1), ((2, 3, 4), 7)])
def test_softmax_dim_out_of_range(device, shape, dim):
    with pytest.raises(DIM_ERRORS, match=r"[Dd]im"):
        ops.softmax(t(*shape, device=device), dim)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.bool, torch.complex64])
def test_softmax_unsupported_dtype(device, dtype):
    with pytest.raises(RuntimeError, match="dtype|float|Int|Long|Bool|Complex"):
        ops.softmax(t(3, 4, dtype=dtype, device=device), 1)


# --- matmul -------------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("sa,sb,ta,tb", [((3, 4), (5, 6), False, False), ((3, 4), (3, 6), False, False),
                                         ((3, 4), (4, 6), True, False), ((3, 4), (4, 6), False, True),
                                         ((4, 3), (6, 4), True, False)])
def test_matmul_inner_dims_differ(device, sa, sb, ta, tb):
    with pytest.raises(RuntimeError, match=r"shape|size|dim|[Mm]ismatch|match|inner|K"):
        ops.matmul(t(*sa, device=device), t(*sb, device=device), ta, tb)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("sa,sb", [((4,), (4, 3)), ((3, 4), (4,)), ((), ())])
def test_matmul_needs_matrices(device, sa, sb):
    with pytest.raises(RuntimeError):
        ops.matmul(t(*sa, device=device), t(*sb, device=device))


@pytest.mark.parametrize("device", DEVICES)
def test_matmul_dtype_mismatch(device):
    with pytest.raises(RuntimeError, match=r"dtype|type"):
        ops.matmul(t(3, 4, device=device), t(4, 5, dtype=torch.float16, device=device))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.int32, torch.bool, torch.complex64])
def test_matmul_unsupported_dtype(device, dtype):
    with pytest.raises(RuntimeError, match=r"dtype|Int|Bool|Complex|float"):
        ops.matmul(t(3, 4, dtype=dtype, device=device), t(4, 5, dtype=dtype, device=device))


# --- the process survives: after all of the above, a good call still works ----------------------

def test_still_working_after_errors():
    for _ in range(3):
        with pytest.raises(RuntimeError):
            ops.add(torch.ones(2), torch.ones(2))
        with pytest.raises(RuntimeError):
            ops.matmul(torch.empty(2, 3, device="meta"), torch.empty(2, 3, device="meta"))
    assert ops.add(torch.empty(2, 3, device="meta"), torch.empty(3, device="meta")).shape == (2, 3)

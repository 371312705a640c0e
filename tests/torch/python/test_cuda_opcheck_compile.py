"""torch.library.opcheck of each operator over several inputs, and torch.compile(fullgraph=True)
against eager. Every test here skips without a CUDA GPU."""
import pytest
import torch

import triton_jit_ops
from conftest import FLOAT_DTYPES, requires_cuda
from cuda_util import CUDA, rand

pytestmark = requires_cuda
ops = torch.ops.triton_jit_ops

# --- torch.library.opcheck ----------------------------------------------------------------------

def opcheck_cases():
    cases = []
    for dtype in FLOAT_DTYPES:
        cases += [
            ("add", lambda dtype=dtype: ((rand((5, 7), dtype), rand((5, 7), dtype)), {})),
            ("add", lambda dtype=dtype: ((rand((3, 1, 4), dtype), rand((5, 1), dtype)), {"alpha": 2})),
            ("sum", lambda dtype=dtype: ((rand((6, 9), dtype), [1], True), {})),
            ("sum", lambda dtype=dtype: ((rand((6, 9, 3), dtype), None, False), {"dtype": torch.float32})),
            ("softmax", lambda dtype=dtype: ((rand((6, 33), dtype), -1), {})),
            ("softmax", lambda dtype=dtype: ((rand((4, 5, 6), dtype), 1), {})),
            ("matmul", lambda dtype=dtype: ((rand((16, 32), dtype), rand((32, 8), dtype)), {})),
            ("matmul", lambda dtype=dtype: ((rand((32, 16), dtype), rand((8, 32), dtype), True, True), {})),
        ]
    cases += [
        ("add", lambda: ((rand((4, 6), torch.int32), rand((6,), torch.int64)), {"alpha": 3})),
        ("add", lambda: ((rand((6, 4)).t(), rand((6, 4)).t()), {})),  # same-layout transposed inputs
        ("add", lambda: ((rand((4, 6))[:, ::2], rand((3,), torch.float16)), {})),
        ("sum", lambda: ((rand((5, 6), torch.int32), [0], False), {})),
        ("sum", lambda: ((rand((7, 5)).t(), [-1], False), {})),
        ("softmax", lambda: ((rand((5, 7)).t(), 0), {})),
        ("matmul", lambda: ((rand((16, 32)).requires_grad_(), rand((32, 8)).requires_grad_()), {})),
        ("matmul", lambda: ((rand((32, 16)).requires_grad_(), rand((32, 8)).requires_grad_(), True, False), {})),
    ]
    return cases


OPCHECK_CASES = opcheck_cases()


@pytest.mark.parametrize("case", range(len(OPCHECK_CASES)))
def test_opcheck(case):
    name, make = OPCHECK_CASES[case]
    args, kwargs = make()
    # matmul's tf32 / low-precision results differ run to run only in rounding.
    atol, rtol = (1e-2, 1e-2) if name == "matmul" else (None, None)
    torch.library.opcheck(getattr(ops, name).default, args, kwargs, atol=atol, rtol=rtol)


# --- torch.compile ------------------------------------------------------------------------------

def _compiled_matches_eager(f, *args, rtol=1e-4, atol=1e-4):
    torch._dynamo.reset()
    eager = f(*args)
    compiled = torch.compile(f, fullgraph=True)(*args)
    torch.testing.assert_close(compiled, eager, rtol=rtol, atol=atol)
    return compiled


def test_compile_each_op():
    a, b = rand((16, 32)), rand((32, 8))
    _compiled_matches_eager(lambda x, y: triton_jit_ops.add(x, y, alpha=2), a, a * 3)
    _compiled_matches_eager(lambda x: triton_jit_ops.sum(x, 1, True), a)
    _compiled_matches_eager(lambda x: triton_jit_ops.sum(x, dtype=torch.float64), a)
    _compiled_matches_eager(lambda x: triton_jit_ops.softmax(x, -1), a)
    _compiled_matches_eager(lambda x, y: triton_jit_ops.matmul(x, y), a, b, rtol=1e-2, atol=1e-2)


def test_compile_chain_with_torch_ops():
    def f(x, w, bias):
        h = ops.matmul(x, w, False, True)
        h = ops.add(h, bias, alpha=0.5)
        h = torch.relu(h) * 2
        return ops.softmax(h, -1), ops.sum(h, [0], False)

    x, w, bias = rand((64, 32)), rand((48, 32)), rand((48,))
    p_e, s_e = f(x, w, bias)
    torch._dynamo.reset()
    p_c, s_c = torch.compile(f, fullgraph=True)(x, w, bias)
    torch.testing.assert_close(p_c, p_e, rtol=1e-2, atol=1e-3)
    torch.testing.assert_close(s_c, s_e, rtol=1e-2, atol=1e-2)


def test_compile_dynamic_shapes():
    f = torch.compile(lambda x, y: ops.softmax(ops.add(x, y), 1), fullgraph=True, dynamic=True)
    torch._dynamo.reset()
    for m, n in [(3, 5), (7, 9), (130, 257)]:
        x, y = rand((m, n)), rand((n,))
        torch.testing.assert_close(f(x, y), torch.softmax(x + y, 1), rtol=1e-5, atol=1e-6)


def test_compile_backward_matches_eager():
    def loss(a, b):
        return (ops.matmul(a, b) * torch.arange(16, device=CUDA)).sum()  # ops.sum has no autograd formula

    a0, b0 = rand((32, 24)) / 4, rand((24, 16)) / 4
    a1, b1 = a0.clone().requires_grad_(), b0.clone().requires_grad_()
    a2, b2 = a0.clone().requires_grad_(), b0.clone().requires_grad_()
    loss(a1, b1).backward()
    torch._dynamo.reset()
    torch.compile(loss, fullgraph=True)(a2, b2).backward()
    torch.testing.assert_close(a2.grad, a1.grad, rtol=1e-2, atol=1e-2)
    torch.testing.assert_close(b2.grad, b1.grad, rtol=1e-2, atol=1e-2)

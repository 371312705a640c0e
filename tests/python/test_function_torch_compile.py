"""A triton_jit.Function with fake() is a torch.library operator: torch.compile(fullgraph=True)
traces it (forward and backward) and torch.library.opcheck's schema, fake and autograd
registration tests pass. On the CPU: Functions computed by torch ops, and ops.dot with its Triton
matmul replaced by torch's (the compiled ops.dot on the GPU is in test_gpu.py)."""
import sys

import pytest

torch = pytest.importorskip("torch", reason="these tests register torch operators")

import triton_jit

dot_module = sys.modules["triton_jit.ops._dot"]


class Scale(triton_jit.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        Scale.fake(ctx, x, alpha)
        return x * alpha + x * x

    @staticmethod
    def fake(ctx, x, alpha):
        ctx.alpha = alpha
        ctx.save_for_backward(x)
        return torch.empty_like(x)

    @staticmethod
    def backward(ctx, grad):
        (x, ) = ctx.saved_tensors
        return grad * (ctx.alpha + 2 * x), None


def test_function_with_fake_is_a_torch_operator():
    x = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    y = Scale.apply(x, 1.5)
    op = Scale._torch_ops[("Tensor", "float")]
    assert isinstance(op, torch._ops.OpOverload) and op.namespace == "triton_jit"
    assert f"triton_jit_{op.name().split('::')[1]}" in y.grad_fn.name()  # the operator's own autograd
    y.sum().backward()
    torch.testing.assert_close(x.grad, 1.5 + 2 * x.detach())
    assert torch.autograd.gradcheck(lambda t: Scale.apply(t, -0.5), (x, ))
    Scale.apply(x, 2)  # an int: another schema, another operator
    assert set(Scale._torch_ops) == {("Tensor", "float"), ("Tensor", "SymInt")}


def test_opcheck_passes():
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    op = Scale._torch_ops.get(("Tensor", "float")) or (Scale.apply(x, 1.0), Scale._torch_ops[("Tensor", "float")])[1]
    result = torch.library.opcheck(op, (x, 0.75))
    assert all(v == "SUCCESS" for v in result.values()), result


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_torch_compile_fullgraph_traces_forward_and_backward(backend):
    torch._dynamo.reset()
    x = torch.randn(6, 2, dtype=torch.float64, requires_grad=True)

    @torch.compile(fullgraph=True, backend=backend)
    def f(t):
        return Scale.apply(t, 3.0).sum() * 2

    out = f(x)
    torch.testing.assert_close(out, ((x * 3 + x * x).sum() * 2).detach())
    out.backward()
    torch.testing.assert_close(x.grad, 2 * (3.0 + 2 * x.detach()))


def test_fake_tensors_get_the_declared_shape():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        a = torch.empty(7, 4)
        b = torch.empty(5, 4)
        c = triton_jit.ops.dot(a, b, False, True)  # runs the fake kernel: no launch
        assert c.shape == (7, 5) and c.dtype == torch.float32
        with pytest.raises(ValueError, match="inner dimensions"):
            triton_jit.ops.dot(a, b)


def _torch_matmul(a, b, ta, tb):
    return (a.T if ta else a) @ (b.T if tb else b)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_compiled_dot_gradients_match_torch(monkeypatch, ta, tb):
    monkeypatch.setattr(dot_module, "matmul", _torch_matmul)
    torch._dynamo.reset()
    m, k, n = 5, 4, 3
    a = torch.randn(*((k, m) if ta else (m, k)), dtype=torch.float64, requires_grad=True)
    b = torch.randn(*((n, k) if tb else (k, n)), dtype=torch.float64, requires_grad=True)
    g = torch.randn(m, n, dtype=torch.float64)
    compiled = torch.compile(lambda x, y: (triton_jit.ops.dot(x, y, ta, tb) * g).sum(), fullgraph=True,
                             backend="aot_eager")
    da, db = torch.autograd.grad(compiled(a, b), (a, b))
    ra, rb = torch.autograd.grad((_torch_matmul(a, b, ta, tb) * g).sum(), (a, b))
    torch.testing.assert_close(da, ra)
    torch.testing.assert_close(db, rb)
    op = triton_jit.ops.Dot._torch_ops[("Tensor", "Tensor", "bool", "bool")]
    result = torch.library.opcheck(op, (a, b, ta, tb))
    assert all(v == "SUCCESS" for v in result.values()), result


def test_function_without_fake_keeps_torch_autograd_function():
    class NoFake(triton_jit.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = torch.ones(3, requires_grad=True)
    NoFake.apply(x).sum().backward()
    assert "_torch_ops" not in NoFake.__dict__
    torch.testing.assert_close(x.grad, torch.full((3, ), 2.0))


def test_unsupported_argument_type_is_a_clear_error():
    with pytest.raises(TypeError, match="argument 1 is a list"):
        Scale.apply(torch.ones(2), [1.0])


def test_first_use_under_torch_compile_says_to_register_first():
    class Fresh(Scale):
        pass

    torch._dynamo.reset()
    x = torch.randn(3, dtype=torch.float64)
    with pytest.raises(Exception, match="register_torch"):
        torch.compile(lambda t: Fresh.apply(t, 1.0), fullgraph=True, backend="eager")(x)
    assert Fresh.register_torch(x, 1.0) is Fresh._torch_ops[("Tensor", "float")]
    torch._dynamo.reset()
    torch.testing.assert_close(torch.compile(lambda t: Fresh.apply(t, 1.0), fullgraph=True, backend="eager")(x),
                               x + x * x)


class Repeat(triton_jit.Function):
    @staticmethod
    def forward(ctx, x, n):
        return x.repeat(n)

    @staticmethod
    def fake(ctx, x, n):
        return x.new_empty(x.shape[0] * n)

    @staticmethod
    def backward(ctx, grad):
        return None, None


def test_symbolic_sizes_pass_as_symint_arguments():
    torch._dynamo.reset()
    Repeat.register_torch(torch.ones(2), 3)
    f = torch.compile(lambda t: Repeat.apply(t, t.shape[0]), fullgraph=True, backend="aot_eager", dynamic=True)
    for n in (2, 5):
        torch.testing.assert_close(f(torch.arange(float(n))), torch.arange(float(n)).repeat(n))

"""triton_jit.Function without a GPU: torch autograd wiring (ctx.save_for_backward, saved_tensors,
attributes, gradcheck), plain calls for arrays without autograd, the framework helpers, and
ops.dot's backward rules and stride plumbing for all four transpose cases (the GPU half, with the
Triton kernel itself, is in test_gpu.py)."""
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="these tests use torch's dtypes and tensors")
import triton.language as tl

import triton_jit

dot_module = sys.modules["triton_jit.ops._dot"]


class Scale(triton_jit.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        ctx.save_for_backward(x)
        return x * alpha + x * x

    @staticmethod
    def backward(ctx, grad):
        (x, ) = ctx.saved_tensors
        return grad * (ctx.alpha + 2 * x), None


def test_torch_autograd_through_a_function():
    x = torch.randn(7, 3, dtype=torch.float64, requires_grad=True)
    y = Scale.apply(x, 1.5)
    y.sum().backward()
    torch.testing.assert_close(x.grad, 1.5 + 2 * x.detach())
    assert torch.autograd.gradcheck(lambda t: Scale.apply(t, -0.5), (x, ))
    assert issubclass(Scale._torch_autograd_function, torch.autograd.Function)
    assert Scale._torch_autograd_function is triton_jit.function._torch_function(Scale)  # made once


def test_arrays_without_autograd_get_a_plain_call():
    x = np.arange(4.0)
    np.testing.assert_allclose(Scale.apply(x, 2.0), x * 2 + x * x)


class JaxScale(triton_jit.Function):
    @staticmethod
    def forward(ctx, x, alpha, mode):
        ctx.alpha, ctx.mode = alpha, mode
        ctx.save_for_backward(x)
        return x * alpha + x * x if mode == "square" else x * alpha

    @staticmethod
    def backward(ctx, grad):
        (x, ) = ctx.saved_tensors
        slope = ctx.alpha + 2 * x if ctx.mode == "square" else ctx.alpha
        return grad * slope, None, None


def test_jax_custom_vjp_through_a_function():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    x = jnp.arange(6.0) / 3

    def loss(t):
        return JaxScale.apply(t, 1.5, "square").sum()
    np.testing.assert_allclose(jax.grad(loss)(x), 1.5 + 2 * np.asarray(x), rtol=1e-6)
    # Under jit: the non-array ctx attributes (alpha, mode) stay Python values for backward.
    np.testing.assert_allclose(jax.jit(jax.grad(loss))(x), 1.5 + 2 * np.asarray(x), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(lambda t: JaxScale.apply(t, 3.0, "linear").sum())(x), np.full(6, 3.0))
    with pytest.raises(TypeError, match="hashable"):
        class Bad(triton_jit.Function):
            @staticmethod
            def forward(ctx, t):
                ctx.shape = [1, 2]
                return t
        jax.grad(lambda t: Bad.apply(t).sum())(x)


def test_framework_helpers():
    t = torch.zeros(2, 3, dtype=torch.float16)
    assert triton_jit.shape(t) == (2, 3)
    for dtype in (None, tl.float16, "fp16", "float16", torch.float16, np.dtype("float16")):
        e = triton_jit.empty((4, 5), dtype, like=t)
        assert isinstance(e, torch.Tensor) and e.shape == (4, 5) and e.dtype == torch.float16
    assert triton_jit.empty((2, ), tl.bfloat16, like=t).dtype == torch.bfloat16
    n = triton_jit.empty((3, 2), "fp32", like=np.zeros(1))
    assert isinstance(n, np.ndarray) and n.dtype == np.float32
    assert triton_jit._frameworks.strides(np.zeros((3, 4), np.float32).T) == (1, 4)
    assert triton_jit._frameworks.strides(torch.zeros(3, 4).t()) == (1, 4)
    with pytest.raises(TypeError, match="like="):
        triton_jit.empty((1, ))
    assert triton_jit.cdiv(10, 4) == 3


CASES = [(False, False), (True, False), (False, True), (True, True)]


def op(x, t):
    return x.T if t else x


@pytest.mark.parametrize("ta,tb", CASES)
def test_dot_backward_rules_match_torch_autograd(monkeypatch, ta, tb):
    # The Triton matmul replaced by torch's, so the rules alone are tested here.
    monkeypatch.setattr(dot_module, "matmul", lambda a, b, ta_, tb_: op(a, ta_) @ op(b, tb_))
    m, k, n = 5, 4, 3
    a = torch.randn(*((k, m) if ta else (m, k)), dtype=torch.float64, requires_grad=True)
    b = torch.randn(*((n, k) if tb else (k, n)), dtype=torch.float64, requires_grad=True)
    g = torch.randn(m, n, dtype=torch.float64)
    out = triton_jit.ops.dot(a, b, ta, tb)
    torch.testing.assert_close(out, op(a, ta) @ op(b, tb))
    da, db = torch.autograd.grad(out, (a, b), g)
    ra, rb = torch.autograd.grad(op(a, ta) @ op(b, tb), (a, b), g)
    torch.testing.assert_close(da, ra)
    torch.testing.assert_close(db, rb)
    assert torch.autograd.gradcheck(lambda x, y: triton_jit.ops.dot(x, y, ta, tb), (a, b))
    # Only the gradients asked for are computed.
    calls = []
    monkeypatch.setattr(dot_module, "matmul", lambda a, b, ta_, tb_: calls.append(1) or op(a, ta_) @ op(b, tb_))
    frozen = b.detach()
    (ga, ) = torch.autograd.grad(triton_jit.ops.dot(a, frozen, ta, tb), (a, ), g)
    assert len(calls) == 2  # the forward and dA
    torch.testing.assert_close(ga, ra)


@pytest.mark.parametrize("ta,tb", CASES)
@pytest.mark.parametrize("jitted", [False, True])
def test_dot_backward_rules_match_jax_grad(monkeypatch, ta, tb, jitted):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    monkeypatch.setattr(dot_module, "matmul", lambda a, b, ta_, tb_: op(a, ta_) @ op(b, tb_))
    m, k, n = 5, 4, 3
    rng = np.random.default_rng(0)
    a = jnp.asarray(rng.standard_normal((k, m) if ta else (m, k)), jnp.float32)
    b = jnp.asarray(rng.standard_normal((n, k) if tb else (k, n)), jnp.float32)
    g = jnp.asarray(rng.standard_normal((m, n)), jnp.float32)

    def ours(x, y):
        return (triton_jit.ops.dot(x, y, ta, tb) * g).sum()

    def reference(x, y):
        return ((op(x, ta) @ op(y, tb)) * g).sum()
    grad = jax.grad(ours, argnums=(0, 1))
    if jitted:
        grad = jax.jit(grad)
    da, db = grad(a, b)
    ra, rb = jax.grad(reference, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(da, ra, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(db, rb, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("ta,tb", CASES)
def test_dot_hands_the_kernel_the_right_strides(monkeypatch, ta, tb):
    # The kernel replaced by a numpy emulation that reads its arguments exactly as the Triton
    # kernel does (pointer + row * stride_row + col * stride_col), on numpy arrays.
    launches = []

    class Kernel:
        def __getitem__(self, grid):
            def launch(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, **meta):
                launches.append((grid, meta))
                view = np.lib.stride_tricks.as_strided
                ai, bi, ci = a.itemsize, b.itemsize, c.itemsize
                A = view(a, shape=(M, K), strides=(sam * ai, sak * ai))
                B = view(b, shape=(K, N), strides=(sbk * bi, sbn * bi))
                view(c, shape=(M, N), strides=(scm * ci, scn * ci))[...] = A @ B
            return launch
    monkeypatch.setattr(dot_module, "_kernel", Kernel())
    m, k, n = 70, 33, 130
    a = np.random.rand(*((k, m) if ta else (m, k))).astype(np.float32)
    b = np.random.rand(*((n, k) if tb else (k, n))).astype(np.float32)
    c = triton_jit.ops.matmul(a, b, ta, tb)
    np.testing.assert_allclose(c, op(a, ta) @ op(b, tb), rtol=1e-5)
    grid, meta = launches[0]
    assert grid == (2, 3) and meta == {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}
    with pytest.raises(ValueError, match="inner dimensions"):
        triton_jit.ops.matmul(a, b, not ta, tb)

"""Launches on the GPU: results against torch (and CuPy, Numba, JAX where installed), the kernel
Triton itself launches, decorated kernels, grids, and the framework's current stream respected.
Every test skips with its reason on a machine without a CUDA GPU."""
import pytest

from conftest import has_gpu

pytestmark = pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)")

if has_gpu():
    import torch
    import triton
    import triton.language as tl

    import triton_jit
    import py_kernels


def grid_for(n, block):
    return (triton.cdiv(n, block), )


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [1, 1000, 4096, 100003])
def test_add_matches_torch(dtype, n):
    dt = getattr(torch, dtype)
    x = torch.randn(n, device="cuda", dtype=dt)
    y = torch.randn(n, device="cuda", dtype=dt)
    out = torch.empty_like(x)
    add = triton_jit.jit(py_kernels.add_kernel)
    add[grid_for(n, 1024)](x, y, out, n)
    torch.testing.assert_close(out, x + y)
    out.zero_()
    add[lambda meta: grid_for(meta["n"], meta["BLOCK"])](x, y, out, n=n, BLOCK=256, num_warps=2)
    torch.testing.assert_close(out, x + y)


def test_same_kernel_as_tritons_launch():
    n = 5000
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    reference = py_kernels.add_kernel.warmup(x, y, out, n, BLOCK=256, grid=(1, ))
    ours = triton_jit.jit(py_kernels.add_kernel).compile(x, y, out, n, BLOCK=256)
    reference_hash = getattr(reference, "hash", None) or reference.metadata.hash
    assert ours.hash == str(reference_hash)


def test_scalars_constexprs_and_dtype_arguments():
    n = 3000
    x = torch.randn(n, device="cuda")
    out = torch.empty(n, device="cuda", dtype=torch.float16)
    k = triton_jit.jit(py_kernels.scale_kernel)
    k[grid_for(n, 256)](x, out, n, 2.5, True, tl.float16)
    torch.testing.assert_close(out, (x.half() * 2.5), rtol=2e-3, atol=2e-3)
    k[grid_for(n, 128)](x, out, n, 2.5, False, DTYPE=tl.float16, BLOCK=128)
    torch.testing.assert_close(out, x.half())


def test_fourteen_arguments():
    n = 2048
    ps = [torch.randn(n, device="cuda") for _ in range(7)]
    out = torch.empty(n, device="cuda")
    k = triton_jit.jit(py_kernels.wide_kernel)
    k[grid_for(n, 512)](*ps, out, n, 3, 5, 7, 11, BLOCK=512)
    torch.testing.assert_close(out, sum(ps) + (3 + 5 + 7 + 11))


def test_autotuned_and_heuristics_kernels():
    n = 10000
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    tuned = triton_jit.jit(py_kernels.tuned_add_kernel)
    tuned[lambda meta: grid_for(n, meta["BLOCK"])](x, y, out, n)
    torch.testing.assert_close(out, x + y)
    out.zero_()
    even = triton_jit.jit(py_kernels.even_add_kernel)
    even[grid_for(n, 128)](x, y, out, n, 128)
    torch.testing.assert_close(out, x + y)


def test_cached_launches_do_not_compile_again():
    n = 4096
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    add = triton_jit.jit(py_kernels.add_kernel)
    add[(4, )](x, y, out, n)
    before = add.stats()
    for _ in range(100):
        add[(4, )](x, y, out, n)
    after = add.stats()
    assert after["compiles"] == before["compiles"] and after["hits"] >= before["hits"] + 100


def test_torch_current_stream_is_respected():
    # The producer of x runs on a side stream and is slow; the launch, made while that stream is
    # current, must queue behind it. Launched on another stream, it would read x before it is set.
    n = 1 << 22
    add = triton_jit.jit(py_kernels.add_kernel)
    side = torch.cuda.Stream()
    big = torch.randn(4096, 4096, device="cuda")
    x = torch.zeros(n, device="cuda")
    y = torch.ones(n, device="cuda")
    out = torch.empty(n, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        for _ in range(20):
            big = big @ big / 4096  # keeps the side stream busy
        x.fill_(2.0)
        add[grid_for(n, 1024)](x, y, out, n)
    side.synchronize()
    assert torch.all(out == 3.0)
    # stream= wins over the current stream.
    out.zero_()
    with torch.cuda.stream(side):
        x.fill_(5.0)
    add[grid_for(n, 1024)](x, y, out, n, stream=side)
    side.synchronize()
    assert torch.all(out == 6.0)


def test_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    n = 4096
    x = cupy.random.rand(n, dtype=cupy.float32)
    y = cupy.random.rand(n, dtype=cupy.float32)
    out = cupy.empty_like(x)
    add = triton_jit.jit(py_kernels.add_kernel)
    stream = cupy.cuda.Stream(non_blocking=True)
    # A non-blocking stream does not wait for the legacy default stream the inputs were made on.
    stream.wait_event(cupy.cuda.get_current_stream().record())
    with stream:  # CuPy's current stream is the launch's
        add[grid_for(n, 1024)](x, y, out, n)
    stream.synchronize()
    cupy.testing.assert_allclose(out, x + y)


def test_numba_device_arrays():
    cuda = pytest.importorskip("numba.cuda")
    import numpy as np
    n = 4096
    a, b = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
    x, y, out = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n, dtype=np.float32)
    triton_jit.jit(py_kernels.add_kernel)[grid_for(n, 1024)](x, y, out, n)
    triton_jit.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), a + b)


def test_jax_arrays():
    jax = pytest.importorskip("jax")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    import jax.numpy as jnp
    import numpy as np
    n = 4096
    x = jax.device_put(jnp.arange(n, dtype=jnp.float32))
    y = jax.device_put(jnp.ones(n, dtype=jnp.float32))
    out = jax.device_put(jnp.zeros(n, dtype=jnp.float32))
    jax.block_until_ready((x, y, out))
    triton_jit.jit(py_kernels.add_kernel)[grid_for(n, 1024)](x, y, out, n, stream=0)
    triton_jit.synchronize()
    np.testing.assert_allclose(np.asarray(out), np.arange(n, dtype=np.float32) + 1)


def test_tensor_on_another_device_is_a_value_error():
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two GPUs")
    x = torch.ones(16, device="cuda:1")
    add = triton_jit.jit(py_kernels.add_kernel)
    with pytest.raises(ValueError, match="cuda:1") as info:
        add[(1, )](x, x, x, 16)
    assert info.value.parameter == "x_ptr"


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_dot_forward_and_gradients_match_torch(ta, tb):
    m, k, n = 96, 80, 72
    a = torch.randn(*((k, m) if ta else (m, k)), device="cuda", requires_grad=True)
    b = torch.randn(*((n, k) if tb else (k, n)), device="cuda", requires_grad=True)
    g = torch.randn(m, n, device="cuda")

    def op(x, t):
        return x.T if t else x
    out = triton_jit.ops.dot(a, b, ta, tb)
    ref = op(a, ta) @ op(b, tb)
    # tl.dot takes fp32 inputs as TF32 on tensor cores: compare at TF32's precision.
    torch.testing.assert_close(out, ref, rtol=2e-2, atol=2e-2)
    da, db = torch.autograd.grad(out, (a, b), g)
    ra, rb = torch.autograd.grad(ref, (a, b), g)
    torch.testing.assert_close(da, ra, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(db, rb, rtol=2e-2, atol=2e-2)


def test_dot_trains_in_torch():
    torch.manual_seed(0)
    x = torch.randn(256, 64, device="cuda")
    w_true = torch.randn(64, 32, device="cuda")
    y = x @ w_true
    w = torch.zeros(64, 32, device="cuda", requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    for _ in range(200):
        opt.zero_grad()
        loss = ((triton_jit.ops.dot(x, w) - y) ** 2).sum() / x.shape[0]
        loss.backward()
        opt.step()
    assert loss.item() < 1e-2, loss.item()


def test_dot_with_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    a = cupy.random.rand(64, 48, dtype=cupy.float32)
    b = cupy.random.rand(40, 48, dtype=cupy.float32)
    out = triton_jit.ops.dot(a, b, False, True)
    cupy.cuda.get_current_stream().synchronize()
    cupy.testing.assert_allclose(out, a @ b.T, rtol=2e-2, atol=2e-2)


def _jax_gpu():
    jax = pytest.importorskip("jax", reason="jax is not installed")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    if not triton_jit._jax.available():
        pytest.skip("the extension was built without jax's XLA FFI headers (jax not importable at build time)")
    return jax


def test_add_under_jax_jit_runs_through_the_ffi_custom_call():
    jax = _jax_gpu()
    import jax.numpy as jnp
    import numpy as np

    @jax.jit
    def add(x, y):
        out = triton_jit.empty(x.shape, like=x)
        triton_jit.jit(py_kernels.add_kernel)[grid_for(x.size, 1024)](x, y, out, x.size, BLOCK=1024)
        out2 = triton_jit.empty(x.shape, like=x)
        triton_jit.jit(py_kernels.add_kernel)[grid_for(x.size, 1024)](out.value, y, out2, x.size, BLOCK=1024)
        return out2.value * 2

    n = 100003
    x = jnp.arange(n, dtype=jnp.float32)
    y = jnp.ones(n, dtype=jnp.float32)
    np.testing.assert_allclose(np.asarray(add(x, y)), (np.arange(n, dtype=np.float32) + 2) * 2)
    np.testing.assert_allclose(np.asarray(add(y, y)), np.full(n, 6.0, np.float32))  # the same compiled call


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_dot_grad_under_jax_jit_matches_jax(ta, tb):
    jax = _jax_gpu()
    import jax.numpy as jnp
    import numpy as np
    m, k, n = 96, 80, 72
    rng = np.random.default_rng(0)
    a = jnp.asarray(rng.standard_normal((k, m) if ta else (m, k)), jnp.float32)
    b = jnp.asarray(rng.standard_normal((n, k) if tb else (k, n)), jnp.float32)
    g = jnp.asarray(rng.standard_normal((m, n)), jnp.float32)

    def op(x, t):
        return x.T if t else x

    def ours(x, y):
        return (triton_jit.ops.dot(x, y, ta, tb) * g).sum()

    def ref(x, y):
        return ((op(x, ta) @ op(y, tb)) * g).sum()
    np.testing.assert_allclose(jax.jit(lambda x, y: triton_jit.ops.dot(x, y, ta, tb))(a, b), op(a, ta) @ op(b, tb),
                               rtol=2e-2, atol=2e-2)
    da, db = jax.jit(jax.grad(ours, argnums=(0, 1)))(a, b)
    ra, rb = jax.grad(ref, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(da, ra, rtol=2e-2, atol=5e-2)
    np.testing.assert_allclose(db, rb, rtol=2e-2, atol=5e-2)
    # The other operand closed over (a concrete array inside the trace, and a concrete residual).
    np.testing.assert_allclose(jax.jit(jax.grad(lambda x: ours(x, b)))(a), ra, rtol=2e-2, atol=5e-2)
    np.testing.assert_allclose(jax.jit(jax.grad(lambda y: ours(a, y)))(b), rb, rtol=2e-2, atol=5e-2)


def test_dot_trains_in_jax_under_jit():
    jax = _jax_gpu()
    import jax.numpy as jnp
    x = jax.random.normal(jax.random.PRNGKey(0), (256, 64))
    y = x @ jax.random.normal(jax.random.PRNGKey(1), (64, 32))

    @jax.jit
    def step(w):
        loss, grad = jax.value_and_grad(lambda w: ((triton_jit.ops.dot(x, w) - y) ** 2).sum() / x.shape[0])(w)
        return w - 0.1 * grad, loss
    w = jnp.zeros((64, 32))
    for _ in range(200):
        w, loss = step(w)
    assert float(loss) < 1e-2, float(loss)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, True)])
def test_dot_under_torch_compile_matches_torch(backend, ta, tb):
    torch._dynamo.reset()
    m, k, n = 96, 80, 72
    a = torch.randn(*((k, m) if ta else (m, k)), device="cuda", requires_grad=True)
    b = torch.randn(*((n, k) if tb else (k, n)), device="cuda", requires_grad=True)
    g = torch.randn(m, n, device="cuda")

    def op(x, t):
        return x.T if t else x
    triton_jit.ops.Dot.register_torch(a, b, ta, tb)
    compiled = torch.compile(lambda x, y: triton_jit.ops.dot(x, y, ta, tb), fullgraph=True, backend=backend)
    out = compiled(a, b)
    ref = op(a, ta) @ op(b, tb)
    torch.testing.assert_close(out, ref, rtol=2e-2, atol=2e-2)
    da, db = torch.autograd.grad(out, (a, b), g)
    ra, rb = torch.autograd.grad(ref, (a, b), g)
    torch.testing.assert_close(da, ra, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(db, rb, rtol=2e-2, atol=2e-2)
    result = torch.library.opcheck(triton_jit.ops.Dot._torch_ops[("Tensor", "Tensor", "bool", "bool")],
                                   (a, b, ta, tb), atol=2e-2, rtol=2e-2)
    assert all(v == "SUCCESS" for v in result.values()), result


def test_hip_specialization_reads_a_torch_tensors_storage():
    """For a HIP target, a torch tensor's 'S' comes from its whole storage (untyped_storage()),
    as Triton's HIP backend reads it: a view into a 3 GiB storage gets none, a small one does."""
    import triton_reference
    small = torch.empty(1024, device="cuda")
    view = small[16:]  # the same 4 KiB storage
    large = torch.empty(3 << 30, device="cuda", dtype=torch.uint8)[: 4096].view(torch.float32)
    fn = py_kernels.add_kernel
    triton_jit.set_target("hip:gfx942")
    try:
        ours = triton_jit.jit(fn).specialize(small, view, large, 1000, BLOCK=256).triton_repr()
    finally:
        triton_jit.set_target(None)
    want = triton_reference.triton_specialization(fn, [([small, view, large, 1000], {"BLOCK": 256})],
                                                  ("hip", "gfx942", 64))[0]
    assert ours == want
    from triton import knobs
    if knobs.amd.use_buffer_ops:
        assert want.startswith("[('*fp32', 'DS'), ('*fp32', 'DS'), ('*fp32', 'D')"), want


def test_torch_tensors_read_from_cxx_or_by_python_launch_what_data_ptr_says():
    """A launch reads plain tensors and Parameters through libtorch from C++ (triton_jit._torch_native
    where built) and the rest through Python: a subclass, and every tensor while torch.Tensor's
    data_ptr is patched (as device plugins patch it), whose replacement the launch must call, as
    Triton's launch does."""
    n = 4096
    x = torch.randn(n, device="cuda")
    y = torch.nn.Parameter(torch.randn(n, device="cuda"))
    add = triton_jit.jit(py_kernels.add_kernel)
    out = torch.zeros(n + 256, device="cuda")
    add[grid_for(n, 1024)](x, y, out, n)
    torch.testing.assert_close(out[:n], x + y.detach())

    class Marked(torch.Tensor):
        pass

    out.zero_()
    add[grid_for(n, 1024)](x.as_subclass(Marked), y, out.as_subclass(Marked), n)
    torch.testing.assert_close(out[:n], x + y.detach())

    # data_ptr patched to point 256 floats further: the sum lands there, in out's tail.
    out.zero_()
    original = torch.Tensor.data_ptr
    torch.Tensor.data_ptr = lambda self: original(self) + (256 * 4 if self is out else 0)
    try:
        add[grid_for(n, 1024)](x, y, out, n)
    finally:
        del torch.Tensor.data_ptr
    assert torch.Tensor.data_ptr is original
    torch.testing.assert_close(out[256:], x + y.detach())
    assert torch.count_nonzero(out[:256]) == 0


def test_the_current_stream_read_from_cxx_is_torchs():
    native_stream = triton_jit._C._torch_current_stream_for_test
    if native_stream(0) is None:
        pytest.skip("triton_jit._torch_native is not built: the stream is asked through Python")
    for device in range(torch.cuda.device_count()):
        assert native_stream(device) == torch._C._cuda_getCurrentRawStream(device)
        side = torch.cuda.Stream(device)
        with torch.cuda.stream(side):
            assert native_stream(device) == side.cuda_stream == torch._C._cuda_getCurrentRawStream(device)
        assert native_stream(device) == torch.cuda.current_stream(device).cuda_stream

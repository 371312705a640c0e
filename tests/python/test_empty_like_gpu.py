"""Launches whose outputs are triton_jit.empty_like placeholders, on the GPU: the array each call
allocates and returns equals torch's own result bit for bit (torch.add for the small add, over
dtypes and shapes; x + y and x - y for a tiled autotuned kernel writing two outputs, plain and
under @triton_jit.jit), the launch uses the kernel a real output's launch compiled, and CuPy and
JAX arrays (where installed) get outputs of their own framework. Skips without a CUDA GPU."""
import pytest

from conftest import has_gpu

pytestmark = pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)")

if has_gpu():
    import torch

    import triton_jit
    import empty_like_kernels
    import py_kernels

_BITS = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}


def assert_same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape and got.device == want.device
    bits = getattr(torch, _BITS[got.element_size()])
    assert torch.equal(got.contiguous().view(bits), want.contiguous().view(bits))


def random(shape, dtype):
    if dtype.is_floating_point:
        return torch.randn(shape, device="cuda", dtype=dtype)
    return torch.randint(-1000, 1000, shape, device="cuda", dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int32"])
@pytest.mark.parametrize("shape", [(1, ), (4096, ), (100003, ), (64, 96), (3, 5, 7)])
def test_the_placeholder_add_equals_torch_add_bit_for_bit(dtype, shape):
    dt = getattr(torch, dtype)
    x, y = random(shape, dt), random(shape, dt)
    n = x.numel()
    add = triton_jit.jit(py_kernels.add_kernel)
    out = add[(triton_jit.cdiv(n, 1024), )](x, y, triton_jit.empty_like(x), n)
    assert isinstance(out, torch.Tensor)
    assert_same_bits(out, torch.add(x, y))
    # With a grid function and keywords; and through run(grid=).
    out = add[lambda meta: (triton_jit.cdiv(meta["n"], meta["BLOCK"]), )](x, y, out_ptr=triton_jit.empty_like(x), n=n,
                                                                          BLOCK=256)
    assert_same_bits(out, torch.add(x, y))
    out = add.run(x, y, triton_jit.empty_like(x), n, grid=(triton_jit.cdiv(n, 1024), ))
    assert_same_bits(out, torch.add(x, y))


def test_dtype_and_shape_of_the_placeholder():
    x = torch.randn(4096, device="cuda")
    y = torch.randn(4096, device="cuda")
    add = triton_jit.jit(py_kernels.add_kernel)
    out = add[(4, )](x, y, triton_jit.empty_like(x, torch.float16), 4096)
    assert out.dtype == torch.float16 and out.shape == (4096, )
    assert_same_bits(out, torch.add(x, y).to(torch.float16))
    out = add[(4, )](x, y, triton_jit.empty_like(x, shape=(64, 64)), 4096)
    assert out.shape == (64, 64)
    assert_same_bits(out, torch.add(x, y).view(64, 64))


def test_a_placeholder_launch_uses_the_kernel_a_real_output_compiled():
    x = torch.randn(5000, device="cuda")
    add = triton_jit.jit(py_kernels.add_kernel)
    add[(5, )](x, x, torch.empty_like(x), 5000)
    before = add.stats()
    out = add[(5, )](x, x, triton_jit.empty_like(x), 5000)
    after = add.stats()
    assert after["compiles"] == before["compiles"] and after["misses"] == before["misses"]
    assert after["hits"] >= before["hits"] + 1
    assert_same_bits(out, x + x)
    assert add.specialize(x, x, triton_jit.empty_like(x), 5000).signature() == \
        add.specialize(x, x, torch.empty_like(x), 5000).signature()


def test_a_launch_without_placeholders_returns_none():
    x = torch.randn(16, device="cuda")
    assert triton_jit.jit(py_kernels.add_kernel)[(1, )](x, x, torch.empty_like(x), 16) is None


@pytest.mark.parametrize("kernel", ["sum_and_difference_kernel", "decorated_sum_and_difference_kernel"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape", [(1, 1), (100, 70), (257, 1031)])
def test_an_autotuned_tiled_kernel_returns_its_two_outputs_in_parameter_order(kernel, dtype, shape):
    dt = getattr(torch, dtype)
    x, y = random(shape, dt), random(shape, dt)
    M, N = shape
    k = triton_jit.jit(getattr(empty_like_kernels, kernel))

    def grid(meta):
        return (triton_jit.cdiv(M, meta["BLOCK_M"]), triton_jit.cdiv(N, meta["BLOCK_N"]))

    outputs = k[grid](x, y, triton_jit.empty_like(x), triton_jit.empty_like(x), M, N, x.stride(0))
    assert isinstance(outputs, tuple) and len(outputs) == 2
    total, difference = outputs
    assert_same_bits(total, x + y)
    assert_same_bits(difference, x - y)
    # By keyword, in another order: still parameter order.
    total, difference = k[grid](x, y, M=M, N=N, stride_m=x.stride(0), difference_ptr=triton_jit.empty_like(x),
                                sum_ptr=triton_jit.empty_like(x))
    assert_same_bits(total, x + y)
    assert_same_bits(difference, x - y)


def test_the_output_is_allocated_on_the_current_stream_and_launched_there():
    x = torch.randn(1 << 20, device="cuda")
    add = triton_jit.jit(py_kernels.add_kernel)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        out = add[(triton_jit.cdiv(x.numel(), 1024), )](x, x, triton_jit.empty_like(x), x.numel())
    side.synchronize()
    assert_same_bits(out, x + x)


def test_cuda_outputs_are_allocated_by_libtorch_from_cxx_as_torch_allocates_them():
    """triton_jit._torch_native (where built) takes plain CUDA tensors: torch.empty_like's and
    Tensor.new_empty's results, on like's device, from the caching allocator, on another device
    than the current one too."""
    try:
        from triton_jit import _torch_native  # noqa: F401
    except ImportError as e:
        pytest.skip(f"triton_jit._torch_native was not built ({e})")
    _C = triton_jit._C
    _C._torch_native_reset_for_test()
    base = torch.randn(2, 3, 4, 5, device="cuda")
    devices = [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
    likes = [base, base.contiguous(memory_format=torch.channels_last), base.permute(3, 1, 0, 2), base[:, :, ::2],
             torch.zeros(4, 1, device=devices[-1]).expand(4, 6)]
    for like in likes:
        for dtype, shape in ((None, None), (torch.float16, None), (None, (7, 3)), (torch.int32, 9)):
            before = torch.cuda.memory_allocated(like.device)
            got, path = _C._placeholder_allocate_for_test(like, dtype, shape)
            assert path == "c++"
            want = (torch.empty_like(like, **({} if dtype is None else {"dtype": dtype})) if shape is None else
                    like.new_empty(shape, **({} if dtype is None else {"dtype": dtype})))
            assert (type(got), got.dtype, got.shape, got.stride(), got.device) == \
                (type(want), want.dtype, want.shape, want.stride(), want.device)
            assert got.requires_grad is False
            assert torch.cuda.memory_allocated(like.device) > before or got.numel() == 0
            del got, want  # freed before the next `before`: the caching allocator's count only grows by them
    # The launch itself takes the same path: the add's output is bit for bit torch.add's.
    x = torch.randn(4096, device="cuda")
    add = triton_jit.jit(py_kernels.add_kernel)
    assert_same_bits(add[(4, )](x, x, triton_jit.empty_like(x), x.numel()), torch.add(x, x))


def test_cupy_arrays_get_cupy_outputs():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    x = cupy.arange(4096, dtype=cupy.float32)
    y = cupy.ones(4096, dtype=cupy.float32)
    out = triton_jit.jit(py_kernels.add_kernel)[(4, )](x, y, triton_jit.empty_like(x), 4096)
    assert isinstance(out, cupy.ndarray) and out.dtype == cupy.float32 and out.shape == (4096, )
    cupy.cuda.get_current_stream().synchronize()
    assert bool((out == x + y).all())


def test_jax_arrays_get_jax_outputs():
    jax = pytest.importorskip("jax", reason="JAX is not installed")
    import jax.numpy as jnp
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    x = jax.device_put(jnp.arange(4096, dtype=jnp.float32))
    y = jax.device_put(jnp.ones(4096, dtype=jnp.float32))
    jax.block_until_ready((x, y))
    out = triton_jit.jit(py_kernels.add_kernel)[(4, )](x, y, triton_jit.empty_like(x), 4096, stream=0)
    triton_jit.synchronize()
    import numpy as np
    assert out.shape == (4096, ) and out.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(out), np.arange(4096, dtype=np.float32) + 1)

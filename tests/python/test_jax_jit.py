"""Kernel launches inside jax.jit become XLA FFI custom calls ("triton_jit_launch") without a GPU:
lowering for CUDA shows the custom call with its `launch` attribute, operands and results in
parameter order, outputs declared by triton_jit.empty, aliasing for an output written twice, and
the prepared launch checked where it was traced. On XLA's CPU platform the handler's twin runs the
calls with numpy versions of the kernels on the buffers it wired (gradients and training under
jit); the launches themselves run in test_gpu.py."""
import re

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="jax is not installed (pip install jax): the jax.jit path is not tested")
import jax.numpy as jnp

import triton_jit

if not triton_jit._jax.available():
    pytest.skip("the extension was built without jax's XLA FFI headers (jax not importable at build time)",
                allow_module_level=True)

import py_kernels as add_kernels  # noqa: E402  (tests/python/kernels)


def lowered(fn, *args):
    return jax.jit(fn).trace(*args).lower(lowering_platforms=("cuda", )).as_text()


def custom_calls(text):
    return re.findall(r"stablehlo.custom_call @triton_jit_launch\(([^)]*)\).*?launch = (\d+)", text)


def add(x, y):
    out = triton_jit.empty(x.shape, like=x)
    triton_jit.jit(add_kernels.add_kernel)[(triton_jit.cdiv(x.size, 1024), )](x, y, out, x.size, BLOCK=1024)
    return out.value


def test_a_launch_under_jit_lowers_to_the_custom_call():
    x = jnp.ones(4096, jnp.float32)
    text = lowered(add, x, x * 2)
    calls = custom_calls(text)
    assert len(calls) == 1
    operands, launch = calls[0]
    assert operands.count("%") == 2  # x and y; out is the call's result
    # The same launch traced again is the same prepared launch.
    assert custom_calls(lowered(add, x, x))[0][1] == launch
    assert "tensor<4096xf32>" in text


def buffers_of(launch_id, kernel):
    return {kernel.arg_names[i]: b for i, b in triton_jit._C._deferred_buffers(int(launch_id))}


def test_buffers_map_to_their_parameters():
    k = triton_jit.jit(add_kernels.add_kernel)
    x = jnp.ones(4096, jnp.float32)
    # Operands first (x, y), then results (out).
    (_, launch), = custom_calls(lowered(add, x, x * 2))
    assert buffers_of(launch, k) == {"x_ptr": 0, "y_ptr": 1, "out_ptr": 2}

    def same_twice(x):
        out = triton_jit.empty(x.shape, like=x)
        k[(4, )](x, x, out, x.size)
        return out.value

    (operands, launch), = custom_calls(lowered(same_twice, x))
    assert operands.count("%") == 1 and buffers_of(launch, k) == {"x_ptr": 0, "y_ptr": 0, "out_ptr": 1}

    def keywords(x, y):
        out = triton_jit.empty(x.shape, like=x)
        k[(4, )](out_ptr=out, y_ptr=x, x_ptr=y, n=x.size)
        return out.value

    (_, launch), = custom_calls(lowered(keywords, x, x))
    # Numbered in the order the call names them: out (a result) after the operands y_ptr, x_ptr.
    assert buffers_of(launch, k) == {"out_ptr": 2, "y_ptr": 0, "x_ptr": 1}


def test_an_output_written_twice_is_aliased():
    def twice(x):
        out = triton_jit.empty(x.shape, like=x)
        k = triton_jit.jit(add_kernels.add_kernel)[(4, )]
        k(x, x, out, x.size, BLOCK=1024)
        k(out, x, out, x.size, BLOCK=1024)  # reads and writes out
        return out.value

    text = lowered(twice, jnp.ones(4096, jnp.float32))
    assert len(custom_calls(text)) == 2
    assert "output_operand_aliases" in text or "tf.aliasing_output" in text


def test_ops_dot_grad_under_jit_lowers_to_custom_calls():
    a = jnp.ones((64, 32), jnp.float32)
    b = jnp.ones((16, 32), jnp.float32)
    grad = jax.grad(lambda x, y: triton_jit.ops.dot(x, y, False, True).sum(), argnums=(0, 1))
    calls = custom_calls(lowered(grad, a, b))
    assert len(calls) == 2  # dA and dB (the forward's value is not needed)
    assert len({launch for _, launch in calls}) == 2


def test_errors_show_where_the_launch_was_traced():
    x = jnp.ones(16, jnp.float32)

    def missing(x):
        out = triton_jit.empty(x.shape, like=x)
        triton_jit.jit(add_kernels.add_kernel)[(1, )](x, x, out, BLOCK=16)
        return out.value

    with pytest.raises(triton_jit.ArgumentError, match="missing a required argument"):
        lowered(missing, x)

    def unwritten(x):
        return triton_jit.empty(x.shape, like=x).value + triton_jit._jax.resolve(triton_jit.empty((2, ), like=x))

    with pytest.raises(triton_jit.ArgumentError, match="before any kernel launch wrote it"):
        lowered(unwritten, x)


def test_concrete_host_arrays_are_not_taken_for_traced_ones():
    # Outside jit, a host array is the launch's own error (a ValueError naming the parameter). On
    # the CPU device explicitly: where JAX has a GPU, jnp.asarray would put it there.
    x = jax.device_put(np.ones(16, np.float32), jax.devices("cpu")[0])
    with pytest.raises(ValueError):
        triton_jit.jit(add_kernels.add_kernel)[(1, )](x, x, x, 16, BLOCK=16)


def test_empty_beside_a_concrete_array_under_jit_is_an_output():
    # A closed-over array (or a custom_vjp residual) is concrete inside the trace: what empty()
    # makes beside it must still be a result of the launch, not a traced constant it cannot write.
    x = jnp.ones(4096, jnp.float32)
    text = lowered(lambda y: add(x, y), x)
    (operands, _), = custom_calls(text)
    assert operands.count("%") == 2
    assert re.search(r"%(\w+) = stablehlo.custom_call @triton_jit_launch.*\n\s*return %\1\b", text)


def test_a_traced_launch_writing_no_output_is_an_error():
    # Without an Output the custom call has no results: XLA would drop it and the kernel's writes.
    def writes_a_traced_array(x):
        out = jnp.zeros_like(x)
        triton_jit.jit(add_kernels.add_kernel)[(4, )](x, x, out, x.size)
        return out

    with pytest.raises(triton_jit.ArgumentError, match=r"add_kernel: .*triton_jit.empty"):
        lowered(writes_a_traced_array, jnp.ones(4096, jnp.float32))


def test_grad_of_dot_beside_a_closed_over_input_lowers_to_its_launch():
    # jax.jit(jax.grad) of ops.dot against a closed-over x: dL/dw = xᵀ G is a launch whose result
    # is the gradient returned (it was a constant zero when empty() missed the trace).
    x = jnp.ones((64, 16), jnp.float32)
    text = lowered(jax.grad(lambda w: triton_jit.ops.dot(x, w).sum()), jnp.ones((16, 8), jnp.float32))
    (operands, _), = custom_calls(text)
    assert operands.count("%") == 2  # x and the cotangent
    assert re.search(r"%(\w+) = stablehlo.custom_call @triton_jit_launch.*\n\s*return %\1\b", text)


def test_the_handler_runs_under_xla_and_its_errors_come_back():
    # XLA's CPU platform with the stream-less twin of the handler: the custom call is decoded, its
    # launch found and its buffers substituted; the runtime's error (no GPU here) comes back as
    # XLA's error instead of a crash. Skipped where a GPU is (the launch would get host memory).
    from conftest import has_gpu
    if has_gpu() or any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("a GPU is present: the CUDA handler is tested in test_gpu.py")
    register_host_handler()
    with pytest.raises(Exception, match=r"triton_jit: .*(CUDA|GPU|device)") as info:
        jax.block_until_ready(jax.jit(add)(jnp.ones(16, jnp.float32), jnp.ones(16, jnp.float32)))
    assert "no traced kernel launch" not in str(info.value)
    call = jax.ffi.ffi_call(triton_jit._jax.TARGET, jax.ShapeDtypeStruct((2, ), jnp.float32))
    with pytest.raises(Exception, match="no traced kernel launch has id 123456789"):
        jax.block_until_ready(call(launch=np.int64(123456789)))


_host_handler_registered = False


def register_host_handler():
    """The CPU twin of the handler as the custom call's target on XLA's CPU platform, once."""
    global _host_handler_registered
    if not _host_handler_registered:
        jax.ffi.register_ffi_target(triton_jit._jax.TARGET, triton_jit._C._xla_ffi_host_test_handler(),
                                    platform="cpu")
        _host_handler_registered = True


def _strided(buffer, shape, strides):
    return np.lib.stride_tricks.as_strided(buffer, shape, [s * buffer.itemsize for s in strides])


# The test kernels as numpy functions of the same arguments (buffers as flat arrays).
def _add_kernel(x_ptr, y_ptr, out_ptr, n, **constexprs):
    out_ptr[:n] = x_ptr[:n] + y_ptr[:n]


def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   **constexprs):
    a = _strided(a_ptr, (M, K), (stride_am, stride_ak))
    b = _strided(b_ptr, (K, N), (stride_bk, stride_bn))
    _strided(c_ptr, (M, N), (stride_cm, stride_cn))[...] = a @ b


@pytest.fixture
def emulated(monkeypatch):
    """Jitted calls on XLA's CPU device whose launches the CPU twin of the handler hands to numpy
    versions of their kernels, on the buffers it substituted for the stand-ins (the wiring a GPU
    launch gets): numbers through the custom calls without a GPU. Yields the log of launches:
    (kernel name, {parameter: the custom call's buffer index})."""
    import ctypes
    kernels = {"add_kernel": _add_kernel, "matmul_kernel": _matmul_kernel}
    traced, log = {}, []
    prepare = triton_jit._C._prepare_deferred

    def recording_prepare(kernel, grid, *args, **kwargs):
        launch_id = prepare(kernel, grid, *args, **kwargs)
        traced[launch_id] = (kernel, args, kwargs)
        return launch_id

    def emulate(launch_id, buffers):
        kernel, args, kwargs = traced[launch_id]
        names = kernel.arg_names
        bound = {**dict(zip(names, args)), **kwargs}
        wiring = {}
        for argument, buffer, address, size in buffers:
            stand_in = bound[names[argument]]
            assert stand_in.address == triton_jit._C._deferred_buffer_address(buffer), names[argument]
            memory = (ctypes.c_char * size).from_address(address)
            bound[names[argument]] = np.frombuffer(memory, dtype=stand_in.dtype)
            wiring[names[argument]] = buffer
        kernels[kernel.name](**bound)
        log.append((kernel.name, wiring))

    register_host_handler()
    monkeypatch.setattr(triton_jit._jax, "_prepared", {})  # prepared again, so recorded
    monkeypatch.setattr(triton_jit._C, "_prepare_deferred", recording_prepare)
    triton_jit._C._set_xla_host_test_emulator(emulate)
    try:
        with jax.default_device(jax.devices("cpu")[0]):
            yield log
    finally:
        triton_jit._C._set_xla_host_test_emulator(None)


def test_emulated_launches_get_their_buffers(emulated):
    x = jnp.arange(4096, dtype=jnp.float32)
    np.testing.assert_allclose(jax.jit(add)(x, x + 1), 2 * np.arange(4096) + 1)
    assert emulated == [("add_kernel", {"x_ptr": 0, "y_ptr": 1, "out_ptr": 2})]


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_dot_grad_under_jit_beside_a_closed_over_input_matches_jax(emulated, ta, tb):
    # One operand closed over (concrete in the trace, and a concrete custom_vjp residual), the other
    # differentiated: the gradient under jit, through the custom calls, is JAX's.
    m, k, n = 48, 40, 24
    rng = np.random.default_rng(0)
    a = jnp.asarray(rng.standard_normal((k, m) if ta else (m, k)), jnp.float32)
    b = jnp.asarray(rng.standard_normal((n, k) if tb else (k, n)), jnp.float32)
    g = jnp.asarray(rng.standard_normal((m, n)), jnp.float32)

    def op(x, t):
        return x.T if t else x
    ours_a = jax.jit(jax.grad(lambda x: (triton_jit.ops.dot(x, b, ta, tb) * g).sum()))(a)
    ours_b = jax.jit(jax.grad(lambda y: (triton_jit.ops.dot(a, y, ta, tb) * g).sum()))(b)
    ref_a = jax.grad(lambda x: ((op(x, ta) @ op(b, tb)) * g).sum())(a)
    ref_b = jax.grad(lambda y: ((op(a, ta) @ op(y, tb)) * g).sum())(b)
    np.testing.assert_allclose(ours_a, ref_a, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ours_b, ref_b, rtol=1e-4, atol=1e-4)
    # A cotangent that is a broadcast constant: the sum's.
    ours = jax.jit(jax.grad(lambda y: triton_jit.ops.dot(a, y, ta, tb).sum()))(b)
    np.testing.assert_allclose(ours, jax.grad(lambda y: (op(a, ta) @ op(y, tb)).sum())(b), rtol=1e-4, atol=1e-4)
    assert emulated and all(name == "matmul_kernel" and wiring["c_ptr"] == 2 for name, wiring in emulated)


def test_dot_trains_under_jit_through_the_custom_calls(emulated):
    # The GPU suite's training loop (test_gpu.py::test_dot_trains_in_jax_under_jit), shorter: x is
    # closed over, each step's forward and gradient are launches of one jitted function.
    x = jax.random.normal(jax.random.PRNGKey(0), (256, 64))
    y = x @ jax.random.normal(jax.random.PRNGKey(1), (64, 32))

    def loss(w, dot):
        return ((dot(x, w) - y) ** 2).sum() / x.shape[0]

    @jax.jit
    def step(w):
        value, grad = jax.value_and_grad(loss)(w, triton_jit.ops.dot)
        return w - 0.1 * grad, value

    w = jnp.zeros((64, 32))
    value, grad = jax.jit(jax.value_and_grad(loss), static_argnums=1)(w, triton_jit.ops.dot)
    ref_value, ref_grad = jax.value_and_grad(loss)(w, jnp.matmul)
    np.testing.assert_allclose(value, ref_value, rtol=1e-5)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-4, atol=1e-4)
    losses = []
    for _ in range(40):
        w, value = step(w)
        losses.append(float(value))
    assert losses[0] == pytest.approx(float(ref_value), rel=1e-5)
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
    assert losses[-1] < 1e-2 * losses[0], losses

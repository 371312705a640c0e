"""Kernel launches inside jax.jit become XLA FFI custom calls ("triton_jit_launch") without a GPU:
lowering for CUDA shows the custom call with its `launch` attribute, operands and results in
parameter order, outputs declared by triton_jit.empty, aliasing for an output written twice, and
the prepared launch checked where it was traced. The launches themselves run in test_gpu.py."""
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
    # Outside jit, a host array is the launch's own error (a ValueError naming the parameter).
    x = np.ones(16, np.float32)
    with pytest.raises(ValueError):
        triton_jit.jit(add_kernels.add_kernel)[(1, )](jnp.asarray(x), jnp.asarray(x), jnp.asarray(x), 16, BLOCK=16)


def test_the_handler_runs_under_xla_and_its_errors_come_back():
    # XLA's CPU platform with the stream-less twin of the handler: the custom call is decoded, its
    # launch found and its buffers substituted; the runtime's error (no GPU here) comes back as
    # XLA's error instead of a crash. Skipped where a GPU is (the launch would get host memory).
    from conftest import has_gpu
    if has_gpu() or any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("a GPU is present: the CUDA handler is tested in test_gpu.py")
    jax.ffi.register_ffi_target(triton_jit._jax.TARGET, triton_jit._C._xla_ffi_host_test_handler(), platform="cpu")
    with pytest.raises(Exception, match=r"triton_jit: .*(CUDA|GPU|device)") as info:
        jax.block_until_ready(jax.jit(add)(jnp.ones(16, jnp.float32), jnp.ones(16, jnp.float32)))
    assert "no traced kernel launch" not in str(info.value)
    call = jax.ffi.ffi_call(triton_jit._jax.TARGET, jax.ShapeDtypeStruct((2, ), jnp.float32))
    with pytest.raises(Exception, match="no traced kernel launch has id 123456789"):
        jax.block_until_ready(call(launch=np.int64(123456789)))

"""Python objects to kernel arguments, for the objects each framework has without a GPU: stand-ins
with __cuda_array_interface__ (CuPy, Numba), DLPack capsules (JAX), torch CPU tensors and numpy
arrays (rejected: host memory), dtypes of Triton and torch, scalars, keywords and defaults."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="these tests use torch's dtypes and tensors")
import triton.language as tl

import triton_jit
import py_kernels
from conftest import CudaArray, DLPackArray


@pytest.fixture(scope="module")
def add():
    return triton_jit.jit(py_kernels.add_kernel)


def sig(k, *args, **kwargs):
    return k.specialize(*args, **kwargs).signature()


def test_cuda_array_interface_gives_pointer_and_dtype(add):
    assert sig(add, CudaArray(4096), CudaArray(4096, "fp16"), CudaArray(4100, "i8"), 1000) == \
        "*fp32:16,*fp16:16,*i8,i32,1024"
    assert sig(add, CudaArray(4096, "u1"), CudaArray(4096, "u64"), CudaArray(4096, "fp64"), 16, 64) == \
        "*u1:16,*u64:16,*fp64:16,i32:16,64"


def test_dlpack_gives_pointer_dtype_and_offset(add):
    x = DLPackArray(4096, "bf16")
    y = DLPackArray(4096, "fp8e4nv", byte_offset=8)  # the pointer is data + byte_offset
    z = DLPackArray(8192, "u1")
    assert sig(add, x, y, z, 7) == "*bf16:16,*fp8e4nv,*u1:16,i32,1024"
    # A stream given to the launch is the stream asked of the producer (1: the legacy default).
    assert x.streams == [None]
    add.specialize(x, y, z, 7, stream=0)
    assert x.streams[-1] == 1
    add.specialize(x, y, z, 7, stream=12345)
    assert x.streams[-1] == 12345


def test_host_memory_is_a_value_error_naming_the_parameter(add):
    cases = [
        (np.zeros(4, np.float32), "x_ptr", "host"),
        (torch.zeros(4), "x_ptr", "cpu"),
        (DLPackArray(4096, device_type=1), "x_ptr", "host"),
        (DLPackArray(4096, device_type=3), "x_ptr", "pinned host"),
        (bytearray(16), "x_ptr", "host memory"),
    ]
    for obj, param, words in cases:
        with pytest.raises(ValueError, match=words) as info:
            add.specialize(obj, CudaArray(4096), CudaArray(4096), 16)
        assert isinstance(info.value, triton_jit.ArgumentError)
        assert info.value.parameter == param and info.value.function == "add_kernel"
    with pytest.raises(triton_jit.ArgumentError) as info:
        add.specialize(CudaArray(4096), CudaArray(4096), torch.zeros(4, dtype=torch.float16), 16)
    assert info.value.parameter == "out_ptr"


def test_unsupported_objects_and_types(add):
    with pytest.raises(triton_jit.ArgumentError, match="unsupported argument type .*object") as info:
        add.specialize(CudaArray(4096), object(), CudaArray(4096), 16)
    assert info.value.parameter == "y_ptr"
    with pytest.raises(triton_jit.ArgumentError, match="typestr '<c8'"):
        add.specialize(CudaArray(4096, "<c8"), CudaArray(4096), CudaArray(4096), 16)
    with pytest.raises(triton_jit.ArgumentError, match="type code 5"):
        add.specialize(DLPackArray(4096, "c64"), CudaArray(4096), CudaArray(4096), 16)
    with pytest.raises(triton_jit.ArgumentError, match="outside"):
        add.specialize(CudaArray(4096), CudaArray(4096), CudaArray(4096), 2**64)


def test_data_ptr_objects_read_dtype_from_the_object(add):
    class Wrapper:  # Triton's TensorWrapper and similar: data_ptr() and dtype
        def __init__(self, address, dtype, device=None):
            self.address, self.dtype = address, dtype
            if device is not None:
                self.device = device

        def data_ptr(self):
            return self.address

    assert sig(add, Wrapper(4096, torch.float16), Wrapper(4096, tl.bfloat16), Wrapper(4097, "int8"), 1) == \
        "*fp16:16,*bf16:16,*i8,1,1024"
    with pytest.raises(triton_jit.ArgumentError, match="no dtype"):
        add.specialize(type("NoDtype", (), {"data_ptr": lambda self: 4096})(), CudaArray(1), CudaArray(1), 1)
    with pytest.raises(triton_jit.ArgumentError, match="cpu"):
        add.specialize(Wrapper(4096, torch.float32, device="cpu"), CudaArray(1), CudaArray(1), 1)


def test_keywords_defaults_and_options(add):
    x = CudaArray(4096)
    assert sig(add, x, x, x, n=1000) == "*fp32:16,*fp32:16,*fp32:16,i32,1024"
    assert sig(add, out_ptr=x, x_ptr=x, y_ptr=x, n=32, BLOCK=128) == "*fp32:16,*fp32:16,*fp32:16,i32:16,128"
    spec = add.specialize(x, x, x, 1000, num_warps=8, num_stages=2, num_ctas=1)
    assert (spec.num_warps, spec.num_stages, spec.num_ctas) == (8, 2, 1)
    with pytest.raises(TypeError, match="multiple values for argument 'x_ptr'"):
        add.specialize(x, x, x, 1000, x_ptr=x)
    with pytest.raises(TypeError, match="takes 5 arguments but 6 were given"):
        add.specialize(x, x, x, 1000, 128, 7)
    with pytest.raises(triton_jit.ArgumentError) as info:
        add.specialize(x, x, n=16)
    assert "out_ptr" in str(info.value)
    with pytest.raises(triton_jit.ArgumentError, match="num_warps must be an int"):
        add.specialize(x, x, x, 16, num_warps="4")
    with pytest.raises(triton_jit.ArgumentError, match="stream="):
        add.specialize(x, x, x, 16, stream="s")
    with pytest.raises(triton_jit.ArgumentError, match="compile option maxnreg"):
        add.specialize(x, x, x, 16, maxnreg=[1])


def test_binding_errors_say_what_pythons_binder_says(add):
    """Keywords bound by the runtime's binder fail as Python's own binder (inspect.Signature.bind) on
    the kernel's def does, naming the same parameter."""
    import inspect
    x = CudaArray(4096)
    python_signature = inspect.signature(py_kernels.add_kernel.fn)
    calls = [((x, x), {"n": 16}), ((x, x, x, 16), {"x_ptr": x}), ((x,), {"out_ptr": x, "n": 1}),
             ((), {"y_ptr": x, "out_ptr": x, "n": 1}), ((x, x, x), {"BLOCK": 64}),
             ((x, x, x, 16), {"BLOCK": 64, "out_ptr": x})]
    for args, kwargs in calls:
        with pytest.raises(TypeError) as theirs:
            python_signature.bind(*args, **kwargs)
        with pytest.raises(triton_jit.ArgumentError) as ours:
            add.specialize(*args, **kwargs)
        assert str(theirs.value) in str(ours.value), (args, kwargs)
        assert isinstance(ours.value, TypeError)


def test_decorated_kernels_bind_what_the_caller_passes():
    tuned = triton_jit.jit(py_kernels.tuned_add_kernel)
    x = CudaArray(4096)
    with pytest.raises(triton_jit.ArgumentError, match="'BLOCK' is set by a @triton.autotune config or a "
                       r"@triton.heuristics value; do not pass it"):
        tuned.specialize(x, x, x, 16, BLOCK=64)
    with pytest.raises(triton_jit.ArgumentError, match=r"takes 4 arguments \(those no decorator sets\) but 5 were "
                       "given"):
        tuned.specialize(x, x, x, 16, 64)
    with pytest.raises(triton_jit.ArgumentError, match="missing a required argument: 'y_ptr'"):
        tuned.specialize(x, out_ptr=x, n=16)
    with pytest.raises(triton_jit.ArgumentError, match="multiple values for argument 'n'"):
        tuned.specialize(x, x, x, 16, n=16)


def test_dtypes_and_scalars_as_constexprs():
    k = triton_jit.jit(py_kernels.scale_kernel)
    x = CudaArray(4096)
    assert sig(k, x, x, 10, 2.0, True) == "*fp32:16,*fp32:16,i32,fp32,True,triton.language.float32,256"
    assert sig(k, x, x, 10, 2.0, True, tl.float16) == "*fp32:16,*fp32:16,i32,fp32,True,triton.language.float16,256"
    assert sig(k, x, x, 10, 2.0, True, torch.bfloat16) == "*fp32:16,*fp32:16,i32,fp32,True,torch.bfloat16,256"
    assert sig(k, x, x, 10, 2, "relu", BLOCK=tl.constexpr(64)) == \
        "*fp32:16,*fp32:16,i32,i32,'relu',triton.language.float32,64"
    assert sig(k, x, x, 2**40 + 1, None, 1) == "*fp32:16,*fp32:16,i64,None,1,triton.language.float32,256"


def test_grid_callable_sees_triton_meta(add):
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return (triton_jit.cdiv(meta["n"], meta["BLOCK"]), )
    x = CudaArray(4096)
    with pytest.raises(triton_jit.Error):  # no GPU here: the launch itself fails, after the grid
        add[grid](x, x, x, 5000, num_warps=8)
        pytest.skip("launched on a GPU")
    assert seen and seen[0]["n"] == 5000 and seen[0]["BLOCK"] == 1024 and seen[0]["x_ptr"] is x
    assert seen[0]["num_warps"] == 8
    with pytest.raises(triton_jit.ArgumentError, match="grid"):
        add["not a grid"](x, x, x, 16)
    with pytest.raises(triton_jit.ArgumentError, match="1 to 3 dimensions"):
        add[(1, 1, 1, 1)](x, x, x, 16)


def test_decorated_parameters_cannot_be_passed():
    k = triton_jit.jit(py_kernels.tuned_add_kernel)
    x = CudaArray(4096)
    with pytest.raises(triton_jit.ArgumentError, match="set by a @triton.autotune") as info:
        k.specialize(x, x, x, 16, BLOCK=64)
    assert info.value.parameter == "BLOCK"


def test_jax_arrays_without_a_gpu(add):
    jax = pytest.importorskip("jax")
    from conftest import has_gpu
    if has_gpu():
        # There JAX would start its CUDA client in this process, after torch and the runtime have
        # used the GPU, and that client aborted the process (H100 machine, 2026-11-23). Device
        # arrays are covered by test_gpu.py; this covers host arrays, on machines without a GPU.
        pytest.skip("a GPU is present: JAX's device arrays are tested in test_gpu.py")
    import jax.numpy as jnp
    # Host memory: on the CPU device explicitly (where JAX has a GPU, jnp.zeros would put it there).
    x = jax.device_put(jnp.zeros(16, jnp.float32), jax.devices("cpu")[0])
    with pytest.raises(triton_jit.ArgumentError, match="host") as info:
        add.specialize(x, CudaArray(4096), CudaArray(4096), 16)
    assert info.value.parameter == "x_ptr"

    def inside_jit(t):
        add.specialize(t, CudaArray(4096), CudaArray(4096), 16)
        return t
    with pytest.raises(triton_jit.ArgumentError, match="JAX tracer"):
        jax.jit(inside_jit)(x)

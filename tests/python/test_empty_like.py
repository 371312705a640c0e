"""triton_jit.empty_like without a GPU: the placeholder object, the allocation a call makes for it
inside the extension (torch.empty_like / Tensor.new_empty called from C), the key it gives (that of
a real tensor of the same shape and dtype), and the errors for placeholders the call cannot
allocate (a constexpr parameter, a non-array like=, numpy, a launch inside jax.jit, Triton's own
launch and install()'s).

A torch.Tensor subclass whose is_cuda says True stands for a GPU tensor: the extension reads its
data_ptr(), dtype and is_cuda as a CUDA tensor's, and torch's allocation functions return the
subclass (its __torch_function__), so a placeholder like one is allocated as on a GPU."""
import gc
import weakref

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="placeholders are allocated with torch here")

import triton_jit
import triton_reference
import install_kernels  # noqa: F401  (install()'s kernels: imported for its patched run)
import py_kernels
from triton_jit import _install


class FakeCuda(torch.Tensor):
    """A CPU tensor the extension reads as a CUDA tensor; records torch functions called on it."""
    calls = []

    @property
    def is_cuda(self):
        return True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(getattr(func, "__name__", str(func)))
        return super().__torch_function__(func, types, args, kwargs or {})


def fake(shape, dtype=torch.float32):
    return torch.zeros(shape, dtype=dtype).as_subclass(FakeCuda)


@pytest.fixture(scope="module")
def add():
    return triton_jit.jit(py_kernels.add_kernel)


@pytest.fixture(scope="module")
def scale():
    return triton_jit.jit(py_kernels.scale_kernel)


def test_the_placeholder_records_what_to_allocate_and_nothing_more():
    x = torch.zeros(8, 4)
    p = triton_jit.empty_like(x)
    assert isinstance(p, triton_jit._C.Placeholder)
    assert p.like is x and p.dtype == torch.float32 and p.shape == (8, 4)
    p = triton_jit.empty_like(x, torch.float16, shape=7)
    assert p.dtype == torch.float16 and p.shape == (7, )
    p = triton_jit.empty_like(like=x, shape=[2, np.int64(3)], dtype=torch.int8)
    assert p.shape == (2, 3) and type(p.shape[1]) is int and p.dtype == torch.int8
    assert "empty_like(torch.Tensor object, dtype=torch.int8, shape=(2, 3))" in repr(p)
    assert triton_jit.empty_like(x, None, None).shape == (8, 4)


def test_bad_placeholders_are_type_errors_where_they_are_made():
    x = torch.zeros(4)
    with pytest.raises(TypeError, match="needs the array"):
        triton_jit.empty_like()
    with pytest.raises(TypeError, match="shape must be an int or a sequence"):
        triton_jit.empty_like(x, shape="12")
    with pytest.raises(TypeError, match="shape holds ints, not float"):
        triton_jit.empty_like(x, shape=(2.5, ))
    with pytest.raises(TypeError, match="unexpected keyword argument 'device'"):
        triton_jit.empty_like(x, device="cuda")
    with pytest.raises(TypeError, match="multiple values for argument 'dtype'"):
        triton_jit.empty_like(x, torch.float16, dtype=torch.float16)
    with pytest.raises(TypeError, match="at most 3 arguments"):
        triton_jit.empty_like(x, None, None, None)
    with pytest.raises(TypeError, match="itself a placeholder"):
        triton_jit.empty_like(triton_jit.empty_like(x))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int8, torch.int64])
def test_a_placeholder_gives_the_key_of_a_real_tensor(add, dtype):
    x = fake(4096, dtype)
    cases = [
        ((triton_jit.empty_like(x), ), (fake(4096, dtype), )),
        ((triton_jit.empty_like(x, torch.float16), ), (fake(4096, torch.float16), )),
        ((triton_jit.empty_like(x, shape=(3, )), ), (fake(3, dtype), )),
        ((triton_jit.empty_like(x, torch.int8, (5, 7)), ), (fake((5, 7), torch.int8), )),
    ]
    for placeholder, real in cases:
        for n in (4096, 17):
            got = add.specialize(x, x, *placeholder, n)
            want = add.specialize(x, x, *real, n)
            assert got.signature() == want.signature()
            assert got.triton_repr() == want.triton_repr()
    # Triton's own binder, given the real tensor, builds the same key.
    bind = triton_reference.binder(py_kernels.add_kernel)
    _, specialization, _ = bind(x, x, fake(4096, dtype), 4096)
    assert add.specialize(x, x, triton_jit.empty_like(x), 4096).triton_repr() == repr(specialization)


def test_the_allocation_is_the_frameworks_own_called_from_the_extension(add):
    x = fake(64)
    FakeCuda.calls.clear()
    add.specialize(x, x, triton_jit.empty_like(x), 64)
    assert "empty_like" in FakeCuda.calls
    FakeCuda.calls.clear()
    add.specialize(x, x, triton_jit.empty_like(x, shape=(8, 8)), 64)
    assert "new_empty" in FakeCuda.calls


def test_keywords_several_placeholders_and_one_placeholder_twice(add, scale):
    x = fake(4096)
    assert add.specialize(x, x, out_ptr=triton_jit.empty_like(x, torch.float16), n=16).signature() == \
        "*fp32:16,*fp32:16,*fp16:16,i32:16,1024"
    p = triton_jit.empty_like(x)
    # x_ptr and out_ptr both the placeholder: one array, allocated once.
    FakeCuda.calls.clear()
    assert add.specialize(p, x, p, 32).signature() == "*fp32:16,*fp32:16,*fp32:16,i32:16,1024"
    assert FakeCuda.calls.count("empty_like") == 1
    assert scale.specialize(triton_jit.empty_like(x), triton_jit.empty_like(x, torch.float16), 8, 2.0, True) \
        .signature() == scale.specialize(fake(16), fake(16, torch.float16), 8, 2.0, True).signature()


def test_the_grid_function_sees_the_allocated_array(add):
    x = fake(4096)
    seen = {}

    class Seen(Exception):
        pass

    def grid(meta):
        seen.update(meta)
        # Stops the call before the launch: the arrays are host memory dressed as CUDA tensors,
        # which a real GPU must never be given.
        raise Seen()

    with pytest.raises(Seen):
        add[grid](x, x, triton_jit.empty_like(x, torch.float16), 4096, stream=0)
    assert isinstance(seen["out_ptr"], FakeCuda) and seen["out_ptr"].dtype == torch.float16


def test_a_failed_call_releases_what_it_allocated(add):
    x = fake(4096)
    made = []

    class Recording(FakeCuda):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            out = super().__torch_function__(func, types, args, kwargs)
            if isinstance(out, torch.Tensor):
                made.append(weakref.ref(out))
            return out

    like = torch.zeros(4096).as_subclass(Recording)
    with pytest.raises(triton_jit.ArgumentError) as info:
        add.specialize(x, x, triton_jit.empty_like(like), 4096, BLOCK=triton_jit.empty_like(like))
    assert info.value.parameter == "BLOCK"
    assert made, "the first placeholder was allocated before the error"
    def failing_grid(meta):  # a call that fails after its placeholders were allocated
        raise RuntimeError("grid")

    with pytest.raises(RuntimeError, match="grid"):
        add[failing_grid](x, x, triton_jit.empty_like(like), 4096, stream=0)
    gc.collect()
    assert all(ref() is None for ref in made)


def test_a_placeholder_for_a_constexpr_names_the_kernel_and_the_parameter(add):
    x = fake(16)
    with pytest.raises(triton_jit.ArgumentError, match="tl.constexpr parameter") as info:
        add.specialize(x, x, x, 16, BLOCK=triton_jit.empty_like(x))
    assert (info.value.function, info.value.parameter) == ("add_kernel", "BLOCK")
    assert "argument 'BLOCK' of add_kernel" in str(info.value)


@pytest.mark.parametrize("like, words", [
    (3, "object of type int, not an array"),
    (object(), "object of type object, not an array"),
    (np.zeros(4, np.float32), "numpy array, in host memory"),
    (torch.float32, "object of type torch.dtype"),
])
def test_a_like_that_is_no_array_of_a_supported_framework(add, like, words):
    x = fake(16)
    with pytest.raises(triton_jit.ArgumentError, match=words) as info:
        add.specialize(x, x, triton_jit.empty_like(like), 16)
    assert (info.value.function, info.value.parameter) == ("add_kernel", "out_ptr")
    assert "could not be allocated" in str(info.value) and "Traceback" not in str(info.value)


def test_a_dtype_the_framework_refuses_names_the_parameter(add):
    x = fake(16)
    with pytest.raises(triton_jit.ArgumentError, match="could not be allocated") as info:
        add.specialize(x, x, triton_jit.empty_like(x, "fp16"), 16)
    assert info.value.parameter == "out_ptr"
    with pytest.raises(ValueError, match="negative dimension"):
        triton_jit.empty_like(x, shape=(4, -2))


def test_a_host_tensor_like_is_allocated_on_the_host_and_refused_as_one(add):
    x = fake(16)
    with pytest.raises(triton_jit.ArgumentError, match="a torch tensor on cpu") as info:
        add.specialize(x, x, triton_jit.empty_like(torch.zeros(16)), 16)
    assert info.value.parameter == "out_ptr"


def test_a_launch_inside_jax_jit_allocates_no_placeholder(add):
    x = fake(16)
    with pytest.raises(triton_jit.ArgumentError, match="inside jax.jit") as info:
        triton_jit._C._prepare_deferred(add, (1, ), x, x, triton_jit.empty_like(x), 16)
    assert info.value.parameter == "out_ptr"


def test_the_installed_launcher_refuses_a_placeholder_with_a_type_error(add):
    x = fake(16)
    with pytest.raises(TypeError, match="argument 'out_ptr' of add_kernel: .*triton_jit.install") as info:
        add._installed_launcher((1, ))(x, x, triton_jit.empty_like(x), 16)
    assert not isinstance(info.value, triton_jit.ArgumentError)  # install() would hand that to Triton's run


def test_under_install_a_placeholder_is_an_error_not_a_fallback():
    x = fake(16)
    before = triton_jit.install_stats()
    triton_jit.install()
    try:
        with pytest.raises(TypeError, match="argument 'out_ptr' of add_kernel") as info:
            py_kernels.add_kernel[(1, )](x, x, triton_jit.empty_like(x), 16)
        assert not isinstance(info.value, triton_jit.ArgumentError)
        entry = vars(py_kernels.add_kernel)[_install._ENTRY]
        assert entry.launch.__name__ == "_installed_launcher" or "_installed_launcher" in repr(entry.launch)
    finally:
        triton_jit.uninstall()
    assert triton_jit.install_stats() == before


def test_tritons_own_binder_names_the_kernel_and_the_parameter():
    x = fake(16)
    bind = triton_reference.binder(py_kernels.add_kernel)

    def run(self, *args):  # as JITFunction.run calls its binder: `self` is the JITFunction
        return bind(*args)

    with pytest.raises(TypeError, match="argument 'out_ptr' of add_kernel: .*allocates nothing") as info:
        run(py_kernels.add_kernel, x, x, triton_jit.empty_like(x), 16)
    assert "triton_jit.jit(kernel)" in str(info.value)


def test_decorated_kernels_take_placeholders_with_a_real_tensors_key():
    x = fake(4096)
    for kernel in (py_kernels.even_add_kernel, py_kernels.decorated_even_kernel):
        k = triton_jit.jit(kernel)
        args = (x, x) if kernel is py_kernels.even_add_kernel else (x, )
        for n in (4096, 1000):
            got = k.specialize(*args, triton_jit.empty_like(x), n, BLOCK=128)
            want = k.specialize(*args, fake(4096), n, BLOCK=128)
            assert got.signature() == want.signature()

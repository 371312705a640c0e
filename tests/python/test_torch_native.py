"""triton_jit._torch_native without a GPU.

Allocation: the output a launch allocates for a torch placeholder,
made by libtorch from C++, is what torch's own Python functions return (torch.empty_like(like,
dtype=) without a shape, like.new_empty(shape, dtype=) with one): dtype, shape, strides (memory
format), device, type and requires_grad, for contiguous, channels_last, transposed, sliced and
expanded likes. What the C++ path must not take goes to torch's functions: a subclass (its
__torch_function__ runs), a torch function mode, a dtype given as a Python type; and the whole
module is left aside, saying so at debug level, when it is missing or was built against another
torch than the imported one.

Reads: what a launch reads of a torch tensor from C++ (data_ptr(), dtype, is_cuda, get_device(),
nbytes) is what those Python attributes return, for tensors, views, Parameters and copy-on-write
tensors; subclasses, torch function modes and a patched torch.Tensor go to Python.

The extension's test hooks run what a launch runs: _placeholder_allocate_for_test the allocation for
triton_jit.empty_like(like, dtype, shape), saying which path made the array ("c++" or "python");
_read_torch_tensor_for_test the read of one tensor (None where the module leaves it to Python).
Launches themselves refuse CPU tensors."""
import logging
import sys

import pytest

torch = pytest.importorskip("torch", reason="the module allocates torch tensors")

import triton_jit
from triton_jit import _C

allocate = _C._placeholder_allocate_for_test


@pytest.fixture(autouse=True)
def fresh_lookup():
    """Each test looks triton_jit._torch_native up afresh at its first allocation (and leaves the
    next test a fresh lookup too, whatever it patched)."""
    _C._torch_native_reset_for_test()
    yield
    _C._torch_native_reset_for_test()


@pytest.fixture
def native():
    """The module, where this build made it (a build whose python imports torch does)."""
    try:
        from triton_jit import _torch_native
    except ImportError as e:
        pytest.skip(f"triton_jit._torch_native was not built or cannot be loaded ({e}): torch outputs are "
                    f"allocated through torch.empty_like")
    if _torch_native.TORCH_VERSION != torch.__version__:
        pytest.skip(f"triton_jit._torch_native was built against torch {_torch_native.TORCH_VERSION}, this python "
                    f"imports torch {torch.__version__}: torch outputs are allocated through torch.empty_like")
    return _torch_native


def likes():
    base = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
    wide = torch.zeros(6, 8, dtype=torch.float16)
    grad = torch.zeros(5, 3, requires_grad=True)
    return {
        "contiguous": base,
        "channels_last": base.contiguous(memory_format=torch.channels_last),
        "channels_last_3d": torch.zeros(2, 3, 4, 5, 6).contiguous(memory_format=torch.channels_last_3d),
        "transposed": wide.t(),  # dense, not contiguous: its strides are kept
        "permuted": base.permute(2, 0, 3, 1),
        "sliced": wide[:, ::2],  # not dense: a contiguous output
        "offset": wide[1:, 2:],
        "expanded": torch.zeros(4, 1).expand(4, 7),  # overlapping: a contiguous output
        "scalar": torch.tensor(3.5, dtype=torch.float64),
        "empty": torch.zeros(0, 5, dtype=torch.int32),
        "requires_grad": grad,
        "non_leaf": grad * 2,
        "bool": torch.zeros(3, 3, dtype=torch.bool),
        "meta": torch.empty(3, 4, device="meta").t(),  # another device: like's
    }


def reference(like, dtype, shape):
    kwargs = {} if dtype is None else {"dtype": dtype}
    if shape is None:
        return torch.empty_like(like, **kwargs)
    return like.new_empty((shape, ) if isinstance(shape, int) else tuple(shape), **kwargs)


def assert_alike(got, want):
    assert type(got) is type(want)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    assert got.stride() == want.stride()
    assert got.device == want.device and got.layout == want.layout
    assert got.requires_grad is False and want.requires_grad is False
    assert got.storage_offset() == want.storage_offset() == 0
    for fmt in (torch.contiguous_format, torch.channels_last, torch.channels_last_3d):
        if got.dim() == {torch.channels_last: 4, torch.channels_last_3d: 5}.get(fmt, got.dim()):
            assert got.is_contiguous(memory_format=fmt) == want.is_contiguous(memory_format=fmt)


@pytest.mark.parametrize("name", sorted(likes()))
@pytest.mark.parametrize("dtype", [None, torch.float32, torch.bfloat16, torch.int64])
@pytest.mark.parametrize("shape", [None, (3, 5), 7, (0, ), ()])
def test_the_cxx_allocation_is_torchs_own(native, name, dtype, shape):
    like = likes()[name]
    got, path = allocate(like, dtype, shape)
    assert path == "c++"
    assert_alike(got, reference(like, dtype, shape))
    # A new array each time, never like's memory.
    assert got.numel() == 0 or like.is_meta or got.data_ptr() != like.data_ptr()


def test_the_strides_kept_are_likes(native):
    like = likes()["channels_last"]
    got, _ = allocate(like, None, None)
    assert got.is_contiguous(memory_format=torch.channels_last) and not got.is_contiguous()
    got, _ = allocate(likes()["transposed"], torch.float32, None)
    assert got.stride() == (1, 8)
    got, _ = allocate(likes()["sliced"], None, None)
    assert got.is_contiguous()


def test_a_subclass_goes_through_torchs_functions_and_its_torch_function(native):
    class Recorded(torch.Tensor):
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(getattr(func, "__name__", str(func)))
            return super().__torch_function__(func, types, args, kwargs or {})

    like = torch.zeros(4, 6).as_subclass(Recorded)
    got, path = allocate(like, torch.float16, None)
    assert path == "python" and type(got) is Recorded and "empty_like" in Recorded.calls
    got, path = allocate(like, None, (2, 2))
    assert path == "python" and type(got) is Recorded and "new_empty" in Recorded.calls
    # nn.Parameter too: torch.empty_like of one is a plain tensor, as here.
    param = torch.nn.Parameter(torch.zeros(3))
    got, path = allocate(param, None, None)
    assert path == "python"
    assert_alike(got, torch.empty_like(param))


def test_a_torch_function_mode_sees_the_allocation(native):
    from torch.overrides import TorchFunctionMode

    seen = []

    class Mode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(getattr(func, "__name__", str(func)))
            return func(*args, **(kwargs or {}))

    like = torch.zeros(5)
    with Mode():
        got, path = allocate(like, None, None)
    assert path == "python" and "empty_like" in seen
    got, path = allocate(like, None, None)
    assert path == "c++"


def test_a_torch_dispatch_mode_sees_the_cxx_allocation(native):
    # Dispatch modes act below the Python bindings, in the dispatcher both paths call (the C++ path
    # with the GIL released, as torch's bindings call it: the mode takes it back).
    from torch.utils._python_dispatch import TorchDispatchMode

    seen = []

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    like = likes()["channels_last"]
    with Mode():
        got, path = allocate(like, torch.float16, None)
        shaped, _ = allocate(like, None, (5, 2))
    assert path == "c++" and any("empty_like" in name for name in seen), seen
    assert any("new_empty" in name or "empty" in name for name in seen[1:]), seen
    assert_alike(got, torch.empty_like(like, dtype=torch.float16))
    assert_alike(shaped, like.new_empty((5, 2)))


def test_a_dtype_given_as_a_python_type_is_torchs_to_read(native):
    like = torch.zeros(3, dtype=torch.float16)
    got, path = allocate(like, float, None)
    assert path == "python" and got.dtype == torch.empty_like(like, dtype=float).dtype


def test_a_dimension_past_int64_is_torchs_to_refuse(native):
    with pytest.raises(triton_jit.errors.ArgumentError, match="could not be allocated"):
        allocate(torch.zeros(2), None, (2**64, ))


def test_torchs_errors_keep_their_type(native):
    # Too large to allocate: torch's own error (RuntimeError on CPU), not an ArgumentError.
    with pytest.raises(RuntimeError) as e:
        allocate(torch.zeros(2), None, (2**62, 2**20))
    assert not isinstance(e.value, triton_jit.errors.ArgumentError)


def test_a_module_built_against_another_torch_is_left_aside(native, monkeypatch, caplog):
    monkeypatch.setattr(native, "TORCH_VERSION", "0.0.0+other")
    like = likes()["channels_last"]
    with caplog.at_level(logging.DEBUG, logger="triton_jit"):
        got, path = allocate(like, None, None)
        assert path == "python"
        assert_alike(got, torch.empty_like(like))
        allocate(like, None, None)  # looked up once: said once
    said = [r.getMessage() for r in caplog.records if "_torch_native" in r.getMessage()]
    assert len(said) == 1 and "built against torch 0.0.0+other" in said[0] and torch.__version__ in said[0]
    monkeypatch.undo()
    _C._torch_native_reset_for_test()
    assert allocate(like, None, None)[1] == "c++"


def test_without_the_module_torchs_functions_allocate(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "triton_jit._torch_native", None)  # import raises ImportError
    like = likes()["transposed"]
    with caplog.at_level(logging.DEBUG, logger="triton_jit"):
        got, path = allocate(like, torch.int8, None)
    assert path == "python"
    assert_alike(got, torch.empty_like(like, dtype=torch.int8))
    assert any("not available" in r.getMessage() for r in caplog.records)


def test_other_frameworks_never_load_the_module(monkeypatch):
    np = pytest.importorskip("numpy")
    monkeypatch.setitem(sys.modules, "triton_jit._torch_native", None)
    with pytest.raises(triton_jit.errors.ArgumentError, match="numpy array"):
        allocate(np.zeros(3), None, None)


# ---- reads ----

read = _C._read_torch_tensor_for_test


def python_read(t):
    return {"data_ptr": t.data_ptr(), "dtype": t.dtype, "is_cuda": t.is_cuda, "get_device": t.get_device(),
            "nbytes": t.nbytes}


def test_reads_return_what_the_python_attributes_return(native):
    base = torch.arange(2 * 3 * 4, dtype=torch.float32).reshape(2, 3, 4)
    tensors = {**likes(), "view": base[1:, 1], "int8": torch.zeros(7, dtype=torch.int8), "bool": torch.ones(3) > 0,
               "bfloat16": torch.zeros(4, dtype=torch.bfloat16), "empty": torch.empty(0),
               "scalar": torch.tensor(3.0), "parameter": torch.nn.Parameter(torch.zeros(5, 3)),
               "requires_grad": torch.zeros(2, requires_grad=True)}
    for name, t in tensors.items():
        got = read(t)
        assert got == python_read(t), name
        assert got["dtype"] is t.dtype, name  # torch's own object, not an equal one


def test_a_copy_on_write_tensor_gets_its_own_memory_as_data_ptr_gives_it(native):
    # Python's data_ptr() is the mutable pointer: it materializes a lazy clone's copy. So does the
    # read: a kernel that writes through the pointer must not write into the source.
    source = torch.arange(8.0)
    clone = torch._lazy_clone(source)
    assert torch._C._is_cow_tensor(clone)
    got = read(clone)
    assert not torch._C._is_cow_tensor(clone)
    assert got["data_ptr"] == clone.data_ptr() != source.data_ptr()


def test_nbytes_is_read_only_when_asked(native):
    t = torch.zeros(6)
    assert "nbytes" not in read(t, want_nbytes=False)
    assert read(t, want_nbytes=True)["nbytes"] == 24


def test_subclasses_and_torch_function_modes_are_read_by_python(native):
    class Traced(torch.Tensor):
        pass

    assert read(torch.zeros(3).as_subclass(Traced)) is None

    class Mode(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    t = torch.zeros(3)
    with Mode():
        assert read(t) is None
    assert read(t) is not None


@pytest.mark.parametrize("attribute", ["data_ptr", "get_device"])
def test_a_patched_torch_tensor_is_read_by_python_until_restored(native, attribute, monkeypatch):
    # Device plugins replace torch.Tensor.data_ptr; the read must then call theirs, as Triton does.
    t, p = torch.zeros(3), torch.nn.Parameter(torch.zeros(2))
    assert read(t) is not None and read(p) is not None  # checked once, then by the classes' version tags
    monkeypatch.setattr(torch.Tensor, attribute, lambda self: 5, raising=False)
    assert read(t) is None and read(p) is None
    monkeypatch.undo()
    assert read(t) == python_read(t) and read(p) == python_read(p)


def test_a_tensor_without_storage_raises_what_data_ptr_raises(native):
    with torch.sparse.check_sparse_tensor_invariants():  # opted in: torch warns when left implicit
        sparse = torch.sparse_coo_tensor([[0]], [1.0], (2, ))
    with pytest.raises(RuntimeError) as python:
        sparse.data_ptr()
    with pytest.raises(RuntimeError) as ours:
        read(sparse)
    assert str(ours.value) == str(python.value)


def test_without_the_module_nothing_is_read_from_cxx(monkeypatch):
    monkeypatch.setitem(sys.modules, "triton_jit._torch_native", None)
    assert read(torch.zeros(2)) == "no module"

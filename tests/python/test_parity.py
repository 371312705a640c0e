"""The same specialization and the same kernel as Triton's own launch, through the Python API:
random calls go through triton_jit's argument conversion and through the binder Triton's JIT
builds (tests/support/triton_reference.py), whose specialization lists must have equal reprs;
and the compiled kernel is the one Triton's JIT path compiles."""
import random

import pytest

torch = pytest.importorskip("torch", reason="these tests use torch's dtypes and tensors")
import triton.language as tl

import triton_jit
import triton_reference
import py_kernels
from conftest import CudaArray, DLPackArray, TYPESTR

POINTER_DTYPES = ["fp16", "fp32", "fp64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "u1"]
INTS = [0, 1, 2, 15, 16, 17, 32, 1024, 2**31 - 1, 2**31, 2**31 + 16, 2**32, 2**63 - 1, 2**63, 2**64 - 1, -1, -16,
        -2**31, -2**31 - 1, -2**63]
CONSTEXPRS = [0, 1, 16, 17, -3, 2**40, 1.0, 0.5, True, False, None, "relu", "", tl.float16, tl.bfloat16, tl.int32,
              torch.float16, torch.float32, torch.int8]


def pointer_pair(rng):
    """(what Triton's binder is given, what triton_jit is given): the same address and dtype, the
    latter as a framework object of a random kind."""
    dtype = rng.choice(POINTER_DTYPES)
    address = rng.choice([4096, 4096 + 16 * rng.randrange(1, 100), 4096 + rng.randrange(1, 16), 2**40 + 8])
    reference = triton_reference.make_pointer(address, dtype)
    kind = rng.randrange(3)
    if kind == 0:
        ours = CudaArray(address, TYPESTR[dtype])
    elif kind == 1 and dtype in ("fp16", "fp32", "i32", "i64", "u8", "u1"):
        ours = DLPackArray(address, dtype)
    else:
        ours = reference  # data_ptr() and a Triton dtype, as Triton's own wrappers
    return reference, ours


def runtime_pair(rng):
    r = rng.random()
    if r < 0.35:
        return pointer_pair(rng)
    if r < 0.75:
        v = rng.choice(INTS)
        return v, v
    if r < 0.85:
        v = rng.choice([0.0, 1.0, -2.5, 1e30])
        return v, v
    if r < 0.95:
        v = rng.choice([True, False])
        return v, v
    return None, None


def test_random_calls_match_tritons_binder():
    rng = random.Random(11)
    fn = py_kernels.generic_kernel
    k = triton_jit.jit(fn)
    calls, ours = [], []
    for _ in range(600):
        pairs = [runtime_pair(rng) for _ in range(8)]
        consts = [rng.choice(CONSTEXPRS) for _ in range(3)]
        ref_args = [p[0] for p in pairs] + consts
        our_args = [p[1] for p in pairs] + consts
        # Half of the calls pass some trailing parameters by keyword.
        split = rng.randrange(8, 12) if rng.random() < 0.5 else 11
        names = k.arg_names
        ref_kwargs = {names[i]: ref_args[i] for i in range(split, 11)}
        our_kwargs = {names[i]: our_args[i] for i in range(split, 11)}
        calls.append((ref_args[:split], ref_kwargs))
        try:
            ours.append(k.specialize(*our_args[:split], **our_kwargs).triton_repr())
        except triton_jit.ArgumentError:
            ours.append("error: TypeError")
    want = triton_reference.triton_specialization(fn, calls)
    mismatches = [(calls[i], ours[i], want[i]) for i in range(len(calls)) if ours[i] != want[i]]
    assert not mismatches, mismatches[:5]


def test_defaults_match_tritons_binder():
    fn = py_kernels.scale_kernel
    k = triton_jit.jit(fn)
    x = triton_reference.make_pointer(4096, "fp32")
    for args, kwargs in [((x, x, 16, 2.0, True), {}), ((x, x, 17, 1, False, tl.float16), {}),
                         ((x, x, 1, 2.0), {"FLAG": "a", "BLOCK": 64}), ((x, x, 2**33, 0.5, None), {"DTYPE": tl.int8})]:
        want = triton_reference.triton_specialization(fn, [(list(args), kwargs)])[0]
        assert k.specialize(*args, **kwargs).triton_repr() == want, (args, kwargs)


def test_the_compiled_kernel_is_tritons():
    fn = py_kernels.add_kernel
    reference = triton_reference.triton_compile(fn, [triton_reference.make_pointer(4096, "fp32")] * 3 + [1000],
                                                {"BLOCK": 256})
    if reference is None:
        pytest.skip("this Triton packs arguments inline in run (3.4): no _pack_args to compare with")
    info = triton_jit.jit(fn).compile(CudaArray(4096), CudaArray(4096), CudaArray(4096), 1000, BLOCK=256)
    assert info.hash == reference[0]
    assert info.cubin == reference[1]
    assert info.target == "cuda:90"
    # Ahead of time, in Triton's signature syntax: the same kernel.
    ahead = triton_jit.jit(fn).compile(triton_jit.CompileRequest("*fp32:16,*fp32:16,*fp32:16,i32,256",
                                                                 target="cuda:90"))
    assert ahead.hash == reference[0]


@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx1100"])
def test_hip_random_calls_match_tritons_hip_binder(target):
    """For a HIP target, Triton's 'S' flag: the extension asks each array for its buffer's size as
    Triton's HIP backend does (ptr_range(), a torch tensor's untyped_storage().size(); a CuPy or
    DLPack array's span, the storage of the torch tensor made over it), and the lists equal those
    of the binder Triton builds with its HIP backend."""
    rng = random.Random(23)
    fn = py_kernels.generic_kernel
    k = triton_jit.jit(fn)
    sizes = [None, 0, 4096, 2**31 - 1, 2**31, 2**40]
    calls, ours = [], []
    triton_jit.set_target(target)
    try:
        for _ in range(300):
            pairs = []
            for _ in range(8):
                reference, mine = runtime_pair(rng)
                if isinstance(reference, triton_reference._Pointer):
                    size = rng.choice(sizes)
                    address, dtype = reference.data_ptr(), reference.dtype
                    # Triton reads ptr_range() from any object: the stand-in is both sides' argument.
                    if size is not None:
                        reference = mine = triton_reference._RangedPointer(address, dtype, size)
                    elif isinstance(mine, (CudaArray, DLPackArray)):
                        # An array of known shape (16 elements): Triton's key for the tensor torch
                        # makes over it (torch.as_tensor, torch.from_dlpack), whose storage is its
                        # span. A DLPack array for a HIP target is ROCm memory (kDLROCM).
                        if isinstance(mine, DLPackArray):
                            mine.device = (10, 0)
                        span = 16 * max(1, dtype.primitive_bitwidth // 8)
                        reference = triton_reference._RangedPointer(address, dtype, span)
                pairs.append((reference, mine))
            consts = [rng.choice(CONSTEXPRS) for _ in range(3)]
            calls.append(([p[0] for p in pairs] + consts, {}))
            try:
                ours.append(k.specialize(*([p[1] for p in pairs] + consts)).triton_repr())
            except triton_jit.ArgumentError:
                ours.append("error: TypeError")
    finally:
        triton_jit.set_target(None)
    want = triton_reference.triton_specialization(fn, calls, triton_reference.hip_target(target))
    mismatches = [(calls[i], ours[i], want[i]) for i in range(len(calls)) if ours[i] != want[i]]
    assert not mismatches, mismatches[:5]
    from triton import knobs
    if knobs.amd.use_buffer_ops:
        assert any("S')" in w for w in want), "no call reached Triton's 'S' flag"

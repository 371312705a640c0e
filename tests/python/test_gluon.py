"""Gluon kernels (@gluon.jit) through the Python front end: triton_jit.jit takes the live
GluonJITFunction, specializes calls as the binder Triton's JIT builds for it, and compiles the
kernel GluonJITFunction.run compiles (GluonASTSource): the same hash and cubin."""
import os
import random
import sys

import pytest

import triton

import triton_jit
import triton_reference
from conftest import CudaArray

if tuple(int(p) for p in triton.__version__.split(".")[:2]) < (3, 5):
    pytest.skip(f"Triton {triton.__version__} cannot compile Gluon for a target (cpu.Gluon.* check its error)",
                allow_module_level=True)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernels"))
import gluon_kernels  # noqa: E402  (tests/kernels/gluon_kernels.py)


def test_the_front_end_takes_a_gluon_function():
    k = triton_jit.jit(gluon_kernels.scale_add_kernel)
    assert k.arg_names == ["x_ptr", "y_ptr", "out_ptr", "n", "alpha", "BLOCK", "SIZE_PER_THREAD", "NUM_WARPS"]


def test_random_calls_match_tritons_binder():
    rng = random.Random(5)
    fn = gluon_kernels.generic_gluon_kernel
    k = triton_jit.jit(fn)
    values = [0, 1, 16, 17, 2**31, 2**40 + 16, -1, 1.5, True, False, None]
    calls, ours = [], []
    for _ in range(300):
        ref_args, our_args = [], []
        for _ in range(5):
            if rng.random() < 0.4:
                address = rng.choice([4096, 4096 + 16 * rng.randrange(1, 50), 4099])
                ref_args.append(triton_reference.make_pointer(address, "fp32"))
                our_args.append(CudaArray(address))
            else:
                v = rng.choice(values)
                ref_args.append(v)
                our_args.append(v)
        constexprs = [rng.choice([1, 64, "relu", 0.5, None]) for _ in range(2)]
        calls.append((ref_args + constexprs, {}))
        ours.append(k.specialize(*our_args, *constexprs).triton_repr())
    want = triton_reference.triton_specialization(fn, calls)
    mismatches = [(calls[i][0], ours[i], want[i]) for i in range(len(calls)) if ours[i] != want[i]]
    assert not mismatches, mismatches[:5]


def test_the_compiled_kernel_is_tritons():
    fn = gluon_kernels.scale_add_kernel
    ptr = triton_reference.make_pointer(4096, "fp32")
    reference = triton_reference.triton_compile(fn, [ptr, ptr, ptr, 1000, 0.5, 512, 4, 4])
    info = triton_jit.jit(fn).compile(CudaArray(4096), CudaArray(4096), CudaArray(4096), 1000, 0.5, 512, 4, 4)
    assert info.hash == reference[0]
    assert info.cubin == reference[1]
    assert info.name == "scale_add_kernel"
    ahead = triton_jit.jit(fn).compile(triton_jit.CompileRequest("*fp32:16,*fp32:16,*fp32:16,i32,fp32,512,4,4",
                                                                 target="cuda:90"))
    assert ahead.hash == reference[0]

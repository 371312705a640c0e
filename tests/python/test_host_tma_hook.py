"""Triton's host TensorDescriptor (triton.tools.tensor_descriptor) through the Python front end, and
a config pre_hook that sets its block_shape, as FlagGems 5.0.2's host-TMA mm does
(tests/kernels/host_tma_mm.py): the key is the one Triton's own path builds (its Autotuner runs
the hook on nargs, its binder then reads the changed descriptors: tests/support/host_tma_reference.py).
No GPU needed: descriptors over tensor stand-ins, keys through specialize()."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "kernels"))

import host_tma_mm  # noqa: E402  (tests/kernels)
import triton_jit  # noqa: E402
import host_tma_reference  # noqa: E402  (tests/support)
import triton_reference  # noqa: E402

M, N, K = 256, 128, 192
A, B, C = 0x7f0000100000, 0x7f0000200000, 0x7f0000300000


def flaggems_descriptors():
    """FlagGems' general_mm: row-major A, B, C with the dummy [1, 1] block."""
    return host_tma_reference.descriptors((A, "fp16", [M, K], [K, 1], [1, 1]), (B, "fp16", [K, N], [N, 1], [1, 1]),
                                          (C, "fp16", [M, N], [N, 1], [1, 1]))


KWARGS = {"GROUP_M": 8, "A_ROW_MAJOR": True, "B_ROW_MAJOR": True}


def test_descriptor_key_is_tritons_binders():
    from triton.tools.tensor_descriptor import TensorDescriptor
    assert all(type(d) is TensorDescriptor for d in flaggems_descriptors())
    kernel = triton_jit.jit(host_tma_mm.host_tma_mm_body)
    a, b, c = flaggems_descriptors()
    for d, block in ((a, [64, 32]), (b, [32, 16]), (c, [64, 16])):
        d.block_shape = block
    args = [a, b, c, M, N, K]
    kwargs = {"BLOCK_M": 64, "BLOCK_N": 16, "BLOCK_K": 32, **KWARGS}
    ours = kernel.specialize(*args, **kwargs).triton_repr()
    assert ours == triton_reference.triton_specialization(host_tma_mm.host_tma_mm_body, [(args, kwargs)])[0]
    assert "('tensordesc<fp16[64, 32]>', None)" in ours


@pytest.mark.parametrize("config", [0, 1, 2])
def test_pre_hook_sets_the_block_shape_triton_binds(config):
    autotuner = getattr(host_tma_mm, f"host_tma_mm_c{config}")
    kernel = triton_jit.jit(autotuner)
    descs = flaggems_descriptors()
    ours = kernel.specialize(*descs, M, N, K, **KWARGS).triton_repr()
    theirs, blocks = host_tma_reference.hooked_specialization(autotuner, 0, [*flaggems_descriptors(), M, N, K],
                                                              KWARGS)
    assert ours == theirs
    assert "[1, 1]" not in ours
    assert blocks[0] == [host_tma_mm.CONFIGS[config].kwargs["BLOCK_M"], host_tma_mm.CONFIGS[config].kwargs["BLOCK_K"]]
    # The caller's descriptors are not written (the runtime's hook sees its own copies).
    assert [list(d.block_shape) for d in descs] == [[1, 1]] * 3


def test_invalid_descriptor_names_the_parameter():
    kernel = triton_jit.jit(host_tma_mm.host_tma_mm_body)
    a, b, c = flaggems_descriptors()
    b.block_shape = [48, 16]
    with pytest.raises(ValueError, match="b_desc.*powers of 2"):
        kernel.specialize(a, b, c, M, N, K, BLOCK_M=64, BLOCK_N=16, BLOCK_K=32, **KWARGS)
    a, b, c = flaggems_descriptors()
    b.block_shape = [16]
    with pytest.raises(ValueError, match="b_desc.*differ in length"):
        kernel.specialize(a, b, c, M, N, K, BLOCK_M=64, BLOCK_N=16, BLOCK_K=32, **KWARGS)

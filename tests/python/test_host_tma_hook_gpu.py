"""On a GPU: a matmul through host tensor descriptors whose autotune config pre_hook sets their
block_shape (tests/kernels/host_tma_mm.py, written as FlagGems 5.0.2's mm_kernel_general_host_tma
with matmul_tma_set_block_size_hook), launched through the Python front end with Triton's own
TensorDescriptor objects (dummy [1, 1] block, as FlagGems passes them): the same bits as Triton's
launch of the same config, for row- and column-major operands; tuned over three configs, the
runtime's choice gives Triton's bits for that config. Skips, saying why, without a CUDA GPU."""
import os
import sys

import pytest

from conftest import has_gpu

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "kernels"))

import host_tma_mm  # noqa: E402  (tests/kernels)

pytestmark = pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)")

M, N, K = 384, 256, 320


def _operands(b_row_major):
    import torch
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn((M, K), device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16, generator=g)
    if not b_row_major:
        b = b.T.contiguous().T  # column-major [K, N], as FlagGems sees b.stride(0) == 1
    return a, b


def _call(kernel, a, b, b_row_major):
    """FlagGems' general_mm: fresh descriptors with the dummy block, the grid from META."""
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    dummy = [1, 1]
    a_desc = TensorDescriptor(a, a.shape, a.stride(), dummy)
    b_desc = TensorDescriptor(b, b.shape, b.stride(), dummy) if b_row_major else TensorDescriptor(
        b, b.T.shape, b.T.stride(), dummy)
    c_desc = TensorDescriptor(c, c.shape, c.stride(), dummy)
    kernel[host_tma_mm.grid(M, N)](a_desc, b_desc, c_desc, M, N, K, GROUP_M=8, A_ROW_MAJOR=True,
                                   B_ROW_MAJOR=b_row_major)
    torch.cuda.synchronize()
    return c


@pytest.mark.parametrize("b_row_major", [True, False])
@pytest.mark.parametrize("config", [0, 1, 2])
def test_each_config_gives_tritons_bits(config, b_row_major):
    import torch
    import triton_jit
    a, b = _operands(b_row_major)
    tuner = getattr(host_tma_mm, f"host_tma_mm_c{config}")
    theirs = _call(tuner, a, b, b_row_major)
    ours = _call(triton_jit.jit(tuner), a, b, b_row_major)
    assert torch.equal(ours, theirs), f"config {config}: {(ours != theirs).sum().item()} elements differ"
    torch.testing.assert_close(ours.float(), a.float() @ b.float(), rtol=2e-2, atol=2e-1)


def test_tuned_choice_gives_tritons_bits_for_that_config():
    import torch
    import triton_jit
    a, b = _operands(True)
    kernel = triton_jit.jit(host_tma_mm.host_tma_mm)
    ours = _call(kernel, a, b, True)
    assert kernel.stats()["tunings"] == 1
    ours_again = _call(kernel, a, b, True)  # the cached launch: the chosen config's hook again
    assert torch.equal(ours, ours_again)
    from triton.tools.tensor_descriptor import TensorDescriptor
    descs = [TensorDescriptor(t, t.shape, t.stride(), [1, 1]) for t in (a, b, torch.empty_like(ours))]
    spec = kernel.specialize(*descs, M, N, K, GROUP_M=8, A_ROW_MAJOR=True, B_ROW_MAJOR=True).triton_repr()
    chosen = [i for i, c in enumerate(host_tma_mm.CONFIGS)
              if f"('tensordesc<fp16[{c.kwargs['BLOCK_M']}, {c.kwargs['BLOCK_K']}]>', None)" in spec and
              f"('constexpr', {c.kwargs['BLOCK_N']})" in spec]
    assert len(chosen) == 1, spec
    theirs = _call(getattr(host_tma_mm, f"host_tma_mm_c{chosen[0]}"), a, b, True)
    assert torch.equal(ours, theirs), f"{(ours != theirs).sum().item()} elements differ"

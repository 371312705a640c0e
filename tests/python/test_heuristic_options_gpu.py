"""Kernels whose @triton.heuristics set num_warps (tests/kernels/heuristic_options.py, written as
FlagGems 5.0.2 writes its softmax) launched through the runtime and by Triton itself: the same
bits, the same compiled kernel (hash) with the heuristic's num_warps. Skips, saying why, without
a CUDA GPU."""
import ast
import os
import sys

import pytest

from conftest import has_gpu

pytestmark = pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "kernels"))

if has_gpu():
    import torch

    import heuristic_options
    import triton_jit


def _bits(t):
    return t.contiguous().reshape(-1).view(torch.uint8)


# FlagGems' own heuristic functions (through Python) and the same as lambdas (translated); rows that
# fit one tile (4, 8 and 16 warps) and rows that loop over tiles.
@pytest.mark.parametrize("name", ["softmax_inner_kernel", "softmax_lambda_kernel"])
@pytest.mark.parametrize("m,n,dtype", [(8, 100, "float32"), (33, 3000, "float16"), (4, 5000, "float32"),
                                       (2, 40000, "bfloat16"), (100, 2048, "float32")])
def test_heuristic_num_warps_as_tritons_launch(name, m, n, dtype):
    obj = getattr(heuristic_options, name)
    torch.manual_seed(0)
    x = torch.randn(m, n, device="cuda", dtype=getattr(torch, dtype))
    theirs, ours = torch.empty_like(x), torch.empty_like(x)
    compiled = obj[(m, )](theirs, x, m, n)  # Heuristics.run returns JITFunction.run's CompiledKernel
    k = triton_jit.jit(obj)
    k[(m, )](ours, x, m, n)
    torch.cuda.synchronize()
    assert torch.equal(_bits(ours), _bits(theirs))
    spec = k.specialize(ours, x, m, n)
    info = k.compile(ours, x, m, n)
    assert spec.num_warps == compiled.metadata.num_warps
    assert info.num_warps == compiled.metadata.num_warps
    assert spec.num_stages == compiled.metadata.num_stages
    reference_hash = getattr(compiled, "hash", None) or compiled.metadata.hash
    assert info.hash == str(reference_hash)
    tile_n = 1 << (n - 1).bit_length() if n <= 32 * 1024 else 4096  # softmax_heur_tile_n_inner
    assert compiled.metadata.num_warps == (4 if tile_n < 2048 else 8 if tile_n < 4096 else 16)


def test_heuristic_under_autotune_overrides_the_configs_num_warps():
    m, n = 64, 3000
    x = torch.randn(m, n, device="cuda")
    ours = torch.empty_like(x)
    k = triton_jit.jit(heuristic_options.tuned_rows_kernel)
    k[lambda meta: (triton_cdiv(m, meta["TILE_M"]), )](ours, x, m, n)
    torch.cuda.synchronize()
    assert torch.equal(ours, x * 2)
    spec = k.specialize(ours, x, m, n)
    tile_m = ast.literal_eval(spec.triton_repr())[4][1]  # the config the tuner chose
    assert spec.num_warps == tile_m * 8  # TILE_N 4096: the heuristic's 8 per row tile, not the config's


def triton_cdiv(a, b):
    return (a + b - 1) // b

"""Liger-Kernel's and flash-linear-attention's (fla) own forward and backward passes with and
without triton_jit.install(): every output and gradient bit-identical, and none of their launches
sent back to Triton's run (install_stats()). The workloads are bench/python/library_workloads.py's,
which install_bench.py times. Skips, saying why, without a CUDA GPU or without liger_kernel / fla
(gpu-check.sh installs them from .carry/wheels)."""
import importlib.util
import os
import sys

import pytest

from conftest import has_gpu

pytestmark = pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "python"))

NAMES = ["liger rms_norm", "liger layer_norm", "liger swiglu", "liger geglu", "liger cross_entropy",
         "fla chunk_simple_gla (forward)", "fla chunk_gated_delta_rule (forward)"]
LIBRARIES = {"liger": "liger_kernel", "fla": "fla"}


@pytest.mark.parametrize("name", NAMES)
def test_a_library_pass_is_bit_identical_installed(name):
    for module in LIBRARIES.values():
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (gpu-check.sh installs it from .carry/wheels)")
    import torch
    import triton_jit
    from library_workloads import seeded_inputs, workloads

    make, run = workloads(torch)[name]
    assert not triton_jit.installed()
    for _ in range(2):  # autotuning and compiles first, with Triton's own run
        run(seeded_inputs(torch, make))
    want = run(seeded_inputs(torch, make))
    torch.cuda.synchronize()
    triton_jit.install()
    try:
        before = dict(triton_jit.install_stats())
        got = run(seeded_inputs(torch, make))
        torch.cuda.synchronize()
        after = triton_jit.install_stats()
    finally:
        triton_jit.uninstall()
    fallbacks = {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}
    assert fallbacks == {}, f"{name}: launches sent to Triton's run: {fallbacks}"
    assert len(want) == len(got) and want, name
    for i, (a, b) in enumerate(zip(want, got)):
        assert a.dtype == b.dtype and a.shape == b.shape, (name, i)
        assert torch.equal(a, b), f"{name}: output {i} differs installed"

"""FlagGems' operators (flag_gems.use_gems(): LibEntry over @triton.autotune / @triton.heuristics
over its kernels) with and without triton_jit.install(): bit-identical outputs, forward and
backward; their misses go through the installed run (counted: no fallback but warmup), their hits
launch the kernel LibEntry kept. Skips, saying why, without a CUDA GPU or without flag_gems 5.0.2
(gpu-check.sh installs it from .carry/wheels)."""
import gc

import pytest

from conftest import flag_gems_or_skip, has_gpu

pytestmark = pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)")


def _clear_libentry_tables():
    """Empties every LibEntry's table of kept kernels, so that the next calls miss and go through
    JITFunction.run (installed or not)."""
    for obj in gc.get_objects():
        if type(obj).__name__ == "LibEntry" and type(obj).__module__.endswith("libentry"):
            for table in obj.kernel_cache:
                table.clear()


def _ops(torch):
    def forward_backward(x, w):
        x = x.detach().requires_grad_(True)
        y = torch.nn.functional.softmax(x @ w, dim=-1)
        z = torch.nn.functional.layer_norm(y * 2.0 + x, (x.shape[-1], ))
        loss = z.sum()
        loss.backward()
        return [y.detach(), z.detach(), loss.detach(), x.grad]
    return forward_backward


def test_flaggems_ops_are_bit_identical_installed():
    flag_gems = flag_gems_or_skip()
    import torch
    import triton_jit
    torch.manual_seed(0)
    x = torch.randn(64, 256, device="cuda")
    w = torch.randn(256, 256, device="cuda")
    run = _ops(torch)
    with flag_gems.use_gems():
        _clear_libentry_tables()
        want = run(x, w)
        torch.cuda.synchronize()
        _clear_libentry_tables()
        triton_jit.install()
        try:
            before = triton_jit.install_stats()
            launched_before = triton_jit.global_stats()
            got = run(x, w)  # misses: through the installed run
            again = run(x, w)  # hits: LibEntry launches what the installed run returned
            torch.cuda.synchronize()
            after = triton_jit.install_stats()
            launched_after = triton_jit.global_stats()
        finally:
            triton_jit.uninstall()
    for a, b, c in zip(want, got, again):
        assert torch.equal(a, b) and torch.equal(a, c)
    # The misses went through the runtime (its launches counted as hits and misses of its table);
    # calls it handed to Triton's run are allowed (bit-identical all the same) and reported.
    runtime_launches = sum(launched_after[k] - launched_before[k] for k in ("hits", "misses"))
    fallbacks = {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}
    print(f"FlagGems under install(): {runtime_launches} launches through the runtime, fallbacks {fallbacks}")
    assert runtime_launches > 0, fallbacks

"""FlagGems' tuning database shared both ways on a GPU, with the real FlagGems package: the
runtime tunes a LibTuner kernel and FlagGems' Python, asked for the same key, finds that choice
without tuning; FlagGems tunes another key in Python and the runtime launches with its choice
without tuning. The runtime's timings land in FlagGems' benchmark table, and a custom policy
(register_policy) runs through Python, its choice the one FlagGems reads back. Skips, saying why, without a CUDA GPU or without flag_gems."""
import os
import tempfile

import pytest

from conftest import has_gpu

WHY = None if has_gpu() else "no CUDA GPU"
if WHY is None:
    DB_DIR = tempfile.mkdtemp(prefix="tj-libtuner-gpu-")
    os.environ["FLAGGEMS_DB_URL"] = f"sqlite:///{os.path.join(DB_DIR, 'tuned.db')}"
    try:
        import flag_gems  # noqa: F401
    except Exception as e:  # noqa: BLE001 - any failure to import is a reason to skip
        WHY = f"flag_gems cannot be imported ({type(e).__name__}: {e})"

# Per test, not for the module: a module skipped whole is pytest's exit 5, which CTest counts as failed.
pytestmark = pytest.mark.skipif(WHY is not None, reason=f"LibTuner GPU tests skipped: {WHY}")

if WHY is None:
    import libtuner_gpu_kernels as kernels
    import torch
    import triton_jit


def _grid(n):
    return lambda meta: ((n + meta["BLOCK"] - 1) // meta["BLOCK"], )


def _config_text(config):
    return {**config.kwargs, "num_warps": config.num_warps}


def _tuned_from_cpp(tuner, n):
    """The runtime launches `tuner`'s kernel on n elements, tuning once (a key no one tuned);
    returns the tensors, FlagGems' key and the config FlagGems' ConfigCache holds for it."""
    k = triton_jit.jit(tuner)
    x = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    k[_grid(n)](x, out, n)
    torch.cuda.synchronize()
    assert torch.equal(out, x * 2)
    assert k.stats()["tunings"] == 1
    key = tuner.get_key({"x_ptr": x, "out_ptr": out, "n": n})
    stored = tuner.cache.get(key)  # FlagGems' ConfigCache over its database
    assert stored is not None, f"the runtime's choice for {key} is not in FlagGems' database"
    return x, out, key, stored


def test_runtime_tunes_and_flaggems_reads_the_choice():
    tuner = kernels.scaled_copy
    n = 3000
    x, out, key, stored = _tuned_from_cpp(tuner, n)
    assert _config_text(stored) in [_config_text(c) for c in kernels.CONFIGS]
    # FlagGems' own run finds it: no benchmark (bench_time is set only when it tunes).
    tuner[((n + 63) // 64, )](x, out, n)  # as FlagGems' operators call it
    assert not hasattr(tuner, "bench_time")
    assert _config_text(tuner.best_config) == _config_text(stored)
    # Each config's timing in FlagGems' benchmark table (its BenchmarkCache), the stored choice the
    # fastest of them, as FlagGems' default policy keeps it.
    timings = _benchmarks(tuner, key)
    assert all(t is not None and len(t) == 3 for t in timings.values()), timings
    assert _config_text(min(timings, key=timings.get)) == _config_text(stored)


def _benchmarks(tuner, key):
    from flag_gems.utils.libentry import libcache
    bench = libcache[tuner.benchmark_table_name, key]
    return {config: bench.get(config) for config in tuner.configs}


def test_custom_policy_runs_through_python_and_flaggems_reads_its_choice():
    tuner = kernels.scaled_copy_slowest
    n = 5000
    x, out, key, stored = _tuned_from_cpp(tuner, n)
    timings = _benchmarks(tuner, key)
    assert all(t is not None for t in timings.values()), timings
    assert _config_text(max(timings, key=timings.get)) == _config_text(stored), "not the policy's choice"
    tuner[((n + 63) // 64, )](x, out, n)  # FlagGems' own run: no tuning
    assert not hasattr(tuner, "bench_time")
    assert _config_text(tuner.best_config) == _config_text(stored)


def test_flaggems_tunes_and_the_runtime_uses_its_choice():
    tuner = kernels.scaled_copy
    n = 70000  # another key under the log strategy
    x = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    tuner[lambda meta: ((n + meta["BLOCK"] - 1) // meta["BLOCK"], )](x, out, n)
    torch.cuda.synchronize()
    chosen = tuner.best_config
    k = triton_jit.jit(tuner)
    before = k.stats()["tunings"]
    out2 = torch.empty_like(x)
    k[_grid(n)](x, out2, n)
    torch.cuda.synchronize()
    assert torch.equal(out2, x * 2)
    assert k.stats()["tunings"] == before, "the runtime tuned a key FlagGems had tuned"
    assert chosen is not None

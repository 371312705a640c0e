"""A kernel under the real FlagGems' LibTuner (flag_gems.utils.libentry; needs a GPU to import)."""
import triton
import triton.language as tl
from flag_gems.utils.libentry import LibTuner, libtuner

CONFIGS = [triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((64, 2), (256, 4), (1024, 8))]


@libtuner(configs=CONFIGS, key=["n"], strategy="log")
@triton.jit
def scaled_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2, mask=mask)


@LibTuner.register_policy("tj_slowest_for_tests")
def slowest(bench_fn, configs, args, kwargs):
    """A custom policy: keeps the slowest config (a choice the default policy never makes)."""
    timings = {config: bench_fn(config) for config in configs}
    return max(timings, key=timings.get), timings


@libtuner(configs=CONFIGS, key=["n"], strategy="log", policy="tj_slowest_for_tests")
@triton.jit
def scaled_copy_slowest(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2, mask=mask)

"""A kernel under fla's fla_cache_autotune (the stand-in in tests/support/fla_stub)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "support", "fla_stub"))

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from fla.ops.utils.cache import fla_cache_autotune  # noqa: E402


@fla_cache_autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128}, num_warps=8)], key=["n"])
@triton.jit
def fla_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)
    tl.store(out_ptr + pid, BLOCK)

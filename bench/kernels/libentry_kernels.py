"""The kernel of the LibEntry benchmark (bench/libentry_launch_bench.cpp,
bench/python/libentry_python_bench.py), written as FlagGems writes its kernels: FlagGems' own
@libentry() over @triton.autotune over @triton.heuristics over a @triton.jit kernel whose size is
do_not_specialize. Tiny (one program covers n <= 256), so a launch measures the host side: what a
LibEntry hit costs per call.

LibEntry is FlagGems' own class: from the installed flag_gems where it imports (it needs a GPU),
else FlagGems' libentry.py loaded alone with its device runtime stubbed
(tests/support/flaggems_libentry.py, the CPU tests' loader; the file is checked against the 5.0.2
wheel; TRITON_JIT_BENCH_LIBENTRY=stub takes this one at once). LIBENTRY_FROM says which. Never pass 1 for n: Triton would make it a constexpr.
"""
import os
import sys

import triton
import triton.language as tl

try:
    # TRITON_JIT_BENCH_LIBENTRY=stub takes the stubbed file at once (the fake-driver benchmark:
    # importing flag_gems, hence torch, under valgrind takes minutes, then fails without a GPU).
    if os.environ.get("TRITON_JIT_BENCH_LIBENTRY") == "stub":
        raise ImportError("TRITON_JIT_BENCH_LIBENTRY=stub")
    from flag_gems.utils.libentry import libentry
    LIBENTRY_FROM = "flag_gems"
except Exception:  # no flag_gems, or its device runtime could not start
    for _name in [m for m in sys.modules if m == "flag_gems" or m.startswith("flag_gems.")]:
        del sys.modules[_name]  # a half-imported package would shadow the loader's stand-ins
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "support"))
    from flaggems_libentry import libentry
    LIBENTRY_FROM = "flag_gems/utils/libentry.py, device runtime stubbed"


# One config (as many FlagGems kernels have on a given GPU), so every process freezes the same
# choice; the heuristic reads n, which LibEntry keys only by its class (do_not_specialize).
@libentry()
@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=2)], key=["n"])
@triton.heuristics({"EVEN_N": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit(do_not_specialize=["n"])
def libentry_scale_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN_N:
        x = tl.load(x_ptr + offs)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + offs, x * alpha, mask=offs < n)

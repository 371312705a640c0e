"""Kernels for tests/python/test_install.py: a plain kernel, one under @triton.autotune and
@triton.heuristics, and a LibEntry-like wrapper (it calls fn.run on a miss and keeps what it
returns), held at module level as an application holds them."""
import triton
import triton.language as tl


@triton.jit
def plain_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr = 256):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4),
                          triton.Config({"BLOCK": 512}, num_warps=8, num_stages=2)], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def tuned_even_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))
    else:
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


class LibEntryLike:
    """What FlagGems' LibEntry does around a JITFunction: the first call of a key goes through
    fn.run, whose return value (the CompiledKernel) it keeps."""

    def __init__(self, fn):
        self.fn = fn
        self.kernels = {}

    def run(self, *args, grid, **kwargs):
        key = tuple(type(a).__name__ for a in args)
        if key not in self.kernels:
            self.kernels[key] = self.fn.run(*args, grid=grid, warmup=False, **kwargs)
        return self.kernels[key]

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)


@triton.jit
def _entry_add(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


entry_add = LibEntryLike(_entry_add)

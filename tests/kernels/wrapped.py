"""@triton.jit functions behind @triton.autotune and @triton.heuristics."""
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128}, num_warps=8)], key=["n"])
@triton.jit
def autotuned_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


@triton.heuristics({"EVEN": lambda args: args["n"] % 2 == 0})
@triton.jit
def heuristic_kernel(x_ptr, n, EVEN: tl.constexpr):
    pass


@triton.autotune(configs=[triton.Config({"BLOCK": 32})], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % 2 == 0})
@triton.jit
def stacked_kernel(x_ptr, n, EVEN: tl.constexpr, BLOCK: tl.constexpr):
    pass

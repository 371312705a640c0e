"""Decorated kernels that a caller or their author got wrong, one mistake each."""
import triton
import triton.language as tl


@triton.heuristics({"BLOCK": lambda args: 4096 // args["n"]})  # raises ZeroDivisionError for n == 0
@triton.jit
def raising_heuristic_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pass


@triton.heuristics({"BLOCK": lambda args: [args["n"]]})  # a list cannot be a constexpr
@triton.jit
def list_heuristic_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pass


@triton.autotune(configs=[triton.Config({"BLOCK": 64, "WIDTH": 2})], key=["n"])
@triton.jit
def unknown_config_param_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pass


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def never_compiles_kernel(x_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK < 32, "BLOCK must be below 32")
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs))

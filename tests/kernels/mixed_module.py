"""A module with one @triton.jit function beside plain Python objects."""
import triton
import triton.language as tl

NOT_A_KERNEL = 42


def plain_function(x):
    return x + 1


@triton.jit
def real_kernel(x_ptr, BLOCK: tl.constexpr):
    pass


@triton.jit
def other_kernel(y_ptr):
    pass

"""Fails to import: a syntax error."""
import triton


@triton.jit
def never_kernel(x_ptr:
    pass

"""Compiles for power-of-two BLOCK only: tl.arange needs a power-of-two range."""
import triton
import triton.language as tl


@triton.jit
def arange_kernel(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)  # COMPILE-ERROR-LINE
    tl.store(out_ptr + offs, offs)

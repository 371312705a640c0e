"""A kernel file that prints when imported, on Python's stdout and on file descriptor 2 directly
(as a native library or a compiler does): triton-jit's own output must stay clean."""
import os

import triton
import triton.language as tl

print("noisy: a line on Python's stdout")
os.write(2, b"noisy: a line written to fd 2\n")


@triton.jit
def quiet_kernel(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)

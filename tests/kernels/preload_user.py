"""A kernel file (not in a package) that needs pkgdemo imported first, like a generated kernel file
of a library: without it the value it reads at import is missing (KeyError)."""
import triton
import triton.language as tl

import preload_registry

preload_registry.ORDER.append("preload_user")
OFFSET = preload_registry.VALUES["offset"]


@triton.jit
def offset_kernel(x_ptr, n, OFF: tl.constexpr = OFFSET):
    offs = tl.arange(0, 128)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + OFF, mask=mask)

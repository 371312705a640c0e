"""Kernels for the triton_jit package's tests, imported by the tests as a plain module (its
folder is put on sys.path), the way an application holds its kernels."""
import os

import triton
import triton.language as tl

# Counts how often this file's top level ran: triton_jit.jit must not import it a second time.
os.environ["PY_KERNELS_IMPORTS"] = str(int(os.environ.get("PY_KERNELS_IMPORTS", "0")) + 1)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr = 1024):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def generic_kernel(a, b, c, d, e, f, g, h, C0: tl.constexpr, C1: tl.constexpr, C2: tl.constexpr):
    pass


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, scale, FLAG: tl.constexpr, DTYPE: tl.constexpr = tl.float32,
                 BLOCK: tl.constexpr = 256):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(DTYPE)
    if FLAG:
        x = x * scale
    tl.store(out_ptr + offs, x, mask=mask)


@triton.jit
def arange_kernel(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)  # fails to compile for a BLOCK that is not a power of two
    tl.store(out_ptr + offs, offs)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4),
                          triton.Config({"BLOCK": 256}, num_warps=8)], key=["n"])
@triton.jit
def tuned_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def even_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))
    else:
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


# 14 parameters: the launch benchmark's wide case (bench/python/launch_bench.py).
@triton.jit
def wide_kernel(p0, p1, p2, p3, p4, p5, p6, p7, n0, n1, n2, n3, n4, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n0
    x = tl.load(p0 + offs, mask=mask) + tl.load(p1 + offs, mask=mask) + tl.load(p2 + offs, mask=mask)
    x += tl.load(p3 + offs, mask=mask) + tl.load(p4 + offs, mask=mask) + tl.load(p5 + offs, mask=mask)
    x += tl.load(p6 + offs, mask=mask) + (n1 + n2 + n3 + n4)
    tl.store(p7 + offs, x, mask=mask)


# triton_jit.jit as a decorator: in place of @triton.jit, and above Triton's own decorators.
import triton_jit  # noqa: E402


@triton_jit.jit
def decorated_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr = 64):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton_jit.jit
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def decorated_even_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))

"""Scalar parameters of every floating width, for the launcher's packing."""
import triton
import triton.language as tl


@triton.jit
def scalars_kernel(out_ptr, a: tl.float16, b: tl.bfloat16, c: tl.float32, d: tl.float64, e: tl.int64, f: "u1",
                   g: tl.int8, BLOCK: tl.constexpr):
    v = a.to(tl.float32) + b.to(tl.float32) + c + d.to(tl.float32) + e.to(tl.float32) + g.to(tl.float32)
    if f:
        v = v * 2
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.full((BLOCK,), 0, tl.float32) + v)

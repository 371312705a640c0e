"""Parameters annotated with Triton types, in every spelling Triton accepts."""
import triton
import triton.language as tl


@triton.jit
def annotated_kernel(out_ptr: "*fp16", n: tl.int64, scale: tl.float32, flag: "u1", src_ptr: tl.const,
                     kptr: "*kfp32", count: "u64", BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(kptr + offs, mask=mask) * scale
    if flag:
        v = v + tl.load(src_ptr + offs, mask=mask).to(tl.float32)
    v = v + count.to(tl.float32)
    tl.store(out_ptr + offs, v.to(tl.float16), mask=mask)

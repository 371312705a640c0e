# Triton kernels of triton_jit_ops::add: out = a + alpha * b, elementwise.
#
# The inputs keep their own dtypes and are converted inside the kernel (no conversion kernels on
# the host); the arithmetic runs in the result dtype (out_ptr's element type), except:
#   fp16 / bf16 results: computed in fp32 and rounded once on the store (torch's opmath);
#   bool results: computed in int32 and stored as (value != 0), i.e. a | (alpha & b).
# alpha arrives twice, as fp64 (used for floating results, full precision for fp64) and as int64
# (used for integer and bool results); HAS_ALPHA=False (alpha == 1) skips the multiply.
# Offsets are 64-bit so tensors over 2**31 elements are fine.
import triton
import triton.language as tl


@triton.jit
def _add_values(a, b, alpha_f, alpha_i, out_ptr, HAS_ALPHA: tl.constexpr):
    out_ty = out_ptr.dtype.element_ty
    if out_ty.is_floating():
        if out_ty.is_fp64():
            a = a.to(tl.float64)
            b = b.to(tl.float64)
            if HAS_ALPHA:
                b = b * alpha_f
        else:
            a = a.to(tl.float32)
            b = b.to(tl.float32)
            if HAS_ALPHA:
                b = b * alpha_f.to(tl.float32)
    elif out_ty.is_bool():
        a = a.to(tl.int32)
        b = b.to(tl.int32)
        if HAS_ALPHA:
            b = b * (alpha_i != 0).to(tl.int32)
    else:
        a = a.to(out_ty)
        b = b.to(out_ty)
        if HAS_ALPHA:
            # alpha converted to the result type first, as torch does (wraps like C casts).
            b = b * alpha_i.to(out_ty)
    # Casting to int1 is `!= 0`, so bool results are 0/1 bytes.
    return (a + b).to(out_ty)


@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, alpha_f: tl.float64, alpha_i: tl.int64,
               BLOCK: tl.constexpr, HAS_ALPHA: tl.constexpr):
    """Contiguous inputs of the result's shape: out[i] = a[i] + alpha * b[i], i < n."""
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, _add_values(a, b, alpha_f, alpha_i, out_ptr, HAS_ALPHA), mask=mask)


@triton.jit
def add_strided_kernel(a_ptr, b_ptr, out_ptr, n,
                       size1, size2, size3,
                       sa0, sa1, sa2, sa3,
                       sb0, sb1, sb2, sb3,
                       alpha_f: tl.float64, alpha_i: tl.int64,
                       BLOCK: tl.constexpr, HAS_ALPHA: tl.constexpr):
    """Broadcast / strided inputs over a contiguous output of (up to) 4 dims [size0, size1,
    size2, size3] (size0 implied by n); broadcast dims have stride 0. out[i] is contiguous."""
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    i3 = offs % size3
    rest = offs // size3
    i2 = rest % size2
    rest = rest // size2
    i1 = rest % size1
    i0 = rest // size1
    a = tl.load(a_ptr + (i0 * sa0 + i1 * sa1 + i2 * sa2 + i3 * sa3), mask=mask)
    b = tl.load(b_ptr + (i0 * sb0 + i1 * sb1 + i2 * sb2 + i3 * sb3), mask=mask)
    tl.store(out_ptr + offs, _add_values(a, b, alpha_f, alpha_i, out_ptr, HAS_ALPHA), mask=mask)

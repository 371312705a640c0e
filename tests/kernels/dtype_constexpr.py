"""dtype constexprs, in both spellings Triton accepts: a Triton dtype (tl.float16) and a torch
dtype (x.dtype, torch.float16), as Liger-Kernel's RMSNorm backward passes X_dtype. Triton keys the
two apart. The file imports no torch: torch dtypes only arrive as arguments."""
import triton
import triton.language as tl


# Converts through DTYPE: needs a Triton dtype (Triton itself cannot `.to()` a torch dtype).
@triton.jit
def cast_kernel(x_ptr, y_ptr, n, DTYPE: tl.constexpr, BLOCK: tl.constexpr = 128):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(DTYPE).to(tl.float32), mask=mask)


# Only compares X_dtype, which works in either spelling.
@triton.jit
def scale_kernel(x_ptr, n, X_dtype: tl.constexpr, OUT_DTYPE: tl.constexpr = tl.float32, BLOCK: tl.constexpr = 128):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if X_dtype == tl.float16:
        x = x * 2
    tl.store(x_ptr + offs, x.to(OUT_DTYPE).to(tl.float32), mask=mask)

"""Defaults of tl.constexpr parameters: a tl.dtype, which C++ passes as DType::fp16, and objects
C++ has no form for (a tuple, a pointer type), which a call must give explicitly."""
import triton
import triton.language as tl


@triton.jit
def cast_kernel(x_ptr, n, DTYPE: tl.constexpr = tl.float16):
    offs = tl.arange(0, 128)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x.to(DTYPE).to(tl.float32), mask=offs < n)


# Only specialized, never compiled.
@triton.jit
def tuple_default_kernel(x_ptr, n, SHAPE: tl.constexpr = (16, 16)):
    pass


@triton.jit
def pointer_type_default_kernel(x_ptr, n, PTR_TYPE: tl.constexpr = tl.pointer_type(tl.float16)):
    pass

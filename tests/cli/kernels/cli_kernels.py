"""Kernels for the triton-jit command-line tests (tests/cli)."""
import triton
import triton.language as tl


# The vector add of tests/kernels/add.py (the fixture of the other suites), kept here: the cases name
# it beside this file's other kernels (cli_kernels.py:add_kernel, in messages they match too) and
# copy the file whole (validation_cases.py).
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


# Every kind of parameter the specializer treats differently. Only specialized, never compiled.
@triton.jit(do_not_specialize=["seed"], do_not_specialize_on_alignment=["y_ptr"])
def mixed_kernel(x_ptr, y_ptr, src_ptr: tl.const, n: tl.int64, scale, seed, flag, NAME: tl.constexpr,
                 ALPHA: tl.constexpr = 1.5, MODE: tl.constexpr = None):
    pass


# A pointer annotation: Triton takes an integer there as the address; the runtime wants a pointer.
# Only specialized, never compiled.
@triton.jit
def annotated_kernel(x_ptr: "*fp16", n):
    pass


# A dtype default: C++ passes it as tl.float16 when the parameter is left out.
@triton.jit
def dtype_default_kernel(x_ptr, DT: tl.constexpr = tl.float16):
    pass


# A default C++ cannot pass (a tuple): the parameter must be given.
@triton.jit
def tuple_default_kernel(x_ptr, SHAPE: tl.constexpr = (16, 16)):
    pass


# dtype constexprs, as Liger-Kernel passes X_dtype: Triton's dtype or torch's (x.dtype). Compared
# only, which works in both spellings; OUT_DTYPE converts, which needs Triton's.
@triton.jit
def dtype_kernel(x_ptr, n, X_dtype: tl.constexpr, OUT_DTYPE: tl.constexpr = tl.float32):
    offsets = tl.arange(0, 128)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    if X_dtype == tl.float16:
        x = x * 2
    tl.store(x_ptr + offsets, x.to(OUT_DTYPE).to(tl.float32), mask=mask)


# Imports fine, fails to compile: `undefined_name` does not exist.
@triton.jit
def broken_kernel(x_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, undefined_name)


not_a_kernel = 42

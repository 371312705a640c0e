"""Element-wise kernels for the GPU tests (the vector add is tests/kernels/add.py, shared by every
suite: gpu_test_util.h's add_kernel_path())."""
import triton
import triton.language as tl
from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait


@triton.jit
def axpy_inplace_kernel(acc_ptr, x_ptr, alpha, n_elements, BLOCK_SIZE: tl.constexpr):
    """acc += alpha * x, for chains of launches (graphs, streams)."""
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    acc = tl.load(acc_ptr + offsets, mask=mask)
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(acc_ptr + offsets, acc + alpha * x, mask=mask)


@triton.jit
def axpy_pdl_kernel(acc_ptr, x_ptr, alpha, n_elements, BLOCK_SIZE: tl.constexpr):
    """axpy_inplace_kernel for programmatic dependent launch: waits for the previous kernel's
    writes before reading, and lets the next kernel start its prologue early."""
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    gdc_wait()
    acc = tl.load(acc_ptr + offsets, mask=mask)
    x = tl.load(x_ptr + offsets, mask=mask)
    gdc_launch_dependents()
    tl.store(acc_ptr + offsets, acc + alpha * x, mask=mask)

"""Kernels taking host tensor descriptors (triton.tools.tensor_descriptor.TensorDescriptor)."""
import triton
import triton.language as tl


@triton.jit
def copy2d_kernel(in_desc, out_desc, scale, BM: tl.constexpr, BN: tl.constexpr):
    """out = in * scale, a BM x BN tile per program, through descriptors on load and store."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = in_desc.load([pid_m * BM, pid_n * BN])
    out_desc.store([pid_m * BM, pid_n * BN], (x * scale).to(x.dtype))


@triton.jit
def rows3d_kernel(in_desc, out_ptr, n_rows, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr):
    """A rank-3 descriptor beside a plain pointer."""
    pid = tl.program_id(0)
    x = in_desc.load([pid * B0, 0, 0])
    offs = tl.arange(0, B0)[:, None, None] * (B1 * B2) + tl.arange(0, B1)[None, :, None] * B2 + \
        tl.arange(0, B2)[None, None, :]
    tl.store(out_ptr + pid * B0 * B1 * B2 + offs, x)

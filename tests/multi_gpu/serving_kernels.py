"""A kernel of the two-rank serving test launched through the triton_jit Python package; the
test's pack holds its specialization (run_two_ranks.sh writes the manifest line)."""
import triton
import triton.language as tl


@triton.jit
def _axpy_block(x_ptr, y_ptr, alpha, offsets, mask):
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    return alpha * x + y


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, _axpy_block(x_ptr, y_ptr, alpha, offsets, mask), mask=mask)

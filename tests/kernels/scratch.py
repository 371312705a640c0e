"""Kernels whose launch needs more than the arguments: global scratch memory, shared memory."""
import triton
import triton.language as tl


@triton.jit
def descriptor_kernel(x_ptr, n, BLOCK: tl.constexpr):
    # A tensor descriptor made on the device lives in global scratch memory.
    desc = tl.make_tensor_descriptor(x_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    x = desc.load([tl.program_id(0) * BLOCK])
    desc.store([tl.program_id(0) * BLOCK], x + 1)


@triton.jit
def sum_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # A block-wide reduction exchanges partial sums through shared memory.
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr, tl.sum(tl.load(x_ptr + offs), axis=0))

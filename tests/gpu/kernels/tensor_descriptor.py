"""A kernel that builds TMA descriptors on the device (tl.make_tensor_descriptor): Triton gives
it global scratch memory to hold them, which the launcher must allocate."""
import triton
import triton.language as tl


@triton.jit
def scale_shift_2d_kernel(in_ptr, out_ptr, M, N, scale, shift, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    in_desc = tl.make_tensor_descriptor(in_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    out_desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    tile = in_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
    out_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], tile * scale + shift)

"""Kernels that write back what they were given: scalar packing and grid dimensions on a real GPU."""
import triton
import triton.language as tl


@triton.jit
def echo_scalars_kernel(out_i64_ptr, out_f64_ptr, i32_neg, i64_big, u64_big, flag, f32_val, h_val: tl.float16,
                        bf_val: tl.bfloat16, d_val: tl.float64, u8_val: tl.uint8, i16_val: tl.int16):
    tl.store(out_i64_ptr + 0, i32_neg.to(tl.int64))
    tl.store(out_i64_ptr + 1, i64_big)
    tl.store(out_i64_ptr + 2, u64_big.to(tl.int64, bitcast=True))
    tl.store(out_i64_ptr + 3, flag.to(tl.int64))
    tl.store(out_i64_ptr + 4, u8_val.to(tl.int64))
    tl.store(out_i64_ptr + 5, i16_val.to(tl.int64))
    tl.store(out_f64_ptr + 0, f32_val.to(tl.float64))
    tl.store(out_f64_ptr + 1, h_val.to(tl.float64))
    tl.store(out_f64_ptr + 2, bf_val.to(tl.float64))
    tl.store(out_f64_ptr + 3, d_val)


@triton.jit
def grid_ids_kernel(out_ptr):
    """out[linear program id] = linear id * 8 + (number of axes whose num_programs matched)."""
    x = tl.program_id(0)
    y = tl.program_id(1)
    z = tl.program_id(2)
    nx = tl.num_programs(0)
    ny = tl.num_programs(1)
    linear = x.to(tl.int64) + nx.to(tl.int64) * (y.to(tl.int64) + ny.to(tl.int64) * z.to(tl.int64))
    tl.store(out_ptr + linear, linear)

"""Kernels of the launch-overhead benchmarks (bench/launch_*_bench.cpp, bench/triton_python_launch.py).

Both are tiny: a launch of one program does almost no GPU work, so a benchmark measures the host
side of a launch. Runtime parameter counts (what the kernel's cubin takes, before Triton's two
trailing scratch pointers): add_kernel 4, many_args_kernel 14. Never pass 1 for an integer: Triton
specializes an int equal to 1 into a constexpr, which would drop it from the parameter list.
"""
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # 5 arguments, 4 runtime parameters.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def many_args_kernel(x0, x1, x2, x3, out_ptr, n, o0, o1, o2, o3, a0, a1, a2, a3, BLOCK: tl.constexpr):
    # 15 arguments, 14 runtime parameters: 5 pointers, 5 integers, 4 floats.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.load(x0 + offs, mask=mask) * a0
    acc += tl.load(x1 + offs, mask=mask) * a1
    acc += tl.load(x2 + offs, mask=mask) * a2
    acc += tl.load(x3 + offs, mask=mask) * a3
    acc += (o0 + o1 + o2 + o3).to(tl.float32)
    tl.store(out_ptr + offs, acc, mask=mask)

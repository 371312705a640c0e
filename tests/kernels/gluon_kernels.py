"""Gluon kernels (@gluon.jit, Triton 3.5 and newer) as Gluon code writes them: layouts explicit,
built in the kernel from constexpr parameters. An elementwise kernel, a row reduction over a 2D
blocked layout (its result in the slice layout gl.sum gives), and a kernel of unannotated
parameters for the specialization parity."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def _scaled(x, alpha):
    # A @gluon.jit helper: the kernel's dependencies include it.
    return x * alpha


@gluon.jit
def scale_add_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: gl.constexpr, SIZE_PER_THREAD: gl.constexpr,
                     NUM_WARPS: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([SIZE_PER_THREAD], [32], [NUM_WARPS], [0])
    pid = gl.program_id(0)
    offsets = pid * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offsets < n
    x = gl.load(x_ptr + offsets, mask=mask)
    y = gl.load(y_ptr + offsets, mask=mask)
    gl.store(out_ptr + offsets, _scaled(x, alpha) + y, mask=mask)


@gluon.jit
def row_sum_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_row, BLOCK_R: gl.constexpr, BLOCK_C: gl.constexpr,
                   NUM_WARPS: gl.constexpr):
    # Each thread holds 4 consecutive columns; a warp spans 4 rows of 8 threads, the warps stack on rows.
    layout: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [NUM_WARPS, 1], [1, 0])
    rows = gl.program_id(0) * BLOCK_R + gl.arange(0, BLOCK_R, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, BLOCK_C, layout=gl.SliceLayout(0, layout))
    row_mask = rows < n_rows
    acc = gl.zeros([BLOCK_R], gl.float32, layout=gl.SliceLayout(1, layout))
    for start in range(0, n_cols, BLOCK_C):
        c = start + cols
        offsets = gl.expand_dims(rows, 1) * stride_row + gl.expand_dims(c, 0)
        mask = gl.expand_dims(row_mask, 1) & gl.expand_dims(c < n_cols, 0)
        x = gl.load(x_ptr + offsets, mask=mask, other=0.0)
        acc += gl.sum(x.to(gl.float32), axis=1)
    gl.store(out_ptr + rows, acc, mask=row_mask)


@gluon.jit(do_not_specialize=["d"])
def generic_gluon_kernel(a, b, c, d, e, f: gl.constexpr, g: gl.constexpr):
    pass


@gluon.jit
def gluon_add(x_ptr, y_ptr, out_ptr, n, BLOCK: gl.constexpr):
    # The parameters of the store tests' probe (tests/cpu/store_probe.cpp), launched with 4 warps.
    layout: gl.constexpr = gl.BlockedLayout([BLOCK // 128], [32], [4], [0])
    offsets = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offsets < n
    gl.store(out_ptr + offsets, gl.load(x_ptr + offsets, mask=mask) + gl.load(y_ptr + offsets, mask=mask), mask=mask)

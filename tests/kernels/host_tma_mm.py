"""A matmul through host tensor descriptors written as FlagGems 5.0.2's mm_kernel_general_host_tma
(flag_gems/runtime/backend/_nvidia/hopper/ops/mm.py): the caller passes TensorDescriptors with a
dummy [1, 1] block, and each autotune config's pre_hook (FlagGems' matmul_tma_set_block_size_hook)
sets their block_shape from the config's tile sizes before the launch binds them."""
import triton
import triton.language as tl


def set_block_size_hook(nargs):
    """FlagGems' matmul_tma_set_block_size_hook."""
    BLOCK_M = nargs["BLOCK_M"]
    BLOCK_N = nargs["BLOCK_N"]
    BLOCK_K = nargs["BLOCK_K"]
    if nargs["A_ROW_MAJOR"]:
        nargs["a_desc"].block_shape = [BLOCK_M, BLOCK_K]
    else:
        nargs["a_desc"].block_shape = [BLOCK_K, BLOCK_M]
    if nargs["B_ROW_MAJOR"]:
        nargs["b_desc"].block_shape = [BLOCK_K, BLOCK_N]
    else:
        nargs["b_desc"].block_shape = [BLOCK_N, BLOCK_K]
    nargs["c_desc"].block_shape = [BLOCK_M, BLOCK_N]


CONFIGS = [
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 32, "BLOCK_K": 32}, num_stages=3, num_warps=4, pre_hook=set_block_size_hook),
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 16}, num_stages=2, num_warps=4, pre_hook=set_block_size_hook),
    triton.Config({"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 64}, num_stages=2, num_warps=2, pre_hook=set_block_size_hook),
]


@triton.jit
def host_tma_mm_body(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, A_ROW_MAJOR: tl.constexpr,
                     B_ROW_MAJOR: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // (group_size)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    offset_am = (pid_m * BLOCK_M).to(tl.int32)
    offset_bn = (pid_n * BLOCK_N).to(tl.int32)
    for k in range(tl.cdiv(K, BLOCK_K)):
        offset_ak = (k * BLOCK_K).to(tl.int32)
        if A_ROW_MAJOR:
            a = a_desc.load([offset_am, offset_ak])
        else:
            a = tl.trans(a_desc.load([offset_ak, offset_am]))
        if B_ROW_MAJOR:
            b = b_desc.load([offset_ak, offset_bn])
        else:
            b = tl.trans(b_desc.load([offset_bn, offset_ak]))
        accumulator = tl.dot(a, b, acc=accumulator, allow_tf32=False)
    c_desc.store([offset_am, offset_bn], accumulator.to(c_desc.dtype))


# Autotuned over the three configs, as FlagGems' LibTuner/autotune over matmul_get_configs().
host_tma_mm = triton.autotune(configs=CONFIGS, key=["M", "N", "K"])(host_tma_mm_body)

# One config each: what the key is for a given config, without tuning (CPU tests).
host_tma_mm_c0 = triton.autotune(configs=[CONFIGS[0]], key=["M", "N", "K"])(host_tma_mm_body)
host_tma_mm_c1 = triton.autotune(configs=[CONFIGS[1]], key=["M", "N", "K"])(host_tma_mm_body)
host_tma_mm_c2 = triton.autotune(configs=[CONFIGS[2]], key=["M", "N", "K"])(host_tma_mm_body)


def grid(M, N):
    """FlagGems' grid: one program per BLOCK_M x BLOCK_N tile."""
    return lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]), )


def bad_block_hook(nargs):
    """Leaves a block dimension that is not a power of two."""
    nargs["a_desc"].block_shape = [48, 32]


host_tma_mm_bad_hook = triton.autotune(
    configs=[triton.Config({"BLOCK_M": 64, "BLOCK_N": 32, "BLOCK_K": 32}, pre_hook=bad_block_hook)],
    key=["M", "N", "K"])(host_tma_mm_body)

"""Kernels under FlagGems' own LibTuner (flag_gems/utils/libentry.py, loaded by
tests/support/flaggems_stub.py without a GPU), as FlagGems' operators declare them."""
import math

import triton
import triton.language as tl

import flaggems_stub

libentry = flaggems_stub.load()
libtuner = libentry.libtuner
LibTuner = libentry.LibTuner

CONFIGS = [triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((32, 1), (64, 2), (128, 4), (256, 8))]


@triton.jit
def _body(x_ptr, out_ptr, M, N, K, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < M
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@libtuner(configs=CONFIGS, key=["M", "N", "K"], strategy=["default", "log", "align32"])
@triton.jit
def mixed(x_ptr, out_ptr, M, N, K, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < M
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + N + K, mask=mask)


@libtuner(configs=CONFIGS, key=["M"], strategy="log")
@triton.jit
def logged(x_ptr, out_ptr, M, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < M
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def bucket(value):
    """A strategy written in Python, as a FlagGems operator may pass one."""
    return min(int(math.sqrt(max(value, 0))), 64)


@libtuner(configs=CONFIGS, key=["M"], strategy=[bucket])
@triton.jit
def bucketed(x_ptr, out_ptr, M, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < M
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@LibTuner.register_policy("first_config_for_tests")
def first_config(bench_fn, configs, args, kwargs):
    configs = list(configs)
    return configs[0], {c: [0.0, 0.0, 0.0] for c in configs}


@libtuner(configs=CONFIGS, key=["M"], policy="first_config_for_tests")
@triton.jit
def custom_policy(x_ptr, out_ptr, M, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < M
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@LibTuner.register_policy("last_benched_for_tests")
def last_benched(bench_fn, configs, args, kwargs):
    """Times every config but the first and keeps the last: a choice FlagGems' default policy never
    makes when every config takes the same time (it keeps the first). Reads the caller's M."""
    if not isinstance(args[2], int):
        raise TypeError(f"the policy was given M = {args[2]!r}, not the caller's int")
    configs = list(configs)[1:]
    timings = {c: bench_fn(c) for c in configs}
    return configs[-1], timings


@libtuner(configs=CONFIGS, key=["M"], strategy="log", policy="last_benched_for_tests")
@triton.jit
def custom_benched(x_ptr, out_ptr, M, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < M
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)

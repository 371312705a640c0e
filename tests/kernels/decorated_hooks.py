"""Autotuned kernels with Python hooks, as libraries write them: autotune's pre_hook and post_hook,
and triton.Config(pre_hook=...). Each hook reports to builtins.triton_jit_hook_log when a test
installs one (tests/support/triton_reference.py), so the runtime's calls can be compared with
Triton's own Autotuner; the zeroing hooks are what real kernels use them for."""
import builtins

import triton
import triton.language as tl


def _report(name, args, **extra):
    log = getattr(builtins, "triton_jit_hook_log", None)
    if log is not None:
        log(name, args, extra)


def _config_pre_hook(args):
    _report("config_pre_hook", args)


def _pre_hook(args, reset_only=False):
    _report("pre_hook", args, reset_only=reset_only)


def _post_hook(args, exception):
    _report("post_hook", args, exception=None if exception is None else type(exception).__name__)


# Every kind of hook; config 1 has its own pre_hook, which also runs before each launch with it.
@triton.autotune(
    configs=[triton.Config({"BLOCK": 128}, num_warps=4),
             triton.Config({"BLOCK": 256}, num_warps=8, pre_hook=_config_pre_hook)],
    key=["n"],
    pre_hook=_pre_hook,
    post_hook=_post_hook,
)
@triton.jit
def hooked_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x * alpha, axis=0))


# Heuristics outside the autotuner: the hooks see what they set (Triton passes it as a keyword).
@triton.heuristics({"WIDE": lambda args: args["n"] > 1000})
@triton.autotune(
    configs=[triton.Config({"BLOCK": 128}, pre_hook=_config_pre_hook),
             triton.Config({"BLOCK": 512}, num_warps=8, pre_hook=_config_pre_hook)],
    key=["n"],
)
@triton.jit
def config_hook_kernel(x_ptr, n, WIDE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + WIDE, mask=offs < n)


def _raising_pre_hook(args, reset_only=False):
    raise ValueError(f"this pre_hook fails on purpose (n={args['n']})")


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"],
                 pre_hook=_raising_pre_hook)
@triton.jit
def raising_hook_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


def _zero_out(args, reset_only=False):
    args["out_ptr"].zero_()


# The usual use of a pre_hook: zero the accumulator before every timed run (and once after
# tuning), as reset_to_zero would.
@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 512}, num_warps=8)], key=["n"],
                 pre_hook=_zero_out)
@triton.jit
def zeroing_hook_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def _zero_out_config(args):
    args["out_ptr"].zero_()


# A Config's pre_hook runs before every launch with that config too: each launch starts from zero.
@triton.autotune(configs=[triton.Config({"BLOCK": 128}, pre_hook=_zero_out_config),
                          triton.Config({"BLOCK": 512}, num_warps=8, pre_hook=_zero_out_config)], key=["n"])
@triton.jit
def config_zeroing_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))

"""Wrappers that change how a call runs, which the runtime must never emulate as Triton's own:
an Autotuner subclass whose run always picks the last config (the base would time them all), a
Heuristics subclass that sets its value otherwise than its `values` say, and a wrapper of no
Triton class. Beside them, subclasses that change nothing of a call, which the runtime emulates.

Each wrapper's run appends one JSON line to the file TRITON_JIT_TEST_WRAPPER_RECORD names (when
set): which wrapper ran, what it chose, the arguments and grid it got. With
TRITON_JIT_TEST_WRAPPER_NO_LAUNCH=1 it stops there (a machine without a GPU); else it goes on to
Triton's JITFunction.run, which launches."""
import json
import os

import triton
import triton.language as tl
from triton.runtime.autotuner import Autotuner, Heuristics
from triton.runtime.jit import KernelInterface

CONFIGS = [triton.Config({"BLOCK": 64}, num_warps=4), triton.Config({"BLOCK": 128}, num_warps=8)]


def _describe(value):
    if hasattr(value, "data_ptr"):
        return f"tensor:{value.dtype}"
    return repr(value)


def _record(wrapper, args, kwargs, chosen, meta):
    """`meta`: what the wrapper adds to the call, for a grid function (as Triton's run passes it)."""
    path = os.environ.get("TRITON_JIT_TEST_WRAPPER_RECORD")
    if path:
        grid = kwargs.get("grid")
        if callable(grid):
            grid = grid({**dict(zip(wrapper.arg_names, args)), **kwargs, **meta})
        line = {"wrapper": type(wrapper).__name__, "chosen": chosen, "args": [_describe(a) for a in args],
                "kwargs": {k: _describe(v) for k, v in kwargs.items() if k not in ("grid", "warmup")},
                "grid": list(grid)}
        with open(path, "a") as f:
            f.write(json.dumps(line) + "\n")
    return os.environ.get("TRITON_JIT_TEST_WRAPPER_NO_LAUNCH") != "1"


class LastConfigAutotuner(Autotuner):
    """Always the last config, never timed."""

    def run(self, *args, **kwargs):
        config = self.configs[-1]
        if _record(self, args, kwargs, str(config), config.all_kwargs()):
            return self.fn.run(*args, **kwargs, **config.all_kwargs())


class OddHeuristics(Heuristics):
    """Sets each value to 1, whatever its function says."""

    def run(self, *args, **kwargs):
        for name in self.values:
            kwargs[name] = 1
        if _record(self, args, kwargs, {name: 1 for name in self.values}, {}):
            return self.fn.run(*args, **kwargs)


class PlainAutotuner(Autotuner):
    """A subclass that changes nothing of a call: emulated as triton.autotune."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.label = "plain"


class PlainHeuristics(Heuristics):
    """A subclass that changes nothing of a call: emulated as triton.heuristics."""


class BlockWrapper(KernelInterface):
    """No Triton class: a wrapper that passes BLOCK=256 itself."""

    def __init__(self, fn):
        self.fn = fn
        self.arg_names = fn.arg_names

    def run(self, *args, grid, warmup, **kwargs):
        if _record(self, args, dict(kwargs, grid=grid), 256, {"BLOCK": 256}):
            return self.fn.run(*args, grid=grid, warmup=warmup, BLOCK=256, **kwargs)


def _autotuner(cls):
    def decorator(fn):
        return cls(fn, fn.arg_names, CONFIGS, ["n"], None, None)

    return decorator


@triton.jit
def _body(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Adds 1 to x and writes the BLOCK that ran into out[program], so a test sees the choice.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)
    tl.store(out_ptr + pid, BLOCK)


@_autotuner(LastConfigAutotuner)
@triton.jit
def last_config_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    _body(x_ptr, out_ptr, n, BLOCK)


@_autotuner(PlainAutotuner)
@triton.jit
def plain_subclass_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    _body(x_ptr, out_ptr, n, BLOCK)


@triton.jit
def _odd_body(x_ptr, out_ptr, n, ODD: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + ODD, mask=offs < n)
    tl.store(out_ptr + pid, ODD)


def _heuristics(cls, values):
    def decorator(fn):
        return cls(fn, fn.arg_names, values)

    return decorator


@_heuristics(OddHeuristics, {"ODD": lambda args: args["n"] % 2})
@triton.jit
def odd_heuristics_kernel(x_ptr, out_ptr, n, ODD: tl.constexpr, BLOCK: tl.constexpr = 64):
    _odd_body(x_ptr, out_ptr, n, ODD, BLOCK)


@_heuristics(PlainHeuristics, {"ODD": lambda args: args["n"] % 2})
@triton.jit
def plain_heuristics_kernel(x_ptr, out_ptr, n, ODD: tl.constexpr, BLOCK: tl.constexpr = 64):
    _odd_body(x_ptr, out_ptr, n, ODD, BLOCK)


@BlockWrapper
@triton.jit
def block_wrapper_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    _body(x_ptr, out_ptr, n, BLOCK)


# Triton's own heuristics over a subclass that is not emulated: the whole call runs in Python.
@triton.heuristics({"BLOCK": lambda args: 64})
@_heuristics(OddHeuristics, {"ODD": lambda args: args["n"] % 2})
@triton.jit
def heuristics_over_odd_kernel(x_ptr, out_ptr, n, ODD: tl.constexpr, BLOCK: tl.constexpr):
    _odd_body(x_ptr, out_ptr, n, ODD, BLOCK)

#!/usr/bin/env python3
"""Host time of triton_jit.install()'s JITFunction.run against the direct launcher, per call.

    install_overhead_bench.py [--fake-hip LIB] [--calls N] [--rounds N] [--profile] [--out FILE.json]

Times, per call and in one process, alternating round by round: the direct launcher
`triton_jit.jit(k)[grid](...)`, the installed `k[grid](...)` (Triton's __getitem__, then the
installed run), the installed `JITFunction.run(k, *args, grid=grid, warmup=False, **kwargs)`
(what the Autotuner, Heuristics and bench/python/install_bench.py call) and the installed Python
run (`_install._installed_run_python`: the run before the C++ one, which now takes only the calls
the C++ run does not), for three argument lists: a small add (3 tensors, an int, BLOCK by
keyword); a Liger-like row kernel (4 tensors, 4 strides as ints, sizes and eps, constexprs and
num_warps by keyword, as Liger's _rms_norm_forward_kernel is called); an fla-like chunk kernel
(chunk_fwd_kernel_h's 27 parameters by keyword, 7 of them None, as fla's Autotuner and Heuristics
hand them to JITFunction.run, with fla's grid function, which calls triton.cdiv twice). The
figures are the median per path over the rounds and, in parentheses, the median of each path's excess over the direct
launcher in the same round (paired, so that a busy machine moves both alike): what the installed
path adds.

Without a GPU, --fake-hip LIB (tests/cpu's libfake_amdhip64.so, target triton_jit_fake_hip)
launches on the fake HIP runtime the tests use (tests/python/test_rocm.py): the kernels compile
for gfx942, every launch goes through the runtime's whole launch path into the fake's
hipModuleLaunchKernel, which records it. The tensors are stand-ins with data_ptr() and dtype
(DevicePointer; torch's CPU tensors are refused, and test_rocm.py's tensor subclass that says
is_cuda runs torch's Python __torch_function__ on every read, which would swamp the figures).
These are CPU fake-driver figures: they show where the installed path spends its time, not a
GPU's launch cost. On a GPU (without --fake-hip) the tensors are real CUDA tensors.

--profile runs cProfile over the installed run (where the Python side's time goes)."""
import argparse
import json
import os
import statistics
import sys
import time

import triton
import triton.language as tl


@triton.jit
def small_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


@triton.jit
def row_norm(Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, W_row_stride, RSTD_ptr, RSTD_row_stride, n_cols, eps,
             offset, casting_mode: tl.constexpr, elementwise_affine: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(X_ptr + row * X_row_stride + cols, mask=mask, other=0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(RSTD_ptr + row * RSTD_row_stride, rstd)
    y = x * rstd
    if elementwise_affine:
        y = y * (offset + tl.load(W_ptr + cols * W_row_stride, mask=mask, other=0.0))
    tl.store(Y_ptr + row * Y_row_stride + cols, y, mask=mask)


@triton.jit(do_not_specialize=["T"])
def chunk_state(k, v, h, g, g_gamma, gk, gv, h0, ht, cu_seqlens, split_offsets, T, H: tl.constexpr, K: tl.constexpr,
                V: tl.constexpr, BT: tl.constexpr, BS: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr,
                USE_G: tl.constexpr, USE_G_GAMMA: tl.constexpr, USE_GK: tl.constexpr, USE_GV: tl.constexpr,
                USE_INITIAL_STATE: tl.constexpr, STORE_FINAL_STATE: tl.constexpr, IS_VARLEN: tl.constexpr,
                STATE_V_FIRST: tl.constexpr):
    # fla's chunk_fwd_kernel_h's parameters, as fla's chunk_fwd_h passes them; a body that uses some.
    i = tl.program_id(0)
    o = tl.arange(0, BK)
    b = tl.load(k + i * BK + o).to(tl.float32) + tl.load(v + i * BK + o).to(tl.float32)
    if USE_INITIAL_STATE:
        b += tl.load(h0 + i * BK + o)
    tl.store(h + i * BK + o, b)
    if STORE_FINAL_STATE:
        tl.store(ht + i * BK + o, b)


def make_tensors(torch, count, shape, gpu):
    if gpu:
        return [torch.randn(*shape, device="cuda") for _ in range(count)]
    return [DevicePointer(0x100000 * (i + 1), torch.float32) for i in range(count)]


class DevicePointer:
    """A tensor stand-in for the CPU runs: what the runtime reads of a tensor that is neither
    torch's, CuPy's nor DLPack's (data_ptr() and dtype, as Triton's own wrappers show). Cheap to
    read, so that the figures show the launch path, not the stand-in."""
    __slots__ = ("address", "dtype")
    device = "cuda:0"  # read by the runtime: a missing attribute would raise and clear an AttributeError

    def __init__(self, address, dtype):
        self.address, self.dtype = address, dtype

    def data_ptr(self):
        return self.address


def workloads(torch, gpu):
    """{name: (JITFunction, grid, args, kwargs)}."""
    x, y, out = make_tensors(torch, 3, (4096, ), gpu)
    Y, X, W, RSTD = make_tensors(torch, 4, (64, 1024), gpu)
    kc, vc, hc, htc = make_tensors(torch, 4, (2, 256, 4, 64), gpu)
    return {
        "small add (4 args, BLOCK=)": (small_add, (4, ), (x, y, out, 4096), {"BLOCK": 1024}),
        "Liger-like row kernel (12 args, 2 constexprs + num_warps=)":
        (row_norm, (64, ), (Y, 1024, X, 1024, W, 1, RSTD, 1, 1024, 1e-6, 0.0, 0),
         {"elementwise_affine": True, "BLOCK_SIZE": 1024, "num_warps": 4}),
        "fla-like chunk kernel (27 args by keyword, 7 None, a grid function calling triton.cdiv twice)":
        (chunk_state, chunk_grid, (), chunk_kwargs(kc, vc, hc, htc)),
    }


def chunk_grid(meta, K=64, V=64, N=2, H=4):
    # fla's chunk_fwd_h: `def grid(meta): return (triton.cdiv(K, meta['BK']) * triton.cdiv(V, meta['BV']) * N * H,)`
    return (triton.cdiv(K, meta["BK"]) * triton.cdiv(V, meta["BV"]) * N * H, )


def chunk_kwargs(k, v, h, ht):
    # What fla's chunk_fwd_h passes, with what its Heuristics and Autotuner add (a config's BK, BV,
    # num_warps, num_stages, num_ctas): JITFunction.run's keywords in fla's order.
    return dict(k=k, v=v, h=h, g=None, g_gamma=None, gk=None, gv=None, h0=None, ht=ht, cu_seqlens=None,
                split_offsets=None, T=256, H=4, K=64, V=64, BT=64, BS=64, USE_G=False, USE_G_GAMMA=False, USE_GK=False,
                USE_GV=False, STATE_V_FIRST=False, USE_INITIAL_STATE=False, STORE_FINAL_STATE=True, IS_VARLEN=False,
                BK=32, BV=32, num_warps=4, num_ctas=1, num_stages=2)


def time_paths(torch, triton_jit, JITFunction, fn, grid, args, kwargs, calls, rounds, gpu):
    direct = triton_jit.jit(fn)
    sync = torch.cuda.synchronize if gpu else (lambda: None)

    def run_direct():
        for _ in range(calls):
            direct[grid](*args, **kwargs)

    def run_getitem():
        for _ in range(calls):
            fn[grid](*args, **kwargs)

    def run_run():
        run = JITFunction.run
        for _ in range(calls):
            run(fn, *args, grid=grid, warmup=False, **kwargs)

    def run_python():
        run = _install._installed_run_python
        for _ in range(calls):
            run(fn, *args, grid=grid, warmup=False, **kwargs)

    from triton_jit import _install
    paths = {"direct triton_jit.jit(k)[grid]": run_direct, "installed k[grid]": run_getitem,
             "installed JITFunction.run": run_run}
    if hasattr(_install, "_installed_run_python"):
        paths["installed, Python run"] = run_python
    triton_jit.install()
    for body in paths.values():  # compiles, loads, fills the tables
        body()
    sync()
    times = {name: [] for name in paths}
    names = list(paths)
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            sync()
            start = time.perf_counter()
            paths[name]()
            sync()
            times[name].append((time.perf_counter() - start) / calls)
    # Medians per path, and of each path's excess over the direct launcher within the same round
    # (paired: a busy machine moves both alike).
    direct = times[names[0]]
    result = {name: statistics.median(t) * 1e6 for name, t in times.items()}
    for name in names[1:]:
        result[name + " - direct"] = statistics.median(a - b for a, b in zip(times[name], direct)) * 1e6
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fake-hip", help="the fake HIP runtime to launch on without a GPU (libfake_amdhip64.so)")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--profile", action="store_true", help="cProfile the installed JITFunction.run")
    parser.add_argument("--out", help="write the figures as JSON")
    opts = parser.parse_args()
    if opts.fake_hip and os.environ.get("TRITON_JIT_HIP_LIBRARY") != os.path.abspath(opts.fake_hip):
        # The runtime picks its driver when it loads: start again with the fake named.
        env = dict(os.environ, TRITON_JIT_HIP_LIBRARY=os.path.abspath(opts.fake_hip))
        env.pop("TRITON_JIT_TARGET", None)
        os.execve(sys.executable, [sys.executable] + sys.argv, env)

    import torch
    from triton.runtime.jit import JITFunction
    import triton_jit
    gpu = not opts.fake_hip
    if gpu and not torch.cuda.is_available():
        print("no CUDA GPU: pass --fake-hip <build>/tests/cpu/libfake_amdhip64.so to measure on the CPU")
        return 0

    results = {}
    for name, (fn, grid, args, kwargs) in workloads(torch, gpu).items():
        results[name] = time_paths(torch, triton_jit, JITFunction, fn, grid, args, kwargs, opts.calls, opts.rounds,
                                   gpu)
        fallbacks = triton_jit.install_stats()
        if fallbacks:
            print(f"warning: calls went to Triton's own run: {fallbacks}", file=sys.stderr)
    triton_jit.uninstall()

    where = "fake HIP runtime (CPU)" if not gpu else torch.cuda.get_device_name()
    print(f"Host µs per call, median of {opts.rounds} rounds of {opts.calls} calls; {where}\n")
    print("| Workload | direct `jit(k)[grid]` | installed `k[grid]` | installed `JITFunction.run` | "
          "Python run (the run before the C++ one) |")
    print("|---|---|---|---|---|")
    for name, t in results.items():
        cells = []
        for path in ("installed k[grid]", "installed JITFunction.run", "installed, Python run"):
            cells.append(f"{t[path]:.2f} ({t[path + ' - direct']:+.2f})" if path in t else "—")
        print(f"| {name} | {t['direct triton_jit.jit(k)[grid]']:.2f} | " + " | ".join(cells) + " |")
    print("\n(in parentheses: the median over the rounds of the path's excess over the direct launcher in the "
          "same round)")

    if opts.profile:
        import cProfile
        import pstats
        triton_jit.install()
        fn, grid, args, kwargs = workloads(torch, gpu)["Liger-like row kernel (12 args, 2 constexprs + num_warps=)"]
        run = JITFunction.run
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(opts.calls * 10):
            run(fn, *args, grid=grid, warmup=False, **kwargs)
        profiler.disable()
        triton_jit.uninstall()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)
    if opts.out:
        with open(opts.out, "w") as f:
            json.dump({"device": where, "calls": opts.calls, "rounds": opts.rounds, "us_per_call": results}, f,
                      indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Host time per LibEntry hit from Python, on the LibEntry benchmark's kernel
(bench/kernels/libentry_kernels.py: libentry_scale_kernel, FlagGems' @libentry() over
@triton.autotune over @triton.heuristics, n do_not_specialize): FlagGems' own hit path
(kernel[grid](...) through LibEntry.run: its key built in Python, the grid called with its meta
dict, the frozen CompiledKernel launched), triton_jit's front end on the same LibEntry object
(triton_jit.jit(kernel)[grid](...): the runtime's LibEntry in C++), and Triton's own launch of
the kernel under the wrappers with the frozen choice passed (JITFunction.run, no wrapper).

    libentry_python_bench.py [--launches N] [--batch N] [--out FILE.json]

Method (as bench/python/launch_bench.py): a one-program grid (lambda meta: (cdiv(n,
meta["BLOCK"]),), as FlagGems writes grids), batches of --batch launches timed with
time.perf_counter from the first launch to the return of the last, torch.cuda.synchronize()
after each batch (untimed); the paths alternate batch by batch, the first rotating; the figure is
the median over batches. Each path's first call (FlagGems' and the runtime's freeze) is made and
its result checked before timing. Prints a markdown table (ratios against FlagGems' hit path) and
writes JSON; without a GPU or torch the JSON has an "error" and the exit status is 0.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "kernels"))

TITLE = "### FlagGems LibEntry: a hit launched from Python"


def no_measurement(out, why):
    print(f"{TITLE}\n\n{why}; nothing was measured.")
    if out:
        with open(out, "w") as f:
            json.dump({"error": why}, f)
    return 0


def measure(paths, launches, batch, sync):
    for _ in range(2):
        for run in paths.values():
            run(batch)
    sync()
    times = {name: [] for name in paths}
    names = list(paths)
    for r in range(max(1, launches // batch)):
        for j in range(len(names)):
            name = names[(r + j) % len(names)]
            t0 = time.perf_counter()
            paths[name](batch)
            t1 = time.perf_counter()
            sync()
            times[name].append((t1 - t0) / batch * 1e6)
    return {name: statistics.median(t) for name, t in times.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--launches", type=int, default=20000)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    try:
        import torch
    except ImportError as e:
        return no_measurement(a.out, f"torch cannot be imported ({e})")
    if not torch.cuda.is_available():
        return no_measurement(a.out, "no GPU (torch.cuda.is_available() is False)")
    import triton

    import libentry_kernels
    import triton_jit

    kernel = libentry_kernels.libentry_scale_kernel
    n, alpha = 200, 0.5
    x = torch.arange(n, device="cuda", dtype=torch.float32) * 0.25
    ys = {name: torch.zeros(n, device="cuda", dtype=torch.float32) for name in ("flaggems", "triton_jit", "triton")}
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]), )  # noqa: E731  (as FlagGems writes grids)
    fast = triton_jit.jit(kernel)

    # First calls: each freezes its key (FlagGems in Python, the runtime in C++).
    compiled, frozen = kernel.run(x, ys["flaggems"], n, alpha, grid=grid, warmup=False)
    fast[grid](x, ys["triton_jit"], n, alpha)
    jit_fn = kernel.jit_function
    choice = {k: v for k, v in frozen.items() if k not in ("num_warps", "num_stages", "num_ctas")}
    options = {k: frozen[k] for k in ("num_warps", "num_stages") if k in frozen}
    fixed_grid = grid({**frozen})
    jit_fn[fixed_grid](x, ys["triton"], n, alpha, **choice, **options)
    torch.cuda.synchronize()
    expected = x * alpha
    for name, y in ys.items():
        if not torch.equal(y, expected):
            raise SystemExit(f"libentry_python_bench: the {name} path computed a wrong result")
    spec = fast.specialize(x, ys["triton_jit"], n, alpha)
    same = (spec.num_warps, spec.num_stages) == (compiled.metadata.num_warps, compiled.metadata.num_stages)

    y_f, y_t, y_j = ys["flaggems"], ys["triton_jit"], ys["triton"]
    fast_grid = fast[grid]
    flaggems_grid = kernel[grid]

    def flaggems_path(b):
        for _ in range(b):
            flaggems_grid(x, y_f, n, alpha)

    def triton_jit_path(b):
        for _ in range(b):
            fast_grid(x, y_t, n, alpha)

    def triton_path(b):
        for _ in range(b):
            jit_fn[fixed_grid](x, y_j, n, alpha, **choice, **options)

    us = measure({"flaggems": flaggems_path, "triton_jit": triton_jit_path, "triton": triton_path}, a.launches,
                 a.batch, torch.cuda.synchronize)
    batches = max(1, a.launches // a.batch)
    device = torch.cuda.get_device_name()
    lines = [
        TITLE, "",
        f"Device: {device}; Triton {triton.__version__}; LibEntry from {libentry_kernels.LIBENTRY_FROM}. Host µs "
        f"per launch of `libentry_scale_kernel`, every timed call a LibEntry hit, grid a lambda of meta; median of "
        f"{batches} batches of {a.batch} launches per path (paths alternating).", "",
        "| path | µs per launch | ratio to FlagGems' hit |", "|---|---:|---:|",
        f"| FlagGems' `kernel[grid](...)` (LibEntry.run in Python) | {us['flaggems']:.3f} | 1.000 |",
        f"| triton_jit's `jit(kernel)[grid](...)` | {us['triton_jit']:.3f} | {us['triton_jit'] / us['flaggems']:.3f} |",
        f"| Triton's `JITFunction[grid](...)`, frozen choice passed (no wrapper) | {us['triton']:.3f} | "
        f"{us['triton'] / us['flaggems']:.3f} |", "",
        f"Frozen by FlagGems: {frozen}; the runtime froze num_warps {spec.num_warps}, num_stages {spec.num_stages} "
        f"({'the same' if same else 'OTHER than FlagGems'}), specialization {spec.triton_repr()}.", ""
    ]
    print("\n".join(lines))
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"device": device, "triton_version": triton.__version__,
                       "libentry_from": libentry_kernels.LIBENTRY_FROM, "launches": batches * a.batch,
                       "batch": a.batch, "us": us, "frozen": {k: repr(v) for k, v in frozen.items()},
                       "same_choice": same}, f, indent=2)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Triton's own Python launch, kernel[grid](...), of the decorated kernels of
bench/decorated_launch_bench.cpp (bench/kernels/decorated_kernels.py), with the same arguments:
host time per launch, and the time its autotuner takes to tune a 3-config matmul.

    triton_python_decorated.py [--launches N] [--batch N] [--out FILE.json]

Launches: the method of triton_python_launch.py (one-program grid on the current stream, batches
timed with time.perf_counter, torch.cuda.synchronize() after each, untimed; median over batches;
the paths' batches alternate as in the C++ benchmark). Every call runs the decorators in Python:
the heuristics' lambdas, the autotuner's key lookup, the grid lambda.
Tuning: matmul_kernel's first call with one key (compiles or Triton's cache reads, then timing),
then with a second key of the same specialization (kernels in memory: the tuning alone).
Prints JSON (and writes it to --out). Without torch, triton or a GPU the JSON has an "error" and
the exit status is 0.
"""
import argparse
import importlib.util
import json
import os
import platform
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
N = 200  # as the C++ benchmark: one program under every config, not a multiple of 16
SCALE = 0.5


def emit(result, out):
    text = json.dumps(result, indent=2)
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")


def load_kernels():
    path = os.path.join(HERE, "kernels", "decorated_kernels.py")
    spec = importlib.util.spec_from_file_location("decorated_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compiled_hash(compiled):
    for get in (lambda k: k.hash, lambda k: k.metadata.hash):
        try:
            return str(get(compiled))
        except Exception:
            pass
    return ""


def measure(runs, launches, batch, sync):
    """Alternating batches of each runner (first one rotating); median µs per launch of each."""
    for _ in range(2):  # warm-up
        for run in runs:
            run(batch)
            sync()
    times = [[] for _ in runs]
    for r in range(max(1, launches // batch)):
        for j in range(len(runs)):
            i = (r + j) % len(runs)
            t0 = time.perf_counter()
            runs[i](batch)
            t1 = time.perf_counter()
            sync()
            times[i].append((t1 - t0) / batch * 1e6)
    return [statistics.median(t) for t in times]


def tuning(k, torch, triton, dev):
    m0, m, n, kk = 512, 1024, 1024, 1024  # as the C++ benchmark: two keys, one specialization
    a = torch.randn(m, kk, device=dev, dtype=torch.float16)
    b = torch.randn(kk, n, device=dev, dtype=torch.float16)
    c = torch.empty(m, n, device=dev, dtype=torch.float16)

    def launch(rows):
        grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_M"]), triton.cdiv(n, meta["BLOCK_N"]))  # noqa: E731
        t0 = time.perf_counter()
        k.matmul_kernel[grid](a, b, c, rows, n, kk, kk, n, n)
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) * 1e3

    first_ms = launch(m0)
    tune_ms = launch(m)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=0.5, rtol=1e-2)
    return {"kernel": "matmul_kernel", "configs": len(k.matmul_kernel.configs), "m0": m0, "m": m, "n": n, "k": kk,
            "first_ms": first_ms, "tune_ms": tune_ms, "chosen": str(k.matmul_kernel.best_config)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--launches", type=int, default=20000)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--out", default="")
    args = ap.parse_args()

    try:
        import torch
        import triton
    except Exception as e:  # noqa: BLE001
        emit({"error": f"cannot import torch/triton: {e}"}, args.out)
        return 0
    if not torch.cuda.is_available():
        emit({"error": "no GPU (torch.cuda.is_available() is False)"}, args.out)
        return 0

    k = load_kernels()
    dev = torch.device("cuda", 0)
    x = (torch.arange(N, dtype=torch.float32, device=dev) % 97) * 0.25
    bias = x.clone()
    out = torch.empty_like(x)
    y = torch.empty_like(x)
    n = N

    # Each runner does `count` launches exactly as a user writes them.
    def run_heur(count):
        kernel, last = k.bias_scale_kernel, None
        for _ in range(count):
            last = kernel[(1,)](x, bias, out, n, SCALE)
        return last

    def run_tuned(count):
        kernel, last = k.scale_kernel, None
        for _ in range(count):
            last = kernel[(1,)](x, y, n, SCALE)
        return last

    def run_tuned_grid_fn(count):
        kernel, last = k.scale_kernel, None
        for _ in range(count):
            last = kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n, SCALE)
        return last

    t0 = time.perf_counter()
    heur_compiled = run_heur(1)  # compiles (or reads Triton's cache)
    tuned_compiled = run_tuned(1)  # tunes scale_kernel for key n
    torch.cuda.synchronize()
    first_ms = (time.perf_counter() - t0) * 1e3
    torch.testing.assert_close(out, x * SCALE + bias)
    torch.testing.assert_close(y, x * SCALE)

    sync = torch.cuda.synchronize
    h = measure([run_heur], args.launches, args.batch, sync)
    a = measure([run_tuned, run_tuned_grid_fn], args.launches, args.batch, sync)
    tuned_config = str(k.scale_kernel.best_config)
    rows = [
        {"id": "heuristics", "kernel": "bias_scale_kernel", "grid": "(1,)", "us_per_launch": h[0],
         "hash": compiled_hash(heur_compiled), "chosen": ""},
        {"id": "autotune", "kernel": "scale_kernel", "grid": "(1,)", "us_per_launch": a[0],
         "hash": compiled_hash(tuned_compiled), "chosen": tuned_config},
        {"id": "autotune_grid_fn", "kernel": "scale_kernel", "grid": "lambda meta", "us_per_launch": a[1],
         "hash": compiled_hash(tuned_compiled), "chosen": tuned_config},
    ]
    emit({
        "device": torch.cuda.get_device_name(dev),
        "torch_version": torch.__version__,
        "triton_version": triton.__version__,
        "python_version": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "launches": max(1, args.launches // args.batch) * args.batch,
        "batch": args.batch,
        "first_launches_ms": first_ms,
        "rows": rows,
        "tuning": tuning(k, torch, triton, dev),
    }, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

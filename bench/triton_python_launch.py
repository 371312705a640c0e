#!/usr/bin/env python3
"""Host time per launch of Triton's own Python launch, kernel[grid](...), for the kernels of the
C++ launch benchmarks (bench/kernels/launch_kernels.py: add_kernel, 4 runtime params;
many_args_kernel, 14 runtime params), with the arguments launch_gpu_bench passes.

    triton_python_launch.py [--launches N] [--batch N] [--out FILE.json]

Same method as launch_gpu_bench: one-program grid on the current (default) stream, batches of
--batch launches timed with time.perf_counter from the first launch to the return of the last,
torch.cuda.synchronize() after each batch (untimed), median over batches. Prints JSON (and
writes it to --out). Without torch, triton or a GPU the JSON has an "error" and the exit status
is 0.
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


def emit(result, out):
    text = json.dumps(result, indent=2)
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")


def load_kernels():
    path = os.path.join(HERE, "kernels", "launch_kernels.py")
    spec = importlib.util.spec_from_file_location("launch_kernels", path)
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
    n = 4096
    base = (torch.arange(n, dtype=torch.float32, device=dev) % 97) * 0.25
    x = [base.clone() for _ in range(4)]
    out = torch.empty(n, dtype=torch.float32, device=dev)
    grid = (1,)

    # Each runner does `count` launches exactly as a user writes them.
    def run_add(count):
        kernel = k.add_kernel
        a, b, o = x[0], x[1], out
        last = None
        for _ in range(count):
            last = kernel[grid](a, b, o, n, BLOCK=1024)
        return last

    def run_many(count):
        kernel = k.many_args_kernel
        x0, x1, x2, x3, o = x[0], x[1], x[2], x[3], out
        last = None
        for _ in range(count):
            last = kernel[grid](x0, x1, x2, x3, o, n, 0, 2, 3, 5, 0.5, 1.5, 2.5, 3.5, BLOCK=1024)
        return last

    cases = [("add_kernel", 5, 4, run_add), ("many_args_kernel", 15, 14, run_many)]
    reps = max(1, args.launches // args.batch)
    rows = []
    for name, nargs, runtime_params, run in cases:
        compiled = run(1)  # compiles (or reads Triton's cache)
        torch.cuda.synchronize()
        if name == "add_kernel":
            torch.testing.assert_close(out[:1024], x[0][:1024] + x[1][:1024])
        for _ in range(2):  # warm-up
            run(args.batch)
            torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            run(args.batch)
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            times.append((t1 - t0) / args.batch * 1e6)
        rows.append({
            "kernel": name,
            "args": nargs,
            "runtime_params": runtime_params,
            "us_per_launch": statistics.median(times),
            "us_min": min(times),
            "hash": compiled_hash(compiled),
        })

    emit({
        "device": torch.cuda.get_device_name(dev),
        "torch_version": torch.__version__,
        "triton_version": triton.__version__,
        "python_version": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "launches": reps * args.batch,
        "batch": args.batch,
        "rows": rows,
    }, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The libtorch operators of libtriton_jit_ops (torch.ops.triton_jit_ops.*) from Python, against
Triton's own Python launch of the same kernel and against torch eager.

    ops_latency.py --lib BUILD/torch/ops/libtriton_jit_ops.so --out OUT_DIR [--quick]
                   [--json FILE] [--cpp-json FILE]

1. Latency of add on small tensors (4096 fp32 elements): torch.ops.triton_jit_ops.add(a, b); the
   same Triton add kernel (the library's torch/ops/kernels/add.py) behind a Python wrapper that
   allocates the output and calls kernel[grid](...) as a typical Triton user op does; torch.add.
   Batches of calls timed with time.perf_counter (host: to the return of the last call; wall: to
   the end of a torch.cuda.synchronize() after it), median over batches, µs per call.
2. The same three paths over sizes 2^10 .. 2^26 elements, for the plot OUT/ops_latency.png.
3. Large tensors: GB/s of add, sum and softmax against torch eager (bytes = inputs read once +
   output written once), TFLOP/s of matmul (fp16, bf16) against torch.matmul; median times of
   triton.testing.do_bench (L2 flushed between calls).

Writes OUT/torch_bench.md (all tables) and OUT/ops_latency.png; --json FILE keeps the raw numbers
(not written by default, to keep OUT small). --cpp-json FILE: results of ops_latency_cpp, added to
the markdown as a table. Without a GPU the markdown says so and the exit status is 0.
"""
import argparse
import glob
import importlib.util
import json
import math
import os
import platform
import statistics
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


# ---------------------------------------------------------------------------------------------
# Triton's Python launch of the library's add kernel, as a user op


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def find_add_kernel(kernels_dir):
    """add_kernel of the operators' add.py: (JITFunction, its file)."""
    path = os.path.join(kernels_dir, "add.py")
    module = load_module(path, "triton_jit_ops_add_kernels")
    return module.add_kernel, path


# Launch parameters of the wrapper; the same as src/add.cpp's for contiguous inputs.
ADD_BLOCK = 1024
ADD_NUM_WARPS = 4


def make_triton_add(kernel):
    """A typical Triton user op around add.py's add_kernel(a_ptr, b_ptr, out_ptr, n, alpha_f,
    alpha_i, BLOCK, HAS_ALPHA): allocate the output, compute the grid, kernel[grid](...)."""
    import torch
    import triton

    block, warps = ADD_BLOCK, ADD_NUM_WARPS

    def triton_add(a, b, alpha=1):
        out = torch.empty_like(a)
        n = out.numel()
        grid = (triton.cdiv(n, block),)
        has_alpha = alpha != 1
        kernel[grid](a, b, out, n, float(alpha) if has_alpha else 0.0, int(alpha) if has_alpha else 0,
                     BLOCK=block, HAS_ALPHA=has_alpha, num_warps=warps)
        return out

    desc = (f"out = torch.empty_like(a); add_kernel[(cdiv(n, {block}),)](a, b, out, n, alpha_f, alpha_i, "
            f"BLOCK={block}, HAS_ALPHA=alpha != 1, num_warps={warps})")
    return triton_add, desc


# ---------------------------------------------------------------------------------------------
# Timing


def time_calls(fn, batch, batches, warmup_batches=2):
    """Median µs per call over `batches` batches of `batch` calls: host (to the last call's
    return) and wall (through a synchronize after it)."""
    import torch

    for _ in range(warmup_batches):
        for _ in range(batch):
            fn()
        torch.cuda.synchronize()
    host, wall = [], []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        host.append((t1 - t0) / batch * 1e6)
        wall.append((t2 - t0) / batch * 1e6)
    return {"host_us": statistics.median(host), "wall_us": statistics.median(wall),
            "host_us_min": min(host), "batch": batch, "batches": batches}


def bench_ms(fn):
    import triton.testing

    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def safe(label, errors, f, *a, **kw):
    try:
        return f(*a, **kw)
    except Exception as e:  # noqa: BLE001
        msg = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        errors.append(f"{label}: {msg}")
        print(f"[ops_latency] {label} failed: {msg}", file=sys.stderr)
        traceback.print_exc(limit=3)
        return None


# ---------------------------------------------------------------------------------------------


def run(args):
    import torch
    import triton

    res = {"errors": [], "notes": []}
    errors = res["errors"]
    if not torch.cuda.is_available():
        res["error"] = "no GPU (torch.cuda.is_available() is False)"
        return res
    dev = torch.device("cuda", 0)
    res.update({
        "device": torch.cuda.get_device_name(dev),
        "torch_version": torch.__version__,
        "triton_version": triton.__version__,
        "python_version": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "lib": args.lib,
    })
    torch.ops.load_library(args.lib)
    ops = torch.ops.triton_jit_ops

    kernels_dir = args.kernels or os.path.join(os.path.dirname(os.path.abspath(args.lib)), "triton_jit_kernels")
    if not os.path.exists(os.path.join(kernels_dir, "add.py")):
        kernels_dir = os.path.join(ROOT, "torch", "ops", "kernels")
    triton_add = None
    try:
        kernel, kpath = find_add_kernel(kernels_dir)
        triton_add, desc = make_triton_add(kernel)
        res["triton_wrapper"] = f"{os.path.relpath(kpath, ROOT) if kpath.startswith(ROOT) else kpath}: {desc}"
    except Exception as e:  # noqa: BLE001
        errors.append(f"Triton Python wrapper: {type(e).__name__}: {e}")

    # ---- correctness check of what is timed ------------------------------------------------
    n = 4096
    a = torch.randn(n, device=dev)
    b = torch.randn(n, device=dev)
    ours_add = ops.add.default  # the resolved overload, as the triton_jit_ops package calls it
    torch_add = torch.add
    safe("check ours add", errors, lambda: torch.testing.assert_close(ours_add(a, b), a + b))
    if triton_add:
        safe("check Triton wrapper add", errors, lambda: torch.testing.assert_close(triton_add(a, b), a + b))
    torch.cuda.synchronize()

    paths = [("ours", "torch.ops.triton_jit_ops.add.default", lambda x, y: ours_add(x, y)),
             ("triton", "Triton Python wrapper", triton_add),
             ("torch", "torch.add", lambda x, y: torch_add(x, y))]
    paths = [p for p in paths if p[2] is not None]

    # ---- small tensors -----------------------------------------------------------------------
    batch = 200 if args.quick else 1000
    batches = 5 if args.quick else 15
    small = {}
    for key, label, f in paths:
        r = safe(f"latency {label}", errors, time_calls, lambda f=f: f(a, b), batch, batches)
        if r:
            r["label"] = label
            small[key] = r
            print(f"[ops_latency] n={n}: {label}: host {r['host_us']:.2f} µs, wall {r['wall_us']:.2f} µs")
    res["small"] = {"n": n, "dtype": "float32", "paths": small}

    # ---- sweep of sizes ----------------------------------------------------------------------
    step = 4 if args.quick else 2
    sizes = [2 ** k for k in range(10, 27, step)]
    if sizes[-1] != 2 ** 26:
        sizes.append(2 ** 26)
    sweep = []
    for size in sizes:
        x = torch.randn(size, device=dev)
        y = torch.randn(size, device=dev)
        calls = 1000 if size <= 2 ** 16 else 200 if size <= 2 ** 20 else 30
        if args.quick:
            calls = max(10, calls // 5)
        row = {"n": size}
        for key, label, f in paths:
            r = safe(f"sweep {label} n={size}", errors, time_calls, lambda f=f: f(x, y), calls,
                     3 if args.quick else 7, 1)
            if r:
                row[key] = r["wall_us"]
                row[key + "_host"] = r["host_us"]
        sweep.append(row)
        print(f"[ops_latency] sweep n=2^{int(math.log2(size))}: " +
              ", ".join(f"{k} {row[k]:.2f} µs" for k, _, _ in paths if k in row))
        del x, y
    res["sweep"] = sweep

    # ---- bandwidth ---------------------------------------------------------------------------
    bw = []

    def gbps(nbytes, ms):
        return nbytes / (ms * 1e-3) / 1e9

    def add_bw(op, shape, dtype, nbytes, ours, ref):
        row = {"op": op, "shape": "x".join(map(str, shape)), "dtype": str(dtype).replace("torch.", ""),
               "bytes": nbytes}
        ms = safe(f"{op} {shape} ours", errors, bench_ms, ours)
        if ms:
            row["ours_ms"], row["ours_gbps"] = ms, gbps(nbytes, ms)
        ms = safe(f"{op} {shape} torch", errors, bench_ms, ref)
        if ms:
            row["torch_ms"], row["torch_gbps"] = ms, gbps(nbytes, ms)
        bw.append(row)
        print(f"[ops_latency] {op} {row['shape']} {row['dtype']}: ours {row.get('ours_gbps', float('nan')):.0f} GB/s,"
              f" torch {row.get('torch_gbps', float('nan')):.0f} GB/s")

    big = 2 ** 26 if not args.quick else 2 ** 24
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.randn(big, device=dev, dtype=dtype)
        y = torch.randn(big, device=dev, dtype=dtype)
        es = x.element_size()
        safe(f"check add {dtype}", errors, lambda: torch.testing.assert_close(ops.add(x, y), x + y))
        add_bw("add", (big,), dtype, 3 * big * es, lambda: ops.add(x, y), lambda: torch.add(x, y))
        del x, y
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.randn(big, device=dev, dtype=dtype)
        es = x.element_size()
        safe(f"check sum {dtype}", errors, lambda: torch.testing.assert_close(
            ops.sum(x).float(), x.float().sum(), rtol=1e-2, atol=1e-2 * math.sqrt(big)))
        add_bw("sum", (big,), dtype, big * es + es, lambda: ops.sum(x), lambda: torch.sum(x))
        del x
    x = torch.randn(8192, 8192, device=dev)
    safe("check sum dim=1", errors, lambda: torch.testing.assert_close(ops.sum(x, [1]), x.sum(1), rtol=1e-4, atol=1e-3))
    add_bw("sum(dim=1)", (8192, 8192), torch.float32, x.numel() * 4 + 8192 * 4,
           lambda: ops.sum(x, [1]), lambda: torch.sum(x, 1))
    safe("check sum dim=0", errors, lambda: torch.testing.assert_close(ops.sum(x, [0]), x.sum(0), rtol=1e-4, atol=1e-3))
    add_bw("sum(dim=0)", (8192, 8192), torch.float32, x.numel() * 4 + 8192 * 4,
           lambda: ops.sum(x, [0]), lambda: torch.sum(x, 0))
    del x
    for shape, dtype in (((8192, 8192), torch.float32), ((65536, 1024), torch.float32),
                         ((16384, 4096), torch.bfloat16), ((4096, 32768), torch.float32)):
        if args.quick and shape != (8192, 8192):
            continue
        x = torch.randn(*shape, device=dev, dtype=dtype)
        es = x.element_size()
        safe(f"check softmax {shape} {dtype}", errors, lambda: torch.testing.assert_close(
            ops.softmax(x, -1), torch.softmax(x, -1), rtol=2e-2 if es == 2 else 1e-4, atol=1e-3 if es == 2 else 1e-5))
        add_bw("softmax(dim=-1)", shape, dtype, 2 * x.numel() * es,
               lambda: ops.softmax(x, -1), lambda: torch.softmax(x, -1))
        del x
    res["bandwidth"] = bw

    # ---- matmul ------------------------------------------------------------------------------
    mm = []
    cases = [(4096, torch.float16), (8192, torch.float16), (4096, torch.bfloat16), (8192, torch.bfloat16)]
    if args.quick:
        cases = cases[:1]
    for size, dtype in cases:
        m = n_ = k = size
        A = torch.randn(m, k, device=dev, dtype=dtype)
        B = torch.randn(k, n_, device=dev, dtype=dtype)
        row = {"shape": f"{m}x{n_}x{k}", "dtype": str(dtype).replace("torch.", "")}
        flops = 2.0 * m * n_ * k

        def check():
            C = ops.matmul(A, B)
            ref = torch.matmul(A, B)
            err = ((C.float() - ref.float()).abs().max() / ref.float().abs().max()).item()
            row["max_rel_err"] = err
            if not err < 2e-2:
                raise AssertionError(f"max |C - ref| / max |ref| = {err:.3g}")
        safe(f"check matmul {size} {dtype}", errors, check)
        ms = safe(f"matmul {size} {dtype} ours", errors, bench_ms, lambda: ops.matmul(A, B))
        if ms:
            row["ours_ms"], row["ours_tflops"] = ms, flops / (ms * 1e-3) / 1e12
        ms = safe(f"matmul {size} {dtype} torch", errors, bench_ms, lambda: torch.matmul(A, B))
        if ms:
            row["torch_ms"], row["torch_tflops"] = ms, flops / (ms * 1e-3) / 1e12
        mm.append(row)
        print(f"[ops_latency] matmul {row['shape']} {row['dtype']}: ours {row.get('ours_tflops', float('nan')):.0f}"
              f" TFLOP/s, torch {row.get('torch_tflops', float('nan')):.0f} TFLOP/s")
        del A, B
    res["matmul"] = mm
    return res


# ---------------------------------------------------------------------------------------------
# Output


def fmt(v, spec=".2f"):
    return "—" if v is None else format(v, spec)


def ratio(a, b, spec=".2f"):
    return "—" if a is None or b is None or b == 0 else format(a / b, spec)


def markdown(res, cpp):
    L = ["# libtriton_jit torch operators (torch.ops.triton_jit_ops)", ""]
    if "error" in res:
        L += [f"Not measured: {res['error']}.", ""]
        return "\n".join(L)
    L.append(f"{res['device']}; torch {res['torch_version']}, Triton {res['triton_version']}, "
             f"Python {res['python_version']}; {res['date']}.")
    L.append("")
    small = res.get("small", {}).get("paths", {})
    if small:
        o, t, p = (small.get(k, {}) for k in ("ours", "triton", "torch"))
        L += ["## add, 4096 fp32 elements: µs per call from Python", "",
              "Median of batches (perf_counter): host = until the last call returns, "
              "wall = through a synchronize after the batch. Each call allocates its output.", "",
              "| path | host µs/call | wall µs/call | wall vs torch.add |", "| --- | ---: | ---: | ---: |"]
        for key, label in (("ours", "torch.ops.triton_jit_ops.add (libtriton_jit)"),
                           ("triton", "Triton Python wrapper, kernel[grid](...)"), ("torch", "torch.add (eager)")):
            r = small.get(key)
            if r:
                L.append(f"| {label} | {r['host_us']:.2f} | {r['wall_us']:.2f} | "
                         f"{ratio(r['wall_us'], p.get('wall_us'))}× |")
        L.append("")
        if "triton_wrapper" in res:
            L += [f"Triton wrapper: `{res['triton_wrapper']}`.", ""]
        ow, tw, pw = o.get("wall_us"), t.get("wall_us"), p.get("wall_us")
        if ow and pw:
            L.append(f"- target ours ≤ torch.add: {'met' if ow <= pw else 'NOT met'} "
                     f"({ow:.2f} vs {pw:.2f} µs)")
        if ow and tw:
            L.append(f"- target ours ≥ 2× faster than the Triton Python wrapper: "
                     f"{'met' if tw / ow >= 2 else 'NOT met'} ({tw / ow:.2f}×)")
        L.append("")
    if cpp and "rows" in cpp:
        L += ["## add, 4096 fp32 elements: µs per call from C++ (ops_latency_cpp)", "",
              "| path | host µs/call | wall µs/call |", "| --- | ---: | ---: |"]
        for r in cpp["rows"]:
            L.append(f"| {r['path']} | {r['host_us']:.2f} | {r['wall_us']:.2f} |")
        L.append("")
    elif cpp and "error" in cpp:
        L += [f"C++ latency (ops_latency_cpp): not measured: {cpp['error']}.", ""]
    sweep = res.get("sweep", [])
    if sweep:
        L += ["## add fp32, latency vs size (wall µs/call; plot: ops_latency.png)", "",
              "| elements | ours | Triton wrapper | torch.add | ours GB/s |", "| ---: | ---: | ---: | ---: | ---: |"]
        for r in sweep:
            gb = 12 * r["n"] / (r["ours"] * 1e-6) / 1e9 if r.get("ours") else None
            L.append(f"| 2^{int(math.log2(r['n']))} | {fmt(r.get('ours'))} | {fmt(r.get('triton'))} | "
                     f"{fmt(r.get('torch'))} | {fmt(gb, '.0f')} |")
        L.append("")
    bw = res.get("bandwidth", [])
    if bw:
        L += ["## Bandwidth, large tensors (do_bench median; bytes = inputs once + output once)", "",
              "| op | shape | dtype | ours GB/s | torch GB/s | ours/torch |",
              "| --- | --- | --- | ---: | ---: | ---: |"]
        for r in bw:
            L.append(f"| {r['op']} | {r['shape']} | {r['dtype']} | {fmt(r.get('ours_gbps'), '.0f')} | "
                     f"{fmt(r.get('torch_gbps'), '.0f')} | {ratio(r.get('ours_gbps'), r.get('torch_gbps'))} |")
        within = [r.get("ours_gbps", 0) / r["torch_gbps"] >= 0.9 for r in bw if r.get("torch_gbps")]
        L += ["", f"- target within 10% of torch eager (ours ≥ 0.9 × torch): {sum(within)} of {len(within)} rows", ""]
    mm = res.get("matmul", [])
    if mm:
        L += ["## matmul (do_bench median)", "",
              "| M×N×K | dtype | ours TFLOP/s | torch.matmul TFLOP/s | ours/torch | max rel err |",
              "| --- | --- | ---: | ---: | ---: | ---: |"]
        for r in mm:
            L.append(f"| {r['shape']} | {r['dtype']} | {fmt(r.get('ours_tflops'), '.0f')} | "
                     f"{fmt(r.get('torch_tflops'), '.0f')} | {ratio(r.get('ours_tflops'), r.get('torch_tflops'))} | "
                     f"{fmt(r.get('max_rel_err'), '.1e')} |")
        L.append("")
    if res.get("errors"):
        L += ["## Errors", ""] + [f"- {e}" for e in res["errors"]] + [""]
    return "\n".join(L)


def plot(res, path):
    sweep = res.get("sweep")
    if not sweep:
        return "no sweep"
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001
        return f"no matplotlib ({e})"
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    for key, label, style in (("ours", "torch.ops.triton_jit_ops.add (libtriton_jit)", "o-"),
                              ("triton", "Triton Python wrapper kernel[grid](...)", "s--"),
                              ("torch", "torch.add (eager)", "^-.")):
        pts = [(r["n"], r[key]) for r in sweep if r.get(key)]
        if pts:
            ax.plot(*zip(*pts), style, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("elements (fp32)")
    ax.set_ylabel("µs per call (wall, incl. allocation)")
    ax.set_title(f"add latency vs size — {res.get('device', '')}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", required=True, help="path of libtriton_jit_ops.so")
    ap.add_argument("--kernels", default="", help="folder of add.py (default: beside --lib, else the sources)")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--json", default="", help="also write the raw results here")
    ap.add_argument("--cpp-json", default="", help="results of ops_latency_cpp to add to the markdown")
    ap.add_argument("--quick", action="store_true", help="fewer sizes and repetitions")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    try:
        import torch  # noqa: F401
        import triton  # noqa: F401
        res = run(args)
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        res = {"error": f"{type(e).__name__}: {e}"}
    cpp = None
    if args.cpp_json and os.path.exists(args.cpp_json):
        try:
            with open(args.cpp_json) as f:
                cpp = json.load(f)
        except Exception as e:  # noqa: BLE001
            cpp = {"error": f"unreadable {args.cpp_json}: {e}"}
    if cpp is not None:
        res["cpp"] = cpp
    note = plot(res, os.path.join(args.out, "ops_latency.png")) if "error" not in res else "not measured"
    md = markdown(res, cpp)
    if note:
        md += f"\n(ops_latency.png not written: {note})\n"
    with open(os.path.join(args.out, "torch_bench.md"), "w") as f:
        f.write(md + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=2)
    return 1 if "error" in res and "no GPU" not in res["error"] else 0


if __name__ == "__main__":
    sys.exit(main())

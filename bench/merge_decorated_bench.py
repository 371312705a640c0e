#!/usr/bin/env python3
"""Merges decorated_launch_bench's JSON and triton_python_decorated.py's into one markdown file
(bench/run-decorated-bench.sh).

    merge_decorated_bench.py CPP_JSON PY_JSON OUT_MD

A side that did not run (no GPU, a failure) is said in the table's place; prints the markdown.
"""
import json
import sys

TARGET = 1.10  # issue 9: a cached decorated launch within 10% of the raw driver call


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception as e:  # noqa: BLE001
        return {"error": f"no result ({e.__class__.__name__}: {e})"}


def launch_table(cpp, py):
    prow = {r["id"]: r for r in py.get("rows", [])}
    lines = [
        f"Host time per launch (µs): one program per launch on the default stream; median of "
        f"{cpp['launches'] // cpp['batch']} batches of {cpp['batch']} launches per path, each timed from its first "
        f"launch to the return of its last, the stream synchronized (untimed) after each, the paths' batches "
        f"alternating. Ratios are against a raw cuLaunchKernel of the cubin the decorators chose (target: "
        f"libtriton_jit ≤ {TARGET:.2f} × raw). Triton's Python launch runs the decorators in Python on every call.",
        "",
        "| kernel | grid | raw cuLaunchKernel µs | libtriton_jit µs | ratio | Triton Python µs | ratio |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    notes = []
    for r in cpp["rows"]:
        raw, jit = r["raw_us"], r["jit_us"]
        p = prow.get(r["id"])
        pcol = f"{p['us_per_launch']:.3f} | {p['us_per_launch'] / raw:.2f}" if p else "n/a | n/a"
        what = {"heuristics": "3 heuristics", "autotune": "autotuned, 3 configs",
                "autotune_grid_fn": "autotuned, 3 configs"}.get(r["id"], r["id"])
        grid = "grid_fn / lambda meta" if r["grid"] == "grid_fn" else r["grid"]
        lines.append(f"| {r['kernel']} ({what}, {r['runtime_params']} params) | {grid} | {raw:.3f} | {jit:.3f} | "
                     f"{jit / raw:.3f}{'' if jit / raw <= TARGET else ' (over target)'} | {pcol} |")
        if p and r.get("hash") and p.get("hash") and r["id"] != "autotune_grid_fn":
            same = "same" if r["hash"] == p["hash"] else "DIFFERENT"
            chose = f" (libtriton_jit: {r['chosen']}; Triton: {p['chosen']})" if p.get("chosen") else ""
            notes.append(f"{r['kernel']}: {same} Triton hash{chose}")
    lines.append("")
    lines.append("Chosen by the decorators in libtriton_jit: " +
                 "; ".join(f"{r['kernel']} {r['chosen']}" for r in cpp["rows"] if r["id"] != "autotune_grid_fn") + ".")
    if cpp.get("heuristic_python_calls", 0) or cpp.get("tunings", 1) != 1:
        lines.append(f"**Not Python-free**: libtriton_jit ran heuristics through Python "
                     f"{cpp.get('heuristic_python_calls')} times and tuned scale_kernel {cpp.get('tunings')} times "
                     f"(expected 0 and 1).")
    if "error" in py:
        lines.append(f"Triton Python launch not measured: {py['error']}.")
    else:
        speed = ", ".join(f"{r['kernel']} {r['grid']} {prow[r['id']]['us_per_launch'] / r['jit_us']:.1f}x"
                          for r in cpp["rows"] if r["id"] in prow)
        lines.append(f"libtriton_jit vs Triton's Python launch: {speed} less host time per launch.")
        if notes:
            lines.append("Compiled kernels, libtriton_jit vs Triton Python: " + "; ".join(notes) + ".")
    return lines


def tuning_table(cpp, py):
    t = cpp.get("tuning")
    if not t:
        return ["", f"Tuning not measured: {cpp.get('tuning_error', 'no result')}."]
    pt = py.get("tuning") if "error" not in py else None
    lines = [
        "",
        f"Tuning time of {t['kernel']} ({t['configs']} configs, key M, N, K; fp16, N = K = {t['k']}), wall ms of "
        f"the launch that tunes, synchronized: a first key (M = {t['m0']}: the configs compiled or read from "
        f"Triton's cache, then timed) and a second key of the same specialization (M = {t['m']}: kernels in "
        f"memory, so the tuning alone). Both tune as Triton's do_bench does (25 ms warm-up, 100 ms repetitions "
        f"a config), so the budgets, not the host, set most of it.",
        "",
        "| tuning launch | libtriton_jit ms | Triton Python ms | ratio |",
        "|---|---:|---:|---:|",
    ]

    def row(label, ours, theirs):
        tcol = f"{theirs:.1f} | {ours / theirs:.2f}" if theirs else "n/a | n/a"
        lines.append(f"| {label} | {ours:.1f} | {tcol} |")

    row(f"first key, M = {t['m0']} (compiles or cache reads included; {t['first_compiles']} compiles here)",
        t["first_ms"], pt and pt["first_ms"])
    row(f"second key, M = {t['m']} (kernels in memory; {t['tune_compiles']} compiles here)", t["tune_ms"],
        pt and pt["tune_ms"])
    lines.append("")
    lines.append(f"Chosen for M = {t['m']}: libtriton_jit {t['chosen']}"
                 + (f"; Triton {pt['chosen']}" if pt else "") + ".")
    return lines


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    cpp, py, out = load(argv[1]), load(argv[2]), argv[3]
    lines = ["# libtriton_jit: decorated kernels", ""]
    if "error" in cpp:
        lines.append(f"Not measured: {cpp['error']}.")
        if "error" not in py:
            lines.append("")
            lines.append("Triton Python launch alone: " + ", ".join(
                f"{r['kernel']} {r['grid']} {r['us_per_launch']:.3f} µs" for r in py.get("rows", [])))
    else:
        dv = cpp.get("driver_version", 0)
        lines.append(f"Device: {cpp.get('device', '?')} ({cpp.get('arch', '?')}), CUDA driver {dv // 1000}."
                     f"{dv % 1000 // 10}; Triton {cpp.get('triton_version', '?')}"
                     + (f", torch {py['torch_version']}" if "torch_version" in py else "")
                     + f"; {cpp.get('date', '?')}")
        lines.append("")
        lines += launch_table(cpp, py)
        lines += tuning_table(cpp, py)
    text = "\n".join(lines) + "\n"
    with open(out, "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

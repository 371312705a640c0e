#!/usr/bin/env python3
"""Time from process start to the first completed launch, in fresh processes (GPU machine).

Modes, each run --reps times (median, min-max), every process timed from outside (exec to exit,
library loading included) and from inside (main to the synchronized launch):
  raw          the floor: cuModuleLoadData + cuLaunchKernel of the same cubin, no runtime
  cold         libtriton_jit with empty caches (Triton's and the index): Python compiles
  warm index   libtriton_jit, kernel in the persistent index, Python unable to import triton
  pack only    libtriton_jit, kernel in a pack (TRITON_JIT_PACKS), no index, no sources, no triton
  triton cold  Triton's Python first call (import torch + triton, compile) with an empty cache
  triton warm  the same with Triton's cache warm

Usage: first_launch.py BUILD_DIR [--reps N] [--markdown FILE]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "..", "tests", "kernels", "store")
SIGNATURE = "*fp32:16,*fp32:16,*fp32:16,i32:16,1024"

PYTHON_FIRST_CALL = r"""
import time
t0 = time.perf_counter()
import sys
import torch
import triton
sys.path.insert(0, sys.argv[1])
from scaled_add import scaled_add
t_import = time.perf_counter()
n = 1 << 20
x = torch.ones(n, device="cuda"); y = torch.ones(n, device="cuda"); out = torch.empty(n, device="cuda")
t_alloc = time.perf_counter()
scaled_add[(n // 1024,)](x, y, out, n, BLOCK=1024)
torch.cuda.synchronize()
t_done = time.perf_counter()
print(f"main_to_done_ms={(t_done - t0) * 1e3:.2f} import_ms={(t_import - t0) * 1e3:.2f} "
      f"first_call_ms={(t_done - t_alloc) * 1e3:.2f}")
"""


def run(cmd, env):
    start = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = (time.perf_counter() - start) * 1e3
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    fields = dict(w.split("=", 1) for w in p.stdout.split() if "=" in w)
    return wall, fields


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--markdown")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    cli = os.path.join(build, "tools", "triton-jit")
    first = os.path.join(build, "bench", "first_launch")
    raw = os.path.join(build, "bench", "first_launch_raw")

    import torch
    major, minor = torch.cuda.get_device_capability()
    arch = major * 10 + minor
    device = torch.cuda.get_device_name()

    tmp = tempfile.mkdtemp(prefix="first_launch_")
    src = os.path.join(tmp, "src")
    shutil.copytree(KERNELS, src)
    kernel = os.path.join(src, "scaled_add.py")
    no_triton = os.path.join(tmp, "no_triton", "triton")
    os.makedirs(no_triton)
    with open(os.path.join(no_triton, "__init__.py"), "w") as f:
        f.write("raise ImportError('no triton in this deployment')\n")
    base = dict(os.environ)
    base.pop("TRITON_JIT_PACKS", None)
    counter = iter(range(10**6))

    def fresh(name):
        path = os.path.join(tmp, f"{name}-{next(counter)}")
        os.makedirs(path)
        return path

    # Artifacts: a cubin for the floor, a pack for the pack-only process.
    warm_triton = fresh("triton-cache")
    env = dict(base, TRITON_CACHE_DIR=warm_triton, TRITON_JIT_INDEX_DIR="")
    subprocess.run([cli, "compile", f"{kernel}:scaled_add", "--signature", SIGNATURE, "--target", f"cuda:{arch}",
                    "--out", os.path.join(tmp, "cubin")], env=env, check=True, capture_output=True)
    cubin = [f for f in os.listdir(os.path.join(tmp, "cubin")) if f.endswith(".cubin")][0]
    with open(os.path.join(tmp, "manifest.txt"), "w") as f:
        f.write(f"src/scaled_add.py:scaled_add {SIGNATURE} target=cuda:{arch}\n")
    pack = os.path.join(tmp, "kernels.tjp")
    subprocess.run([cli, "pack", os.path.join(tmp, "manifest.txt"), "--out", pack, "--quiet"], env=env, check=True)
    warm_index = fresh("index")
    run([first, kernel], dict(base, TRITON_CACHE_DIR=warm_triton, TRITON_JIT_INDEX_DIR=warm_index))
    no_python = os.path.join(tmp, "no_triton")
    deployed = os.path.join(tmp, "deployed", "scaled_add.py")  # a path with no file behind it

    modes = [
        ("raw driver (floor)", lambda: ([raw, os.path.join(tmp, "cubin", cubin), "scaled_add", "4"], base)),
        ("cold (empty caches, Python compiles)",
         lambda: ([first, kernel], dict(base, TRITON_CACHE_DIR=fresh("tc"), TRITON_JIT_INDEX_DIR=fresh("ix")))),
        ("warm index (no triton importable)",
         lambda: ([first, kernel], dict(base, TRITON_JIT_INDEX_DIR=warm_index, PYTHONPATH=no_python))),
        ("pack only (no index, no sources, no triton)",
         lambda: ([first, deployed], dict(base, TRITON_JIT_INDEX_DIR=fresh("ix"), TRITON_JIT_PACKS=pack,
                                          PYTHONPATH=no_python))),
        ("Triton Python, cold cache",
         lambda: ([sys.executable, "-c", PYTHON_FIRST_CALL, src], dict(base, TRITON_CACHE_DIR=fresh("tc")))),
        ("Triton Python, warm cache",
         lambda: ([sys.executable, "-c", PYTHON_FIRST_CALL, src], dict(base, TRITON_CACHE_DIR=warm_triton))),
    ]
    rows = []
    floor = None
    for name, make in modes:
        walls, inside, extra = [], [], {}
        reps = a.reps if "cold" not in name else max(3, a.reps // 2)
        for _ in range(reps):
            cmd, env = make()
            wall, fields = run(cmd, env)
            walls.append(wall)
            inside.append(float(fields.get("main_to_done_ms", "nan")))
            extra = fields
        med = statistics.median(walls)
        floor = floor or med
        detail = " ".join(f"{k}={extra[k]}" for k in ("compiles", "index_hits", "pack_hits", "python_used",
                                                       "import_ms", "first_call_ms") if k in extra)
        rows.append((name, med, min(walls), max(walls), statistics.median(inside), med / floor, med - floor, detail))

    lines = [f"Device: {device} (sm_{arch}); {a.reps} runs a mode (cold: fewer), median (min-max); "
             f"{time.strftime('%Y-%m-%d')}", "",
             "| mode | process wall ms | main to done ms | vs floor | over floor ms | notes |",
             "|---|---|---|---|---|---|"]
    for name, med, lo, hi, ins, ratio, over, detail in rows:
        lines.append(f"| {name} | {med:.1f} ({lo:.1f}-{hi:.1f}) | {ins:.1f} | {ratio:.2f}x | {over:+.1f} | {detail} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

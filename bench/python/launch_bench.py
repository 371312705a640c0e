#!/usr/bin/env python3
"""Host time per launch from Python: triton_jit.jit(k)[grid](...) against Triton's k[grid](...)
and a raw cuLaunchKernel of the same cubin, for the launch benchmark's kernels
(bench/kernels/launch_kernels.py: add_kernel, 4 runtime params; many_args_kernel, 14), plus:
triton_jit with CuPy and JAX arrays (where installed), the small add against torch.add (4096
floats, output allocated per call as torch.add does: by torch.empty_like before the launch, and
inside the launch's C++ call through a triton_jit.empty_like placeholder), and a sweep over the
number of arguments for the plot.

    launch_bench.py [--launches N] [--batch N] [--out FILE.json] [--plot FILE.png]
                    [--cpp-json BUILD_OUT/launch_gpu_bench.json]

Method (as bench/triton_python_launch.py and launch_gpu_bench): a one-program grid, batches of
--batch launches timed with time.perf_counter from the first launch to the return of the last,
torch.cuda.synchronize() after each batch (untimed); the paths alternate batch by batch so that
clock and thermal drift hit them alike; the figure is the median over batches. The raw Python
loop is cuda-python's cuLaunchKernel with the parameter array packed once (the floor a Python
caller can reach); --cpp-json adds the C++ raw loop of launch_gpu_bench (the driver's floor).
Prints a markdown table and writes JSON; without a GPU the JSON has an "error" and the exit
status is 0.
"""
import argparse
import ctypes
import importlib.util
import json
import os
import platform
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# JAX, where installed, would otherwise take most of the GPU's memory at its first use.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
BENCH = os.path.dirname(HERE)


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # triton_jit.jit finds kernels by their module
    spec.loader.exec_module(module)
    return module


def sweep_module(counts):
    """A file of kernels with 1 pointer and k - 1 int parameters (k runtime parameters), for the
    argument-count sweep."""
    lines = ["import triton", "import triton.language as tl", ""]
    for k in counts:
        ints = [f"n{i}" for i in range(k - 1)]
        lines += ["@triton.jit", f"def k{k}(p, {', '.join(ints) + ', ' if ints else ''}BLOCK: tl.constexpr):",
                  "    offs = tl.arange(0, BLOCK)",
                  f"    tl.store(p + offs, offs + {' + '.join(ints) if ints else '0'})", ""]
    folder = tempfile.mkdtemp(prefix="launch_bench_")
    path = os.path.join(folder, "sweep_kernels.py")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return load(path, "sweep_kernels")


class RawLauncher:
    """cuLaunchKernel through cuda-python over a KernelInfo's cubin, parameters packed once."""

    def __init__(self, info, args, stream):
        from cuda.bindings import driver
        self.driver = driver
        meta = json.loads(info.to_json())
        err, self.module = driver.cuModuleLoadData(info.cubin)
        assert err == driver.CUresult.CUDA_SUCCESS, err
        err, self.function = driver.cuModuleGetFunction(self.module, info.name.encode())
        assert err == driver.CUresult.CUDA_SUCCESS, err
        shared = int(meta.get("shared", info.shared))
        if shared > 49152:
            driver.cuFuncSetAttribute(self.function,
                                      driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      shared)
        scratch = meta.get("scratch_params") or meta.get("launch", {}).get("scratch_params") or []
        values = []
        for a in args:
            if hasattr(a, "data_ptr"):
                values.append(ctypes.c_void_p(a.data_ptr()))
            elif isinstance(a, float):
                values.append(ctypes.c_float(a))
            else:
                values.append(ctypes.c_int32(a))
        values += [ctypes.c_void_p(0) for _ in scratch]
        self.values = values
        self.array = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in values])
        self.block = 32 * info.num_warps
        self.shared = shared
        self.stream = stream
        err, = driver.cuLaunchKernel(self.function, 1, 1, 1, self.block, 1, 1, shared, stream,
                                     ctypes.addressof(self.array), 0)
        assert err == driver.CUresult.CUDA_SUCCESS, f"raw cuLaunchKernel failed: {err}"

    def __call__(self, count):
        launch, f, params = self.driver.cuLaunchKernel, self.function, ctypes.addressof(self.array)
        block, shared, stream = self.block, self.shared, self.stream
        for _ in range(count):
            launch(f, 1, 1, 1, block, 1, 1, shared, stream, params, 0)


def time_paths(paths, batch, reps, sync):
    """Median µs per launch of each path, the paths alternating batch by batch."""
    for run in paths.values():  # warm-up
        run(batch)
        sync()
    times = {name: [] for name in paths}
    for _ in range(reps):
        for name, run in paths.items():
            t0 = time.perf_counter()
            run(batch)
            t1 = time.perf_counter()
            sync()
            times[name].append((t1 - t0) / batch * 1e6)
    return {name: {"us": statistics.median(t), "us_min": min(t)} for name, t in times.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--launches", type=int, default=20000)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--out", default="")
    ap.add_argument("--plot", default="")
    ap.add_argument("--cpp-json", default="")
    args = ap.parse_args()

    def emit(result):
        text = json.dumps(result, indent=2)
        if args.out:
            with open(args.out, "w") as f:
                f.write(text + "\n")
        return text

    try:
        import torch
        import triton
        import triton_jit
    except Exception as e:  # noqa: BLE001
        print(emit({"error": f"cannot import torch/triton/triton_jit: {e}"}))
        return 0
    if not torch.cuda.is_available():
        print(emit({"error": "no GPU (torch.cuda.is_available() is False)"}))
        return 0
    try:
        from cuda.bindings import driver  # noqa: F401
        have_raw = True
    except ImportError:
        have_raw = False

    kernels = load(os.path.join(BENCH, "kernels", "launch_kernels.py"), "launch_kernels")
    dev = torch.device("cuda", 0)
    n = 4096
    base = (torch.arange(n, dtype=torch.float32, device=dev) % 97) * 0.25
    x = [base.clone() for _ in range(4)]
    out = torch.empty(n, dtype=torch.float32, device=dev)
    stream = torch.cuda.current_stream().cuda_stream
    reps = max(1, args.launches // args.batch)
    sync = torch.cuda.synchronize
    grid = (1, )

    cases = {
        "add_kernel": (kernels.add_kernel, (x[0], x[1], out, n), 4),
        "many_args_kernel": (kernels.many_args_kernel,
                             (x[0], x[1], x[2], x[3], out, n, 0, 2, 3, 5, 0.5, 1.5, 2.5, 3.5), 14),
    }
    rows = []
    for name, (kernel, kargs, runtime_params) in cases.items():
        fast = triton_jit.jit(kernel)
        info = fast.compile(*kargs, BLOCK=1024)

        def run_fast(count, fast=fast, kargs=kargs):
            for _ in range(count):
                fast[grid](*kargs, BLOCK=1024)

        def run_bind(count, fast=fast, kargs=kargs):
            for _ in range(count):
                fast._bind(grid)(*kargs, BLOCK=1024)

        def run_triton(count, kernel=kernel, kargs=kargs):
            for _ in range(count):
                kernel[grid](*kargs, BLOCK=1024)

        # triton_jit_bind_only: the same call without its launch (arguments, options, stream): the
        # part of triton_jit's time spent on the Python side.
        paths = {"triton_jit": run_fast, "triton": run_triton, "triton_jit_bind_only": run_bind}
        if have_raw:
            paths["raw_python"] = RawLauncher(info, kargs, stream)
        run_fast(1)
        sync()
        if name == "add_kernel":
            torch.testing.assert_close(out[:1024], x[0][:1024] + x[1][:1024])
        result = time_paths(paths, args.batch, reps, sync)
        rows.append({"kernel": name, "runtime_params": runtime_params, "hash": info.hash, **result})

    # Other frameworks' arrays through triton_jit (Triton's own launch takes neither).
    frameworks = {}
    try:
        import cupy
        cx = [cupy.asarray(t.cpu().numpy()) for t in x[:2]]
        cout = cupy.empty(n, dtype=cupy.float32)
        fast = triton_jit.jit(kernels.add_kernel)

        def run_cupy(count):
            for _ in range(count):
                fast[grid](cx[0], cx[1], cout, n, BLOCK=1024)
        frameworks["cupy"] = time_paths({"triton_jit": run_cupy}, args.batch, reps,
                                        cupy.cuda.get_current_stream().synchronize)["triton_jit"]
    except Exception as e:  # noqa: BLE001
        frameworks["cupy"] = {"error": f"{type(e).__name__}: {e}"}
    try:
        import jax
        import jax.numpy as jnp
        jx = [jax.device_put(jnp.asarray(t.cpu().numpy())) for t in x[:2]]
        jout = jax.device_put(jnp.zeros(n, jnp.float32))
        jax.block_until_ready((jx, jout))
        fast = triton_jit.jit(kernels.add_kernel)

        def run_jax(count):
            for _ in range(count):
                fast[grid](jx[0], jx[1], jout, n, BLOCK=1024, stream=0)
        frameworks["jax"] = time_paths({"triton_jit": run_jax}, args.batch, reps, triton_jit.synchronize)["triton_jit"]
    except Exception as e:  # noqa: BLE001
        frameworks["jax"] = {"error": f"{type(e).__name__}: {e}"}

    # The small add with its output allocated per call, against torch.add.
    fast_add = triton_jit.jit(kernels.add_kernel)
    a, b = x[0], x[1]

    # The grid as a user of this package writes it, with triton_jit.cdiv; and with triton.cdiv,
    # which in Triton 3.6 is a ConstexprFunction costing about 2 µs a call, a third of torch.add.
    def run_new_add(count):
        for _ in range(count):
            o = torch.empty_like(a)
            fast_add[(triton_jit.cdiv(n, 1024), )](a, b, o, n, BLOCK=1024)

    def run_new_add_triton_cdiv(count):
        for _ in range(count):
            o = torch.empty_like(a)
            fast_add[(triton.cdiv(n, 1024), )](a, b, o, n, BLOCK=1024)

    # The output allocated inside the launch's C++ call: triton_jit.empty_like(a) is a placeholder
    # the extension fills with torch.empty_like, called from C; the launch returns the tensor.
    def run_placeholder_add(count):
        for _ in range(count):
            fast_add[(triton_jit.cdiv(n, 1024), )](a, b, triton_jit.empty_like(a), n, BLOCK=1024)

    placeholder_out = fast_add[(triton_jit.cdiv(n, 1024), )](a, b, triton_jit.empty_like(a), n, BLOCK=1024)
    if not torch.equal(placeholder_out, torch.add(a, b)):
        raise SystemExit("launch_bench: the placeholder launch's output differs from torch.add's")

    def run_empty_like(count):
        for _ in range(count):
            torch.empty_like(a)

    def run_torch_add(count):
        for _ in range(count):
            torch.add(a, b)
    small_add = time_paths({"triton_jit": run_new_add, "torch.add": run_torch_add,
                            "triton_jit_empty_like": run_placeholder_add,
                            "triton_jit_triton_cdiv": run_new_add_triton_cdiv, "torch.empty_like": run_empty_like},
                           args.batch, reps, sync)

    # Host time against the number of runtime parameters.
    counts = [1, 2, 4, 8, 14, 24, 32]
    sweep_kernels = sweep_module(counts)
    sweep = []
    p = torch.empty(64, dtype=torch.int32, device=dev)
    for k in counts:
        kernel = getattr(sweep_kernels, f"k{k}")
        kargs = (p, *[3 + i for i in range(k - 1)])
        fast = triton_jit.jit(kernel)
        info = fast.compile(*kargs, BLOCK=64)

        def run_fast(count, fast=fast, kargs=kargs):
            for _ in range(count):
                fast[grid](*kargs, BLOCK=64)

        def run_triton(count, kernel=kernel, kargs=kargs):
            for _ in range(count):
                kernel[grid](*kargs, BLOCK=64)
        paths = {"triton_jit": run_fast, "triton": run_triton}
        if have_raw:
            paths["raw_python"] = RawLauncher(info, kargs, stream)
        run_triton(1)
        sync()
        sweep.append({"runtime_params": k, **time_paths(paths, args.batch, max(1, reps // 2), sync)})

    cpp = {}
    if args.cpp_json and os.path.isfile(args.cpp_json):
        with open(args.cpp_json) as f:
            cpp = json.load(f)

    result = {
        "device": torch.cuda.get_device_name(dev),
        "torch_version": torch.__version__,
        "triton_version": triton.__version__,
        "python_version": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "launches": reps * args.batch,
        "batch": args.batch,
        "raw_python": "cuda-python cuLaunchKernel" if have_raw else "cuda-python not installed",
        "rows": rows,
        "frameworks": frameworks,
        "small_add": small_add,
        "sweep": sweep,
        "cpp": cpp,
    }
    emit(result)

    def us(d, key):
        return f"{d[key]['us']:.2f}" if key in d else "-"
    print(f"# Python launch overhead on {result['device']} (Triton {triton.__version__}, torch {torch.__version__})\n")
    print("| kernel | runtime params | raw cuLaunchKernel (cuda-python) µs | triton_jit µs | ratio | Triton µs | ratio "
          "| triton_jit without the launch µs |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        raw = r.get("raw_python", {}).get("us")
        ratio = (lambda v: f"{v / raw:.2f}×" if raw else "-")
        print(f"| {r['kernel']} | {r['runtime_params']} | {us(r, 'raw_python')} | {us(r, 'triton_jit')} | "
              f"{ratio(r['triton_jit']['us'])} | {us(r, 'triton')} | {ratio(r['triton']['us'])} | "
              f"{us(r, 'triton_jit_bind_only')} |")
    if cpp.get("rows"):
        print("\nC++ raw cuLaunchKernel loop (launch_gpu_bench, same machine): " +
              ", ".join(f"{row.get('kernel', '?')}: {row.get('raw_us', row.get('raw', '?'))} µs" for row in cpp["rows"]))
    print()
    for fw, d in frameworks.items():
        print(f"- add_kernel with {fw} arrays through triton_jit: " +
              (f"{d['us']:.2f} µs" if "us" in d else d["error"]))
    sa = {k: v["us"] for k, v in small_add.items()}
    print(f"- add of 4096 floats, output allocated per call: triton_jit {sa['triton_jit']:.2f} µs, "
          f"torch.add {sa['torch.add']:.2f} µs ({sa['triton_jit'] / sa['torch.add']:.2f}×; target below 1); "
          f"of which torch.empty_like {sa['torch.empty_like']:.2f} µs; with the grid from triton.cdiv "
          f"{sa['triton_jit_triton_cdiv']:.2f} µs; with the output allocated in the launch "
          f"(triton_jit.empty_like) {sa['triton_jit_empty_like']:.2f} µs "
          f"({sa['triton_jit_empty_like'] / sa['torch.add']:.2f}× torch.add)")
    print("\n| runtime params | raw µs | triton_jit µs | Triton µs |\n| ---: | ---: | ---: | ---: |")
    for s in sweep:
        print(f"| {s['runtime_params']} | {us(s, 'raw_python')} | {us(s, 'triton_jit')} | {us(s, 'triton')} |")

    if args.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            fig, ax = plt.subplots(figsize=(6, 4))
            xs = [s["runtime_params"] for s in sweep]
            for key, label in (("raw_python", "raw cuLaunchKernel (cuda-python)"), ("triton_jit", "triton_jit"),
                               ("triton", "Triton kernel[grid]")):
                if all(key in s for s in sweep):
                    ax.plot(xs, [s[key]["us"] for s in sweep], marker="o", label=label)
            ax.set_xlabel("runtime parameters")
            ax.set_ylabel("host µs per launch")
            ax.set_title(f"Launch from Python, {result['device']}")
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
            ax.legend()
            fig.tight_layout()
            fig.savefig(args.plot, dpi=120)
            print(f"\nplot: {args.plot}")
        except ImportError:
            print("\nno matplotlib: no plot (the sweep is in the JSON)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

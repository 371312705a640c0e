#!/usr/bin/env python3
"""triton_jit.install() on real libraries' kernels: Liger-Kernel's and flash-linear-attention's
(fla) forward and backward passes with and without install(), on a GPU.

    install_bench.py [--batch N] [--rounds N] [--out FILE.json]

Three measurements, each against Triton's own launch in the same process:
1. Bit-identical results: each workload (a Liger or fla op, forward and backward) runs from the
   same inputs once with Triton's JITFunction.run and once installed; every output and gradient
   must be equal bit for bit. The installed pass also counts the launches that went to Triton's
   own run instead (triton_jit.install_stats()).
2. Host time per launch of each kernel the workloads launch: the launch each kernel's first call
   made (JITFunction.run's own arguments, recorded: what Triton's Autotuner and Heuristics hand to
   it), launched again --batch times in a row through JITFunction.run, installed and not,
   alternating batch by batch, --rounds batches each; torch.cuda.synchronize() after each batch
   (untimed). The figure is the median per launch; the kernels' inputs are small, so the host
   side, not the GPU, sets the pace. The same launch through the direct launcher,
   triton_jit.jit(fn)[grid](...), is timed too: the floor the installed run adds to. The wrappers above JITFunction.run (Autotuner, Heuristics,
   the libraries' own Python) are not in this figure: install() leaves them as they are.
3. An eager training step of a small model built from Liger's kernels (RMSNorm, SwiGLU, cross
   entropy), installed against not: the step's time, and how much of it the launches' host time
   is. fla's chunked ops run forward only: fla 0.6 refuses their backward on Hopper with a Triton
   older than 3.7.1.

Prints markdown and writes JSON. Without a GPU, or without liger_kernel / fla importable, it
says so and exits 0.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from library_workloads import SEED, seeded_inputs, workloads  # noqa: E402


class Recorder:
    """Wraps JITFunction.run (whichever is in effect) and keeps each kernel's first launch."""

    def __init__(self, JITFunction):
        self.cls, self.first, self.count = JITFunction, {}, 0

    def __enter__(self):
        self.inner = self.cls.run
        recorder = self

        def run(fn, *args, grid, warmup, **kwargs):
            if not warmup:
                recorder.count += 1
                recorder.first.setdefault(fn, (args, dict(kwargs), grid))
            return recorder.inner(fn, *args, grid=grid, warmup=warmup, **kwargs)

        self.cls.run = run
        return self

    def __exit__(self, *exc):
        self.cls.run = self.inner


def kernel_name(fn):
    inner = getattr(fn, "fn", None)
    return f"{getattr(inner, '__module__', '?').split('.')[0]}.{getattr(inner, '__name__', repr(fn))}"


def time_launches(torch, triton_jit, JITFunction, fn, launch, batch, rounds):
    """Median host seconds per launch: (Triton's run, the installed run, the direct launcher
    `triton_jit.jit(fn)[grid](...)`, the floor the installed run adds to; None where the direct
    launcher refuses the call), the three in turn, their order rotating round by round."""
    args, kwargs, grid = launch
    direct = triton_jit.jit(fn)
    try:
        direct[grid](*args, **kwargs)
    except Exception:  # noqa: BLE001 - a call the direct front end does not take: no floor shown
        direct = None
    paths = ["triton", "installed"] + (["direct"] if direct is not None else [])
    times = {p: [] for p in paths}
    for r in range(rounds):
        for path in paths[r % len(paths):] + paths[:r % len(paths)]:
            (triton_jit.install if path == "installed" else triton_jit.uninstall)()
            run = JITFunction.run
            torch.cuda.synchronize()
            start = time.perf_counter()
            if path == "direct":
                for _ in range(batch):
                    direct[grid](*args, **kwargs)
            else:
                for _ in range(batch):
                    run(fn, *args, grid=grid, warmup=False, **kwargs)
            times[path].append((time.perf_counter() - start) / batch)
            torch.cuda.synchronize()
    triton_jit.uninstall()
    median = {p: statistics.median(t) for p, t in times.items()}
    return median["triton"], median["installed"], median.get("direct")


def training_step_bench(torch, triton_jit, JITFunction, rounds, steps):
    """Step time of a small model of Liger's kernels (RMSNorm, SwiGLU, cross entropy; torch's own
    attention), eager: (Triton's, installed, launches a step, bit-identical loss and gradients).
    fla's chunked attention would need its backward, which fla refuses on Hopper with this Triton."""
    import liger_kernel.transformers.functional as LF
    dev, bf16 = "cuda", torch.bfloat16
    V, D, H, L, B, T = 2048, 256, 4, 4, 2, 128
    K = D // H
    torch.manual_seed(SEED)

    def param(*shape):
        return (torch.randn(*shape, device=dev, dtype=bf16) * shape[-1]**-0.5).requires_grad_()

    params = {"emb": param(V, D), "out": param(D, V)}
    for i in range(L):
        params.update({f"n1.{i}": torch.ones(D, device=dev, dtype=bf16, requires_grad=True),
                       f"qkv.{i}": param(D, 3 * D), f"o.{i}": param(D, D),
                       f"n2.{i}": torch.ones(D, device=dev, dtype=bf16, requires_grad=True),
                       f"gu.{i}": param(D, 4 * D), f"d.{i}": param(2 * D, D)})
    tokens = torch.randint(0, V, (B, T), device=dev)
    target = torch.randint(0, V, (B * T, ), device=dev)
    opt = torch.optim.SGD(params.values(), lr=1e-3)

    def loss_of():
        x = params["emb"][tokens]
        for i in range(L):
            h = LF.liger_rms_norm(x, params[f"n1.{i}"], 1e-6, in_place=False)
            q, k, v = (t.reshape(B, T, H, K).transpose(1, 2) for t in (h @ params[f"qkv.{i}"]).split(D, dim=-1))
            o = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + o.transpose(1, 2).reshape(B, T, D) @ params[f"o.{i}"]
            h = LF.liger_rms_norm(x, params[f"n2.{i}"], 1e-6, in_place=False)
            a, b = (h @ params[f"gu.{i}"]).split(2 * D, dim=-1)
            x = x + LF.liger_swiglu(a.contiguous(), b.contiguous()) @ params[f"d.{i}"]
        logits = (x @ params["out"]).float().reshape(B * T, V)
        return LF.liger_cross_entropy(logits, target)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_of()
        loss.backward()
        opt.step()
        return loss

    # Bit-identical: the same loss and gradients from the same parameters, installed and not.
    def grads_once():
        opt.zero_grad(set_to_none=True)
        loss = loss_of()
        loss.backward()
        return [loss.detach().clone()] + [p.grad.clone() for p in params.values()]

    triton_jit.uninstall()
    for _ in range(3):  # autotuning and compiles before anything is compared or timed
        grads_once()
    with Recorder(JITFunction) as rec:
        reference = grads_once()
    triton_jit.install()
    installed = grads_once()
    triton_jit.uninstall()
    same = all(torch.equal(a, b) for a, b in zip(reference, installed))

    times = {False: [], True: []}
    for r in range(rounds):
        for on in ((False, True) if r % 2 == 0 else (True, False)):
            (triton_jit.install if on else triton_jit.uninstall)()
            step()
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(steps):
                step()
            torch.cuda.synchronize()
            times[on].append((time.perf_counter() - start) / steps)
    triton_jit.uninstall()
    return statistics.median(times[False]), statistics.median(times[True]), rec.count, same


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--out")
    opts = parser.parse_args()
    result = {"python": platform.python_version()}

    def finish(code=0):
        if opts.out:
            with open(opts.out, "w") as f:
                json.dump(result, f, indent=1)
        return code

    try:
        import torch
        import triton
        from triton.runtime.jit import JITFunction
        import triton_jit
        import liger_kernel  # noqa: F401
        import fla  # noqa: F401
    except Exception as e:  # noqa: BLE001 - any failure to import is the reason to stop
        result["error"] = f"{type(e).__name__}: {e}"
        print(f"install benchmark not run: {result['error']} (liger_kernel and fla travel in .carry/wheels)")
        return finish()
    if not torch.cuda.is_available():
        result["error"] = "no CUDA GPU"
        print("install benchmark not run: no CUDA GPU")
        return finish()
    result.update(device=torch.cuda.get_device_name(), torch=torch.__version__, triton=triton.__version__,
                  liger_kernel=getattr(sys.modules["liger_kernel"], "__version__", "?"),
                  fla=getattr(sys.modules["fla"], "__version__", "?"), workloads={}, kernels={})
    print(f"### triton_jit.install() on Liger-Kernel and fla ({result['device']}, torch {torch.__version__}, "
          f"Triton {triton.__version__})\n")

    # 1. Bit-identical results; each kernel's first launch recorded.
    launches = {}
    print("| workload (forward + backward) | launches | through Triton's run when installed | bit-identical |")
    print("| --- | ---: | ---: | --- |")
    for name, (make, run) in workloads(torch).items():
        try:
            triton_jit.uninstall()
            for _ in range(2):  # autotuning and compiles first
                run(seeded_inputs(torch, make))
            with Recorder(JITFunction) as rec:
                reference = run(seeded_inputs(torch, make))
            triton_jit.install()
            before = sum(triton_jit.install_stats().values())
            installed = run(seeded_inputs(torch, make))
            fallbacks = sum(triton_jit.install_stats().values()) - before
            triton_jit.uninstall()
            torch.cuda.synchronize()
            same = len(reference) == len(installed) and all(torch.equal(a, b) for a, b in zip(reference, installed))
            result["workloads"][name] = {"launches": rec.count, "fallbacks": fallbacks, "bit_identical": same}
            for fn, launch in rec.first.items():
                launches.setdefault(fn, launch)
            print(f"| {name} | {rec.count} | {fallbacks} | {'yes' if same else '**NO**'} |")
        except Exception as e:  # noqa: BLE001 - reported in the table, the others go on
            triton_jit.uninstall()
            result["workloads"][name] = {"error": f"{type(e).__name__}: {e}"}
            print(f"| {name} | error: {type(e).__name__}: {str(e)[:120]} | | |")
    print(f"\ninstall_stats() over the installed passes: {triton_jit.install_stats()}\n")

    # 2. Host time per launch, kernel by kernel.
    print(f"Host time per launch through JITFunction.run, median of {opts.rounds} alternating batches of "
          f"{opts.batch}:\n")
    print("| kernel | Triton's run (µs) | installed (µs) | installed / Triton | direct `jit(k)[grid]` (µs) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    ratios = []
    for fn, launch in launches.items():
        name = kernel_name(fn)
        try:
            t_triton, t_installed, t_direct = time_launches(torch, triton_jit, JITFunction, fn, launch, opts.batch,
                                                            opts.rounds)
        except Exception as e:  # noqa: BLE001
            triton_jit.uninstall()
            print(f"| {name} | error: {type(e).__name__}: {str(e)[:100]} | | | |")
            continue
        ratios.append(t_installed / t_triton)
        result["kernels"][name] = {"triton_us": t_triton * 1e6, "installed_us": t_installed * 1e6,
                                   "direct_us": t_direct * 1e6 if t_direct is not None else None}
        floor = f"{t_direct * 1e6:.2f}" if t_direct is not None else "refused"
        print(f"| `{name}` | {t_triton * 1e6:.2f} | {t_installed * 1e6:.2f} | {t_installed / t_triton:.3f} | {floor} |")
    if ratios:
        result["ratio_median"] = statistics.median(ratios)
        result["ratio_max"] = max(ratios)
        print(f"\nInstalled / Triton over {len(ratios)} kernels: median {statistics.median(ratios):.3f}, "
              f"worst {max(ratios):.3f} (target: at most 0.333).\n")

    # 3. An eager training step.
    try:
        t_triton, t_installed, per_step, same = training_step_bench(torch, triton_jit, JITFunction, opts.rounds,
                                                                    opts.steps)
        saved = t_triton - t_installed
        result["training_step"] = {"triton_ms": t_triton * 1e3, "installed_ms": t_installed * 1e3,
                                   "launches_per_step": per_step, "bit_identical": same}
        print("Eager training step (4 blocks of Liger RMSNorm + torch attention + Liger RMSNorm + Liger SwiGLU, "
              f"Liger cross entropy; d=256, 2x128 tokens; SGD), median of {opts.rounds} alternating runs of "
              f"{opts.steps} steps:\n")
        print("| Triton's run (ms) | installed (ms) | saved | Triton launches a step | bit-identical |")
        print("| ---: | ---: | ---: | ---: | --- |")
        print(f"| {t_triton * 1e3:.3f} | {t_installed * 1e3:.3f} | {saved * 1e3:.3f} ms "
              f"({100 * saved / t_triton:.1f} %) | {per_step} | {'yes' if same else '**NO**'} |")
    except Exception as e:  # noqa: BLE001
        triton_jit.uninstall()
        result["training_step"] = {"error": f"{type(e).__name__}: {e}"}
        print(f"training step: error {type(e).__name__}: {e}")
    return finish()


if __name__ == "__main__":
    sys.exit(main())

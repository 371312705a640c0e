"""Two processes, one per GPU (torchrun --nproc_per_node=2), serving the same workload: the
operators of triton_jit_ops (add, softmax, matmul, sum), a kernel launched through the
triton_jit package, and an all-reduce through NCCL, in a loop. They share one kernel index
(TRITON_JIT_INDEX_DIR) and one kernel pack (TRITON_JIT_PACKS) and start together, so they miss
the same kernels at the same moment. Checked at the end: every result against torch, and each
kernel outside the pack compiled once across both processes (the other took it from the index).

    serve_two_ranks.py WORK_DIR [ITERATIONS]

Triton's own cache is per rank (WORK_DIR/triton-rankN), so only the shared index can spare a
compile. Prints a line per rank and a summary; exits 1 on a wrong result or a double compile.
"""
import os
import sys
import time

WORK = sys.argv[1]
ITERATIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 30
RANK = int(os.environ["RANK"])
LOCAL_RANK = int(os.environ["LOCAL_RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
# Before anything imports Triton: its cache may not serve one rank with the other's compile.
os.environ["TRITON_CACHE_DIR"] = os.path.join(WORK, f"triton-rank{RANK}")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serving_kernels  # noqa: E402
import triton_jit  # noqa: E402
import triton_jit_ops as ops  # noqa: E402

DEVICE = torch.device("cuda", LOCAL_RANK)
SHAPES = [  # (elements of the element-wise work, rows x cols of softmax/sum, m, k, n of matmul)
    (4096, (64, 256), (64, 128, 32)),
    (1000, (33, 100), (48, 64, 80)),
    (8192, (128, 512), (128, 64, 64)),
]


def inputs(rank, step):
    """Rank `rank`'s inputs at `step`: every rank can rebuild every rank's."""
    n, (rows, cols), (m, k, nn) = SHAPES[step % len(SHAPES)]
    g = torch.Generator(device=DEVICE).manual_seed(1000 * rank + step)
    r = lambda *shape, dtype=torch.float32: torch.randn(*shape, generator=g, device=DEVICE).to(dtype)  # noqa: E731
    return {"a": r(n), "b": r(n), "x": r(rows, cols), "ma": r(m, k, dtype=torch.float16) * 0.1,
            "mb": r(k, nn, dtype=torch.float16), "alpha": 0.5 + step % 3}


def compute(t, axpy):
    """The served work on one rank's inputs: the operators and the package's kernel."""
    n = t["a"].numel()
    out = torch.empty_like(t["a"])
    axpy[(triton_jit.cdiv(n, 1024), )](t["a"], t["b"], out, t["alpha"], n, BLOCK=1024)
    return [ops.add(t["a"], t["b"], alpha=t["alpha"]), ops.softmax(t["x"], 1), ops.sum(t["x"], 1),
            ops.matmul(t["ma"], t["mb"]).float(), out]


def reference(t):
    return [t["a"] + t["alpha"] * t["b"], torch.softmax(t["x"], 1), t["x"].sum(1),
            (t["ma"].float() @ t["mb"].float()), t["alpha"] * t["a"] + t["b"]]


def main():
    torch.cuda.set_device(DEVICE)
    dist.init_process_group("nccl", device_id=DEVICE)
    axpy = triton_jit.jit(serving_kernels.axpy_kernel)
    dist.barrier()  # both ranks miss at the same moment
    start = time.perf_counter()
    wrong = []
    for step in range(ITERATIONS):
        results = compute(inputs(RANK, step), axpy)
        for r in results:
            dist.all_reduce(r)
        expected = [sum(parts) for parts in zip(*(reference(inputs(q, step)) for q in range(WORLD)))]
        for i, (got, want) in enumerate(zip(results, expected)):
            tol = 2e-2 if i == 3 else 1e-4  # the fp16 matmul
            if not torch.allclose(got, want, rtol=tol, atol=tol):
                wrong.append(f"step {step} result {i}: max error {(got - want).abs().max().item():.3g}")
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    stats = dict(triton_jit.global_stats(), seconds=seconds, wrong=wrong, python_used=triton_jit.python_used())
    gathered = [None] * WORLD
    dist.all_gather_object(gathered, stats)
    ok = True
    if RANK == 0:
        for q, s in enumerate(gathered):
            print(f"rank {q}: {ITERATIONS} iterations in {s['seconds']:.2f} s; compiles={s['compiles']} "
                  f"index_hits={s['index_hits']} pack_hits={s['pack_hits']} misses={s['misses']} "
                  f"hits={s['hits']} wrong={len(s['wrong'])}")
            for w in s["wrong"][:5]:
                print(f"  rank {q} wrong: {w}")
            ok &= not s["wrong"]
        # Kernels outside the pack: what each rank missed and did not find in the pack.
        outside = [s["misses"] - s["pack_hits"] for s in gathered]
        total_compiles = sum(s["compiles"] for s in gathered)
        print(f"kernels outside the pack per rank: {outside}; compiles across ranks: {total_compiles}; "
              f"index hits: {[s['index_hits'] for s in gathered]}; pack hits: {[s['pack_hits'] for s in gathered]}")
        checks = {
            "both ranks used the same kernels": len(set(outside)) == 1,
            "each kernel outside the pack compiled once across the ranks": total_compiles == outside[0],
            "each rank either compiled a kernel or took it from the index":
                all(s["compiles"] + s["index_hits"] == outside[0] for s in gathered),
            "the pack served every rank": all(s["pack_hits"] > 0 for s in gathered),
        }
        for name, passed in checks.items():
            print(f"{'ok  ' if passed else 'FAIL'} {name}")
            ok &= passed
        print("RESULT: " + ("pass" if ok else "FAIL"))
    flag = torch.tensor([0 if ok else 1], device=DEVICE)
    dist.broadcast(flag, 0)
    dist.destroy_process_group()
    return int(flag.item())


if __name__ == "__main__":
    sys.exit(main())

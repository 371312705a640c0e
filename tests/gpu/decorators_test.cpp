// @triton.heuristics and @triton.autotune on the GPU (tests/kernels/decorated.py), against
// Triton's own Python launch of the same decorated kernels in the runtime's interpreter: outputs
// bit-identical where both run the same config; tuning that zeroes (reset_to_zero) and restores
// (restore_value) what its timed runs write; a tuned kernel launched again without tuning.
#include "kernel_file_test.h"

namespace {

class GpuDecorators : public gpu_test::KernelFileTest {
 protected:
  GpuDecorators() : KernelFileTest("decorated.py", "dk", "torch.manual_seed(7)\n") {}
};

TypedPtr f32(uintptr_t p, uint64_t bytes = 0) { return TypedPtr{reinterpret_cast<void*>(p), DType::fp32, bytes}; }
TypedPtr f16(uintptr_t p, uint64_t bytes = 0) { return TypedPtr{reinterpret_cast<void*>(p), DType::fp16, bytes}; }

}  // namespace

// Heuristics decide the path (EVEN_N or masked, with or without bias) per call, as in Python.
TEST_F(GpuDecorators, HeuristicsKernelIsBitIdenticalToTritonsLaunch) {
  auto& row_sum = fn("row_sum_kernel");
  for (const int N : {100, 256, 1000, 4096}) {
    for (const bool bias : {false, true}) {
      const int M = 37;
      const std::vector<uintptr_t> p = addresses(
          run_python("M, N = " + std::to_string(M) + ", " + std::to_string(N) +
                     "\n"
                     "x = torch.randn(M, N, device='cuda')\n"
                     "b = torch.randn(M, device='cuda') if " +
                     (bias ? "True" : "False") +
                     " else None\n"
                     "ref = torch.full((M,), float('nan'), device='cuda')\n"
                     "ours = torch.full((M,), float('nan'), device='cuda')\n"
                     "dk.row_sum_kernel[(M,)](x, b, ref, M, N, N)\n"
                     "torch.cuda.synchronize()\n"
                     "keep.update(x=x, b=b, ref=ref, ours=ours)\n"
                     "result = f'{x.data_ptr()} {b.data_ptr() if b is not None else 0} {ours.data_ptr()}'\n"));
      ASSERT_EQ(p.size(), 3u);
      if (bias) {
        row_sum(LaunchConfig{Grid(M)}, f32(p[0]), f32(p[1]), f32(p[2]), M, N, N);
      } else {
        row_sum(LaunchConfig{Grid(M)}, f32(p[0]), nullptr, f32(p[2]), M, N, N);
      }
      CUDA_CHECK(cudaDeviceSynchronize());
      EXPECT_EQ(run_python("result = torch.equal(keep['ref'], keep['ours'])\n"), "True")
          << "N=" << N << " bias=" << bias;
    }
  }
  EXPECT_EQ(row_sum.stats().heuristic_python_calls, 0u);
}

// One config: applied as given, the heuristics inside see its BLOCK; the grid comes from it.
TEST_F(GpuDecorators, SingleConfigAutotunerIsBitIdenticalToTritonsLaunch) {
  auto& k = fn("single_config_kernel");
  for (const int n : {4096, 4097}) {
    const std::vector<uintptr_t> p = addresses(
        run_python("n = " + std::to_string(n) +
                   "\n"
                   "x = torch.randn(n + 1024, device='cuda')\n"
                   "ref = torch.zeros_like(x)\n"
                   "ours = torch.zeros_like(x)\n"
                   "dk.single_config_kernel[lambda meta: (triton.cdiv(n, meta['BLOCK']),)](x, ref, n)\n"
                   "torch.cuda.synchronize()\n"
                   "keep.update(x=x, ref=ref, ours=ours)\n"
                   "result = f'{x.data_ptr()} {ours.data_ptr()}'\n"));
    LaunchConfig config;
    config.grid_fn = [n](const GridMeta& meta) { return Grid(cdiv(n, meta["BLOCK"])); };
    k(config, f32(p[0]), f32(p[1]), n);
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(run_python("result = torch.equal(keep['ref'], keep['ours'])\n"), "True") << "n=" << n;
  }
}

// A matmul autotuned over three configs (key M, N, K) with heuristics inside: tunes once per key,
// matches torch, and with the config it chose is bit-identical to Triton's launch of that config.
TEST_F(GpuDecorators, AutotunedMatmulTunesOnceAndMatchesTritonWithTheSameConfig) {
  auto& mm = fn("matmul_kernel");
  for (const int K : {256, 200}) {
    const int M = 300, N = 260;
    const std::vector<uintptr_t> p = addresses(
        run_python("M, N, K = " + std::to_string(M) + ", " + std::to_string(N) + ", " + std::to_string(K) +
                   "\n"
                   "a = torch.randn(M, K, device='cuda', dtype=torch.float16)\n"
                   "b = torch.randn(K, N, device='cuda', dtype=torch.float16)\n"
                   "ours = torch.full((M, N), float('nan'), device='cuda', dtype=torch.float16)\n"
                   "keep.update(a=a, b=b, ours=ours)\n"
                   "result = f'{a.data_ptr()} {b.data_ptr()} {ours.data_ptr()}'\n"));
    LaunchConfig config;
    config.grid_fn = [&](const GridMeta& meta) { return Grid(cdiv(M, meta["BLOCK_M"]), cdiv(N, meta["BLOCK_N"])); };
    const auto tunings = mm.stats().tunings;
    auto launch = [&] { mm(config, f16(p[0]), f16(p[1]), f16(p[2]), M, N, K, K, 1, N, 1, N, 1); };
    launch();
    EXPECT_EQ(mm.stats().tunings, tunings + 1) << "the first call of a key tunes";
    launch();
    EXPECT_EQ(mm.stats().tunings, tunings + 1) << "the second call of the key uses the choice";
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto spec = mm.specialize(config, f16(p[0]), f16(p[1]), f16(p[2]), M, N, K, K, 1, N, 1, N, 1);
    auto value = [&](const char* name) { return spec.params[mm.signature().find(name)].value_repr; };
    const std::string config_kwargs = "BLOCK_M=" + value("BLOCK_M") + ", BLOCK_N=" + value("BLOCK_N") +
                                      ", BLOCK_K=" + value("BLOCK_K") +
                                      ", num_warps=" + std::to_string(spec.num_warps) +
                                      ", num_stages=" + std::to_string(spec.num_stages);
    EXPECT_EQ(run_python("a, b, ours = keep['a'], keep['b'], keep['ours']\n"
                         "M, N, K = a.shape[0], b.shape[1], a.shape[1]\n"
                         "ref = torch.full_like(ours, float('nan'))\n"
                         "dk.matmul_kernel.fn[lambda meta: (triton.cdiv(M, meta['BLOCK_M']), "
                         "triton.cdiv(N, meta['BLOCK_N']))](a, b, ref, M, N, K, K, 1, N, 1, N, 1, " +
                         config_kwargs +
                         ")\n"
                         "torch.cuda.synchronize()\n"
                         "err = ((ours.float() - (a.float() @ b.float())).norm() / (a.float() @ b.float()).norm())\n"
                         "result = f'{torch.equal(ref, ours)} {err.item() < 1e-2}'\n"),
              "True True")
        << "K=" << K << " with " << config_kwargs;
  }
}

// Each timed run adds into `out` again: without reset_to_zero the result would be a multiple.
TEST_F(GpuDecorators, ResetToZeroLeavesOneRunsResult) {
  auto& k = fn("atomic_sum_kernel");
  const int n = 100000;
  const std::vector<uintptr_t> p = addresses(run_python("x = torch.rand(100000, device='cuda')\n"
                                                        "out = torch.zeros(1, device='cuda')\n"
                                                        "keep.update(x=x, out=out)\n"
                                                        "result = f'{x.data_ptr()} {out.data_ptr()}'\n"));
  LaunchConfig config;
  config.grid_fn = [](const GridMeta& meta) { return Grid(cdiv(100000, meta["BLOCK"])); };
  const auto tunings = k.stats().tunings;
  k(config, f32(p[0], n * 4), f32(p[1], 4), n);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(k.stats().tunings, tunings + 1);
  EXPECT_EQ(run_python("s = keep['x'].double().sum().item()\n"
                       "result = abs(keep['out'].item() - s) < 1e-4 * s\n"),
            "True")
      << run_python("result = f\"{keep['out'].item()} vs {keep['x'].double().sum().item()}\"\n");
}

// Each timed run scales `x` in place: restore_value puts it back, so one launch scales it once.
TEST_F(GpuDecorators, RestoreValueLeavesOneRunsResult) {
  auto& k = fn("inplace_scale_kernel");
  const int n = 50000;
  const std::vector<uintptr_t> p = addresses(run_python("x = torch.randn(50000, device='cuda')\n"
                                                        "x0 = x.clone()\n"
                                                        "keep.update(x=x, x0=x0)\n"
                                                        "result = f'{x.data_ptr()}'\n"));
  LaunchConfig config;
  config.grid_fn = [n](const GridMeta& meta) { return Grid(cdiv(n, meta["BLOCK"])); };
  const auto tunings = k.stats().tunings;
  k(config, f32(p[0], n * 4), n, 3.0f);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(k.stats().tunings, tunings + 1);
  EXPECT_EQ(run_python("result = torch.equal(keep['x'], keep['x0'] * 3.0)\n"), "True");
}

// Autotune's Python hooks on the GPU (tests/kernels/decorated_hooks.py): the hooks get torch
// tensors over the C++ caller's buffers (sizes given by TypedPtr), so `args['out_ptr'].zero_()`
// works as in Python.
namespace {

TritonJitFunction& hooks_fn(const char* name) {
  return TritonJitFunction::get(TRITON_JIT_TEST_KERNELS_DIR "/decorated_hooks.py", name);
}

}  // namespace

// pre_hook zeroes the accumulator before every timed run and once after tuning, as Triton calls
// it: the one real launch leaves one sum (each timed run would add again otherwise).
TEST_F(GpuDecorators, PreHookZeroesTheAccumulatorOfAnAtomicAddKernel) {
  auto& k = hooks_fn("zeroing_hook_kernel");
  const int n = 100000;
  const std::vector<uintptr_t> p = addresses(run_python("x = torch.rand(100000, device='cuda')\n"
                                                        "out = torch.full((1,), 1234.0, device='cuda')\n"
                                                        "keep.update(x=x, out=out)\n"
                                                        "result = f'{x.data_ptr()} {out.data_ptr()}'\n"));
  LaunchConfig config;
  config.grid_fn = [](const GridMeta& meta) { return Grid(cdiv(100000, meta["BLOCK"])); };
  k(config, f32(p[0], n * 4), f32(p[1], 4), n);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(k.stats().tunings, 1u);
  EXPECT_EQ(run_python("s = keep['x'].double().sum().item()\n"
                       "result = abs(keep['out'].item() - s) < 1e-4 * s\n"),
            "True")
      << run_python("result = f\"{keep['out'].item()} vs {keep['x'].double().sum().item()}\"\n");
}

// A Config's pre_hook runs before every launch with that config, the cached ones too: each of
// three launches starts from zero, so the result is one sum, not three.
TEST_F(GpuDecorators, ConfigPreHookRunsBeforeEveryLaunch) {
  auto& k = hooks_fn("config_zeroing_kernel");
  const int n = 100000;
  const std::vector<uintptr_t> p = addresses(run_python("x = torch.rand(100000, device='cuda')\n"
                                                        "out = torch.full((1,), 1234.0, device='cuda')\n"
                                                        "keep.update(x=x, out=out)\n"
                                                        "result = f'{x.data_ptr()} {out.data_ptr()}'\n"));
  LaunchConfig config;
  config.grid_fn = [](const GridMeta& meta) { return Grid(cdiv(100000, meta["BLOCK"])); };
  for (int i = 0; i < 3; ++i) k(config, f32(p[0], n * 4), f32(p[1], 4), n);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(k.stats().tunings, 1u);
  EXPECT_EQ(run_python("s = keep['x'].double().sum().item()\n"
                       "result = abs(keep['out'].item() - s) < 1e-4 * s\n"),
            "True")
      << run_python("result = f\"{keep['out'].item()} vs {keep['x'].double().sum().item()}\"\n");
}

// On a stream other than torch's current one, the hooks' tensor work is ordered with the
// kernels: torch's current stream is the launch's while a hook runs.
TEST_F(GpuDecorators, HooksRunOnTheLaunchsStream) {
  auto& k = hooks_fn("config_zeroing_kernel");
  const int n = 1 << 22;
  const std::vector<uintptr_t> p = addresses(run_python("x = torch.rand(1 << 22, device='cuda')\n"
                                                        "out = torch.full((1,), 1234.0, device='cuda')\n"
                                                        "keep.update(x=x, out=out)\n"
                                                        "result = f'{x.data_ptr()} {out.data_ptr()}'\n"));
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  LaunchConfig config;
  config.stream = reinterpret_cast<CUstream_st*>(stream);
  config.grid_fn = [](const GridMeta& meta) { return Grid(cdiv(1 << 22, meta["BLOCK"])); };
  for (int i = 0; i < 5; ++i) k(config, f32(p[0], n * 4), f32(p[1], 4), n);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  EXPECT_EQ(run_python("s = keep['x'].double().sum().item()\n"
                       "result = abs(keep['out'].item() - s) < 1e-4 * s\n"),
            "True")
      << run_python("result = f\"{keep['out'].item()} vs {keep['x'].double().sum().item()}\"\n");
}

// TFLOP/s of a persistent matmul over host tensor descriptors (tests/gpu/kernels/host_descriptors.py,
// launched by libtriton_jit with TensorDescriptors from triton_jit::torch::from_tensor) against
// torch.matmul (cuBLAS) on the same inputs: C = A @ B.T, A (M x K), B (N x K), fp16 and bf16.
// Each kernel is warmed up, then timed with CUDA events over batches of launches, the two
// alternating batch by batch; the median batch gives the rate. Results are checked against
// torch.matmul before timing.
//
//   descriptor_matmul_bench [--kernels DIR] [--batch N] [--batches N] [--out FILE.md]
//
// Without a GPU (or on one older than sm_90) it prints a note and exits 0.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAFunctions.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "triton_jit/torch/tensor_descriptor.h"
#include "triton_jit/triton_jit.h"

#ifndef TRITON_JIT_GPU_KERNELS_DIR
#define TRITON_JIT_GPU_KERNELS_DIR "tests/gpu/kernels"
#endif

namespace {

struct Config {
  int bm, bn, bk, warps, stages;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Milliseconds of one batch of `batch` calls, on the current stream.
double time_batch(const std::function<void()>& fn, int batch) {
  at::cuda::CUDAEvent start(cudaEventDefault), stop(cudaEventDefault);
  const auto stream = at::cuda::getCurrentCUDAStream();
  start.record(stream);
  for (int i = 0; i < batch; ++i) fn();
  stop.record(stream);
  stop.synchronize();
  return start.elapsed_time(stop);
}

}  // namespace

int main(int argc, char** argv) {
  std::string kernels = TRITON_JIT_GPU_KERNELS_DIR, out_path;
  int batch = 10, batches = 15;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--kernels")) kernels = argv[i + 1];
    if (!std::strcmp(argv[i], "--batch")) batch = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--batches")) batches = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--out")) out_path = argv[i + 1];
  }
  if (!at::cuda::is_available() || at::cuda::getCurrentDeviceProperties()->major < 9) {
    std::printf("descriptor_matmul_bench: needs an sm_90 (Hopper) GPU; none here\n");
    return 0;
  }
  const cudaDeviceProp* prop = at::cuda::getCurrentDeviceProperties();
  const int sms = prop->multiProcessorCount;
  auto& mm = triton_jit::TritonJitFunction::get(kernels + "/host_descriptors.py", "matmul_persistent_desc_kernel");
  std::string md =
      "| dtype | M = N = K | config (BM, BN, BK, warps, stages) | libtriton_jit TFLOP/s | torch.matmul TFLOP/s "
      "| ratio |\n| --- | ---: | --- | ---: | ---: | ---: |\n";
  for (const at::ScalarType dtype : {at::kHalf, at::kBFloat16}) {
    for (const int size : {4096, 8192}) {
      const int M = size, N = size, K = size;
      const auto opts = at::TensorOptions().dtype(dtype).device(at::kCUDA);
      const at::Tensor a = at::randn({M, K}, opts), b = at::randn({N, K}, opts);
      at::Tensor c = at::empty({M, N}, opts), c_torch = at::empty({M, N}, opts);
      for (const Config cfg : {Config{128, 128, 64, 8, 4}, Config{128, 256, 64, 8, 3}}) {
        const triton_jit::TensorDescriptor ad = triton_jit::torch::from_tensor(a, {cfg.bm, cfg.bk});
        const triton_jit::TensorDescriptor bd = triton_jit::torch::from_tensor(b, {cfg.bn, cfg.bk});
        const triton_jit::TensorDescriptor cd = triton_jit::torch::from_tensor(c, {cfg.bm, cfg.bn});
        triton_jit::LaunchConfig config;
        config.grid = {sms};
        config.num_warps = cfg.warps;
        config.num_stages = cfg.stages;
        config.stream = at::cuda::getCurrentCUDAStream().stream();
        auto ours = [&] { mm(config, ad, bd, cd, M, N, K, cfg.bm, cfg.bn, cfg.bk, 8, sms); };
        auto theirs = [&] { at::matmul_out(c_torch, a, b.t()); };
        const std::string label = std::to_string(cfg.bm) + ", " + std::to_string(cfg.bn) + ", " +
                                  std::to_string(cfg.bk) + ", " + std::to_string(cfg.warps) + ", " +
                                  std::to_string(cfg.stages);
        try {
          ours();
          theirs();
          c10::cuda::device_synchronize();
        } catch (const triton_jit::Error& e) {
          md += "| " + std::string(c10::toString(dtype)) + " | " + std::to_string(size) + " | " + label +
                " | does not run: " + e.what() + " | | |\n";
          continue;
        }
        const double err =
            ((c.to(at::kFloat) - c_torch.to(at::kFloat)).norm() / c_torch.to(at::kFloat).norm()).item<double>();
        if (!(err < 1e-2)) {
          std::fprintf(stderr, "descriptor_matmul_bench: wrong result (relative error %g)\n", err);
          return 1;
        }
        for (int w = 0; w < 3; ++w) {
          time_batch(ours, batch);
          time_batch(theirs, batch);
        }
        std::vector<double> t_ours, t_theirs;
        for (int r = 0; r < batches; ++r) {
          t_ours.push_back(time_batch(ours, batch) / batch);
          t_theirs.push_back(time_batch(theirs, batch) / batch);
        }
        const double flop = 2.0 * M * N * K;
        const double ours_tf = flop / (median(t_ours) * 1e-3) / 1e12;
        const double theirs_tf = flop / (median(t_theirs) * 1e-3) / 1e12;
        char line[256];
        std::snprintf(line, sizeof line, "| %s | %d | %s | %.0f | %.0f | %.2f |\n", c10::toString(dtype), size,
                      label.c_str(), ours_tf, theirs_tf, ours_tf / theirs_tf);
        md += line;
      }
    }
  }
  std::string head = std::string("Device: ") + prop->name + " (" + std::to_string(sms) + " SMs)\n\n";
  std::printf("%s%s", head.c_str(), md.c_str());
  if (!out_path.empty()) std::ofstream(out_path) << head << md;
  return 0;
}

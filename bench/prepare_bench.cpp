// prepare() of N distinct matmul specializations (block sizes x num_warps), timed. Run twice by
// bench/run-prepare-bench.sh, with --jobs 1 and with one job per core, each in a fresh process
// with empty caches, so that every kernel is a real compile.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "triton_jit/triton_jit.h"

int main(int argc, char** argv) {
  int jobs = 0, count = 32;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--jobs") == 0) jobs = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--count") == 0) count = std::atoi(argv[i + 1]);
  }
  try {
    auto& fn = triton_jit::TritonJitFunction::get(TRITON_JIT_BENCH_KERNELS_DIR "/prepare_matmul.py", "matmul_kernel");
    const triton_jit::TypedPtr a{reinterpret_cast<void*>(0x100000), triton_jit::DType::fp16};
    const triton_jit::TypedPtr b{reinterpret_cast<void*>(0x200000), triton_jit::DType::fp16};
    float* c = reinterpret_cast<float*>(0x300000);
    std::vector<triton_jit::KernelRequest> requests;
    for (int warps : {4, 8}) {
      for (int bm : {32, 64, 128}) {
        for (int bn : {32, 64, 128}) {
          for (int bk : {32, 64}) {
            if (static_cast<int>(requests.size()) == count) break;
            triton_jit::LaunchConfig config;
            config.num_warps = warps;
            requests.push_back(
                triton_jit::request(fn, config, a, b, c, 1024, 1024, 1024, 1024, 1024, 1024, bm, bn, bk));
          }
        }
      }
    }
    triton_jit::PrepareOptions options;
    options.jobs = jobs;
    options.load = false;
    options.progress = triton_jit::Progress::Never;
    const triton_jit::PrepareReport r = triton_jit::prepare(requests, options);
    std::printf("kernels=%zu compiled=%zu workers=%d seconds=%.3f\n", r.requested, r.compiled, r.workers, r.seconds);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "prepare_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}

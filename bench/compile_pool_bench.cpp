// The compile worker pool against compiling one after another in this process. Each mode runs
// in a fresh process with empty caches (bench/run-compile-pool-bench.sh), so every kernel really
// compiles; the kernels are the tiled fp16 matmul of bench/kernels/prepare_matmul.py.
//
//   compile_pool_bench prepare --jobs J [--count N]
//       prepare() of N (32) specializations, then of N others in the same process: the first call
//       starts the workers, the second finds them running. Prints first=S second=S workers=W.
//   compile_pool_bench misses --threads T [--count N] --dir DIR [--warm 1]
//       N (16) functions (copies of the matmul under other names, written to DIR), each missed once
//       by compile(): T threads at once, each its own function (T=1: one after another). With
//       --warm 1 the workers are started (start_compile_workers) and booted before the clock
//       starts, as in a server that started them at start-up. Prints seconds=S compiles=C pool_jobs=P
//       and setup_seconds (reading the N functions, and the workers' start with --warm 1).
//   compile_pool_bench lone --dir DIR
//       One miss (each a copy of the same kernel, written to DIR) compiled in this process (Triton
//       warm), on a fresh worker, on a running worker. Prints here_ms=... pool_cold_ms=...
//       pool_warm_ms=...: the rule for a lone miss.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bridge/compile_pool.h"
#include "resolve/resolver.h"
#include "triton_jit/triton_jit.h"

namespace {

const std::string kMatmul = TRITON_JIT_BENCH_KERNELS_DIR "/prepare_matmul.py";
const triton_jit::TypedPtr kA{reinterpret_cast<void*>(0x100000), triton_jit::DType::fp16};
const triton_jit::TypedPtr kB{reinterpret_cast<void*>(0x200000), triton_jit::DType::fp16};
float* const kC = reinterpret_cast<float*>(0x300000);

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const char* option(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  return fallback;
}

// `count` distinct specializations (block shapes x num_warps) at `stages` pipeline stages.
std::vector<triton_jit::KernelRequest> matmul_requests(const triton_jit::TritonJitFunction& fn, int count, int stages) {
  std::vector<triton_jit::KernelRequest> requests;
  for (int warps : {4, 8}) {
    for (int bm : {32, 64, 128}) {
      for (int bn : {32, 64, 128}) {
        for (int bk : {32, 64}) {
          if (static_cast<int>(requests.size()) == count) return requests;
          triton_jit::LaunchConfig config;
          config.num_warps = warps;
          config.num_stages = stages;
          requests.push_back(
              triton_jit::request(fn, config, kA, kB, kC, 1024, 1024, 1024, 1024, 1024, 1024, bm, bn, bk));
        }
      }
    }
  }
  return requests;
}

int run_prepare(int jobs, int count) {
  const auto& fn = triton_jit::TritonJitFunction::get(kMatmul, "matmul_kernel");
  triton_jit::PrepareOptions options;
  options.jobs = jobs;
  options.load = false;
  options.progress = triton_jit::Progress::Never;
  const triton_jit::PrepareReport first = triton_jit::prepare(matmul_requests(fn, count, 3), options);
  const triton_jit::PrepareReport second = triton_jit::prepare(matmul_requests(fn, count, 2), options);
  std::printf("first=%.3f second=%.3f workers=%d compiled=%zu\n", first.seconds, second.seconds, first.workers,
              first.compiled + second.compiled);
  return first.compiled == static_cast<size_t>(count) && second.compiled == static_cast<size_t>(count) ? 0 : 1;
}

// DIR/pool_bench_kernels.py: `count` copies of the matmul named matmul_kernel_0, _1, ...
std::string write_copies(const std::string& dir, int count) {
  std::ifstream in(kMatmul);
  std::stringstream text;
  text << in.rdbuf();
  const std::string source = text.str();
  const std::string def = "def matmul_kernel(";
  const size_t at = source.find("@triton.jit");
  std::string out = source.substr(0, at);
  for (int i = 0; i < count; ++i) {
    std::string copy = source.substr(at);
    copy.replace(copy.find(def), def.size(), "def matmul_kernel_" + std::to_string(i) + "(");
    out += copy + "\n\n";
  }
  const std::string path = dir + "/pool_bench_kernels.py";
  std::ofstream(path) << out;
  return path;
}

int run_misses(int threads, int count, const std::string& dir, bool warm) {
  const auto setup = std::chrono::steady_clock::now();
  const std::string path = write_copies(dir, count);
  std::vector<const triton_jit::TritonJitFunction*> fns;
  for (int i = 0; i < count; ++i) {
    fns.push_back(&triton_jit::TritonJitFunction::get(path, "matmul_kernel_" + std::to_string(i)));
  }
  if (warm) {
    // As a server does at start-up: the workers boot before the first miss.
    triton_jit::start_compile_workers();
    const int want = std::min(triton_jit::compile_workers(), count - 1);
    for (int i = 0; i < 12000 && triton_jit::bridge::compile_pool_status().idle < want; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  triton_jit::LaunchConfig config;
  config.num_warps = 4;
  auto miss = [&](int i) { fns[i]->compile(config, kA, kB, kC, 1024, 1024, 1024, 1024, 1024, 1024, 64, 64, 32); };
  std::atomic<int> failures{0};
  const auto start = std::chrono::steady_clock::now();
  if (threads <= 1) {
    for (int i = 0; i < count; ++i) miss(i);
  } else {
    std::vector<std::thread> pool;
    std::atomic<int> next{0};
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        for (int i = next++; i < count; i = next++) {
          try {
            miss(i);
          } catch (const std::exception& e) {
            std::fprintf(stderr, "compile_pool_bench: %s\n", e.what());
            ++failures;
          }
        }
      });
    }
    for (auto& t : pool) t.join();
  }
  const double s = seconds_since(start);
  uint64_t compiles = 0;
  for (const auto* fn : fns) compiles += fn->stats().compiles;
  std::printf("seconds=%.3f compiles=%llu pool_jobs=%lld threads=%d setup_seconds=%.3f\n", s,
              static_cast<unsigned long long>(compiles),
              static_cast<long long>(triton_jit::bridge::compile_pool_status().jobs), threads,
              std::chrono::duration<double>(start - setup).count());
  return failures == 0 && compiles == static_cast<uint64_t>(count) ? 0 : 1;
}

int run_lone(const std::string& dir) {
  // Six copies of one kernel: each miss is the same compile.
  const std::string path = write_copies(dir, 6);
  auto miss_ms = [&](int i) {
    const auto& fn = triton_jit::TritonJitFunction::get(path, "matmul_kernel_" + std::to_string(i));
    triton_jit::LaunchConfig config;
    config.num_warps = 4;
    const auto start = std::chrono::steady_clock::now();
    fn.compile(config, kA, kB, kC, 1024, 1024, 1024, 1024, 1024, 1024, 64, 64, 32);
    return seconds_since(start) * 1000;
  };
  miss_ms(0);  // Triton warm in this process
  const double here = (miss_ms(1) + miss_ms(2)) / 2;
  // Claiming the interpreter sends the next misses to the pool.
  if (!triton_jit::detail::InterpreterSlot::try_claim()) return 1;
  const double cold = miss_ms(3);
  const double warm = (miss_ms(4) + miss_ms(5)) / 2;
  triton_jit::detail::InterpreterSlot::release();
  std::printf("here_ms=%.1f pool_cold_ms=%.1f pool_warm_ms=%.1f\n", here, cold, warm);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "prepare") {
      return run_prepare(std::atoi(option(argc, argv, "--jobs", "0")), std::atoi(option(argc, argv, "--count", "32")));
    }
    if (mode == "misses") {
      return run_misses(std::atoi(option(argc, argv, "--threads", "16")),
                        std::atoi(option(argc, argv, "--count", "16")), option(argc, argv, "--dir", "."),
                        std::strcmp(option(argc, argv, "--warm", "0"), "1") == 0);
    }
    if (mode == "lone") return run_lone(option(argc, argv, "--dir", "."));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compile_pool_bench: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: compile_pool_bench prepare|misses|lone [options] (see the source's header)\n");
  return 2;
}

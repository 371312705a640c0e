// Host cost of a FlagGems LibEntry kernel's hit launched from C++, against a raw cuLaunchKernel of
// the very cubin LibEntry froze (bench/kernels/libentry_kernels.py: libentry_scale_kernel,
// FlagGems' @libentry() over @triton.autotune over @triton.heuristics, n do_not_specialize):
//
//   libentry_launch_bench [--out FILE.md] [--json FILE.json] [--launches N] [--batch N]
//
// The first launch freezes the key (the layers below LibEntry run once); every timed launch is a
// LibEntry hit: the key built from the arguments and found, the frozen constexprs and launch
// options applied, the grid computed, the kernel launched. Paths: raw cuLaunchKernel (parameters
// packed once, as launch_gpu_bench does), the runtime with a fixed grid, and with a grid_fn
// (cdiv(n, meta["BLOCK"]), as FlagGems writes its grids). One program per launch, batches timed on
// the host clock, the stream synchronized untimed after each; the paths' batches alternate, the
// first path rotating; medians over batches (gpu_launch_common.h). The runtime's counters are
// compared before and after the timed launches: a hit runs no tuner, no heuristic and no Python.
// The kernel index is off for this process, so the key is frozen here.
// bench/run-libentry-bench.sh adds the Python side (FlagGems' own LibEntry.run, triton_jit's
// front end). Without a GPU (or a driver) it says so and exits 0.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "decorated_bench_common.h"
#include "triton_jit/triton_jit.h"

namespace {

using triton_jit::ArgSpan;
using triton_jit::ArgValue;
using triton_jit::cdiv;
using triton_jit::Grid;
using triton_jit::GridMeta;
using triton_jit::KernelInfo;
using triton_jit::LaunchConfig;
using triton_jit::to_arg;
using triton_jit::TritonJitFunction;
using triton_jit_bench::check_cu;
using triton_jit_bench::check_rt;
using triton_jit_bench::fail;
using triton_jit_bench::fmt;
using triton_jit_bench::g_cu;
using triton_jit_bench::json_escape;
using triton_jit_bench::median;
using triton_jit_bench::Packed;
using triton_jit_bench::measure;
using triton_jit_bench::one_program;
using triton_jit_bench::path_of;
using triton_jit_bench::Path;
using triton_jit_bench::RawKernel;
using triton_jit_bench::time_batch;

constexpr int kN = 200;  // one program (BLOCK 256); neither 1 nor a multiple of 16
constexpr float kAlpha = 0.5f;

void check_result(const float* x, const float* y) {
  std::vector<float> hx(kN), hy(kN);
  check_rt(cudaMemcpy(hx.data(), x, kN * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  check_rt(cudaMemcpy(hy.data(), y, kN * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (int i = 0; i < kN; ++i) {
    if (hy[i] != hx[i] * kAlpha) fail("libentry_scale_kernel computed a wrong result at " + std::to_string(i));
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::printf("usage: %s [--out FILE.md] [--json FILE.json] [--launches N] [--batch N]\n"
                  "Host µs per LibEntry hit of a FlagGems-style kernel against a raw cuLaunchKernel of the cubin\n"
                  "LibEntry froze. Needs a GPU.\n",
                  argv[0]);
      return 0;
    }
  }
  const triton_jit_bench::Options opt = triton_jit_bench::parse_options(argc, argv);
  const char* title = "### FlagGems LibEntry: a hit launched from C++\n\n";
  if (triton_jit_bench::report_no_gpu("libentry_launch_bench", opt, title)) return 0;

  try {
    triton_jit::set_index_dir(std::string());  // the key is frozen by this process's first launch
    const triton_jit_bench::Device device = triton_jit_bench::open_device();
    const std::string file = std::string(TRITON_JIT_BENCH_KERNELS_DIR) + "/libentry_kernels.py";

    std::vector<float> host(kN);
    for (int i = 0; i < kN; ++i) host[i] = static_cast<float>(i % 97) * 0.25f;
    float* x = nullptr;
    float* y = nullptr;
    check_rt(cudaMalloc(reinterpret_cast<void**>(&x), kN * sizeof(float)), "cudaMalloc");
    check_rt(cudaMalloc(reinterpret_cast<void**>(&y), kN * sizeof(float)), "cudaMalloc");
    check_rt(cudaMemcpy(x, host.data(), kN * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    check_rt(cudaMemset(y, 0, kN * sizeof(float)), "cudaMemset");
    const int32_t n = kN;
    const float alpha = kAlpha;

    const TritonJitFunction& fn = TritonJitFunction::get(file, "libentry_scale_kernel");
    auto with_grid_fn = [&] {
      LaunchConfig config;
      config.grid_fn = [n](const GridMeta& meta) { return Grid(cdiv(n, meta["BLOCK"])); };
      fn(config, x, y, n, alpha);
    };
    with_grid_fn();  // the key's first call: the layers below LibEntry run, their choice is frozen
    check_rt(cudaDeviceSynchronize(), "first launch");
    check_result(x, y);

    const std::vector<ArgValue> args = {to_arg(x), to_arg(y), to_arg(n), to_arg(alpha)};
    RawKernel raw(fn, args);
    const triton_jit::Stats before = fn.stats();
    std::vector<Path> paths = {path_of([&] { raw(); }), path_of([&] { fn(one_program(), x, y, n, alpha); }),
                               path_of(with_grid_fn)};
    const std::vector<double> us = measure(paths, opt.launches, opt.batch);
    check_rt(cudaDeviceSynchronize(), "timed launches");
    check_result(x, y);
    const triton_jit::Stats after = fn.stats();
    const unsigned long long python_calls = (after.heuristic_python_calls - before.heuristic_python_calls) +
                                            (after.python_wrapper_calls - before.python_wrapper_calls);
    const unsigned long long tunings = after.tunings - before.tunings;
    const unsigned long long misses = after.misses - before.misses;

    const cudaDeviceProp& prop = device.prop;
    const int dv = device.driver_version;
    const std::string triton = triton_jit::triton_version();
    const int batches = std::max(1, opt.launches / opt.batch);
    std::ostringstream md;
    md << title << "Device: " << prop.name << " (sm_" << prop.major << prop.minor << "), CUDA driver " << dv / 1000
       << "." << (dv % 1000) / 10 << "; Triton " << triton << "; " << triton_jit_bench::today() << "\n\n";
    md << "Host µs per launch of `libentry_scale_kernel` (FlagGems' `@libentry()` over `@triton.autotune` over "
          "`@triton.heuristics`, `n` do_not_specialize; 4 runtime parameters), every timed launch a LibEntry hit; "
          "one program per launch on the default stream, median of "
       << batches << " batches of " << opt.batch
       << " launches per path (paths alternating); raw = cuLaunchKernel of the cubin LibEntry froze "
          "(target: ratio ≤ 1.10).\n\n";
    md << "| path | µs per launch | ratio to raw |\n|---|---:|---:|\n";
    md << "| raw cuLaunchKernel | " << fmt("%.3f", us[0]) << " | 1.000 |\n";
    md << "| libtriton_jit, fixed grid | " << fmt("%.3f | %.3f", us[1], us[1] / us[0]) << " |\n";
    md << "| libtriton_jit, grid_fn | " << fmt("%.3f | %.3f", us[2], us[2] / us[0]) << " |\n";
    md << "\nFrozen: " << raw.chosen << ". During the timed launches: " << misses << " misses, " << tunings
       << " tunings, " << python_calls << " Python calls (heuristics, wrappers): expected 0 each.\n";
    std::printf("%s", md.str().c_str());
    triton_jit_bench::write_file(opt.out, md.str());

    std::ostringstream js;
    js << "{\n  \"device\": \"" << json_escape(prop.name) << "\",\n  \"arch\": \"sm_" << prop.major << prop.minor
       << "\",\n  \"driver_version\": " << dv << ",\n  \"triton_version\": \"" << json_escape(triton)
       << "\",\n  \"date\": \"" << triton_jit_bench::today() << "\",\n  \"launches\": " << batches * opt.batch
       << ",\n  \"batch\": " << opt.batch << ",\n  \"kernel\": \"libentry_scale_kernel\",\n  \"hash\": \""
       << json_escape(raw.hash) << "\",\n  \"chosen\": \"" << json_escape(raw.chosen) << "\""
       << fmt(",\n  \"raw_us\": %.4f,\n  \"jit_us\": %.4f,\n  \"jit_grid_fn_us\": %.4f", us[0], us[1], us[2])
       << ",\n  \"misses\": " << misses << ",\n  \"tunings\": " << tunings << ",\n  \"python_calls\": " << python_calls
       << "\n}\n";
    triton_jit_bench::write_file(opt.json, js.str());
    if (misses != 0 || tunings != 0 || python_calls != 0) {
      std::fprintf(stderr, "libentry_launch_bench: a timed launch was not a Python-free hit\n");
      return 1;
    }
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "libentry_launch_bench: %s\n", ex.what());
    return 1;
  }
  return 0;
}

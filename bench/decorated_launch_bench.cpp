// Host cost of launching @triton.heuristics and @triton.autotune kernels on a real GPU, and the
// time a tuning takes (bench/kernels/decorated_kernels.py):
//
//   decorated_launch_bench [--out FILE.md] [--json FILE.json] [--launches N] [--batch N]
//
// 1. Cached launches, against a raw cuLaunchKernel of the very cubin the runtime chose (from
//    fn.compile(config, args...), parameters packed by hand as launch_gpu_bench does):
//    bias_scale_kernel (three translated heuristics) with a fixed grid; scale_kernel (autotuned
//    over three configs, key n, tuned by a first launch) with a fixed grid and with a grid_fn, as
//    callers write it. One program per launch, batches timed on the host clock, the stream
//    synchronized untimed after each; the paths' batches alternate, the first path rotating;
//    medians over batches (the method of launch_gpu_bench).
// 2. Tuning: matmul_kernel (three configs, key M, N, K) launched with a first key (its configs
//    compiled or read from Triton's cache, then timed), then with a second key of the same
//    specialization (kernels already in memory: the time is the tuning alone).
//
// The kernel index is turned off for this process: a tuning result stored by an earlier run
// would otherwise be reused and nothing would be tuned. bench/run-decorated-bench.sh adds
// Triton's own Python launch of the same kernels (bench/triton_python_decorated.py).
// Without a GPU (or a driver) it says so and exits 0.

#include <algorithm>
#include <chrono>
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
using triton_jit::DType;
using triton_jit::Grid;
using triton_jit::GridMeta;
using triton_jit::KernelInfo;
using triton_jit::LaunchConfig;
using triton_jit::to_arg;
using triton_jit::TritonJitFunction;
using triton_jit::TypedPtr;
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

// Sizes: n <= 256 keeps every config of scale_kernel at one program, so the grid_fn and the
// fixed grid launch the same work. Neither is 1 or a multiple of 16 (Triton's integer hints).
constexpr int kN = 200;
constexpr float kScale = 0.5f;

struct Row {
  std::string id, kernel, grid;
  int runtime_params = 0;
  double raw_us = 0, jit_us = 0;
  std::string hash, chosen;
};

struct Tuning {
  int m0 = 0, m = 0, n = 0, k = 0;
  double first_ms = 0, tune_ms = 0;  // first key (compiles included); second key (tuning alone)
  unsigned long long first_compiles = 0, tune_compiles = 0;
  std::string chosen;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void copy_out(std::vector<float>& host, const float* dev) {
  check_rt(cudaMemcpy(host.data(), dev, host.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
}

// Both kernels compute out = x * scale (+ bias): check the library's launch against the host.
void check_results(const float* x, const float* bias, const float* out, const float* y) {
  std::vector<float> hx(kN), hb(kN), ho(kN), hy(kN);
  copy_out(hx, x);
  copy_out(hb, bias);
  copy_out(ho, out);
  copy_out(hy, y);
  for (int i = 0; i < kN; ++i) {
    if (std::fabs(ho[i] - (hx[i] * kScale + hb[i])) > 1e-5f * (1 + std::fabs(ho[i])))
      fail("bias_scale_kernel computed a wrong result at " + std::to_string(i));
    if (hy[i] != hx[i] * kScale) fail("scale_kernel computed a wrong result at " + std::to_string(i));
  }
}

Tuning measure_tuning(const std::string& file) {
  const TritonJitFunction& mm = TritonJitFunction::get(file, "matmul_kernel");
  Tuning t;
  // Two keys of one specialization (every size a multiple of 16): the second finds all three
  // kernels in memory, so its launch is the tuning alone.
  t.m0 = 512;
  t.m = t.n = t.k = 1024;
  const size_t elems = static_cast<size_t>(t.m) * t.k;
  void* buf[3] = {};
  for (void*& b : buf) {
    check_rt(cudaMalloc(&b, elems * 2), "cudaMalloc");
    check_rt(cudaMemset(b, 0, elems * 2), "cudaMemset");  // 0x3C00 would be 1.0; zeros time the same
  }
  auto launch = [&](int m) {
    LaunchConfig config;
    const int n = t.n;
    config.grid_fn = [m, n](const GridMeta& meta) { return Grid(cdiv(m, meta["BLOCK_M"]), cdiv(n, meta["BLOCK_N"])); };
    const auto stats0 = mm.stats();
    const auto t0 = std::chrono::steady_clock::now();
    mm(config, TypedPtr{buf[0], DType::fp16}, TypedPtr{buf[1], DType::fp16}, TypedPtr{buf[2], DType::fp16}, m, t.n, t.k,
       t.k, t.n, t.n);
    check_rt(cudaDeviceSynchronize(), "matmul_kernel");
    const double ms = ms_since(t0);
    const auto stats1 = mm.stats();
    if (stats1.tunings != stats0.tunings + 1) fail("matmul_kernel: a new tuning key did not tune");
    return std::make_pair(ms, static_cast<unsigned long long>(stats1.compiles - stats0.compiles));
  };
  std::tie(t.first_ms, t.first_compiles) = launch(t.m0);
  std::tie(t.tune_ms, t.tune_compiles) = launch(t.m);
  const std::vector<ArgValue> args = {to_arg(TypedPtr{buf[0], DType::fp16}),
                                      to_arg(TypedPtr{buf[1], DType::fp16}),
                                      to_arg(TypedPtr{buf[2], DType::fp16}),
                                      to_arg(t.m),
                                      to_arg(t.n),
                                      to_arg(t.k),
                                      to_arg(t.k),
                                      to_arg(t.n),
                                      to_arg(t.n)};
  LaunchConfig config;
  config.grid = Grid(1);
  const triton_jit::Specialization spec = mm.specialize(config, ArgSpan{args.data(), args.size()});
  for (size_t i = args.size(); i < spec.params.size(); ++i)
    t.chosen += mm.signature().params[i].name + "=" + spec.params[i].value_repr + ", ";
  t.chosen += "num_warps=" + std::to_string(spec.num_warps) + ", num_stages=" + std::to_string(spec.num_stages);
  for (void* b : buf) cudaFree(b);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::printf("usage: %s [--out FILE.md] [--json FILE.json] [--launches N] [--batch N]\n"
                  "Host µs per cached launch of a @triton.heuristics and an @triton.autotune kernel against a raw\n"
                  "cuLaunchKernel of the same cubin, and the tuning time of a 3-config matmul. Needs a GPU.\n",
                  argv[0]);
      return 0;
    }
  }
  const triton_jit_bench::Options opt = triton_jit_bench::parse_options(argc, argv);
  const char* title = "# libtriton_jit: decorated kernels\n\n";
  if (triton_jit_bench::report_no_gpu("decorated_launch_bench", opt, title)) return 0;

  try {
    triton_jit::set_index_dir(std::string());  // no stored tuning results: every key tunes here
    const triton_jit_bench::Device device = triton_jit_bench::open_device();
    const std::string file = std::string(TRITON_JIT_BENCH_KERNELS_DIR) + "/decorated_kernels.py";

    std::vector<float> host(kN);
    for (int i = 0; i < kN; ++i) host[i] = static_cast<float>(i % 97) * 0.25f;
    float* buf[4] = {};  // x, bias, out, y
    for (float*& b : buf) {
      check_rt(cudaMalloc(reinterpret_cast<void**>(&b), kN * sizeof(float)), "cudaMalloc");
      check_rt(cudaMemcpy(b, host.data(), kN * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    float* const x = buf[0];
    float* const bias = buf[1];
    float* const out = buf[2];
    float* const y = buf[3];
    const int32_t n = kN;
    const float scale = kScale;

    const TritonJitFunction& heur = TritonJitFunction::get(file, "bias_scale_kernel");
    const TritonJitFunction& tuned = TritonJitFunction::get(file, "scale_kernel");
    const std::vector<ArgValue> heur_args = {to_arg(x), to_arg(bias), to_arg(out), to_arg(n), to_arg(scale)};
    const std::vector<ArgValue> tuned_args = {to_arg(x), to_arg(y), to_arg(n), to_arg(scale)};

    // First launches: compiles (or Triton's cache), and scale_kernel's tuning for key n.
    const auto c0 = std::chrono::steady_clock::now();
    heur(one_program(), x, bias, out, n, scale);
    tuned(one_program(), x, y, n, scale);
    check_rt(cudaDeviceSynchronize(), "first launches");
    const double first_ms = ms_since(c0);
    check_results(x, bias, out, y);

    RawKernel raw_heur(heur, heur_args);
    RawKernel raw_tuned(tuned, tuned_args);
    std::vector<Path> hp = {path_of([&] { raw_heur(); }),
                            path_of([&] { heur(one_program(), x, bias, out, n, scale); })};
    const std::vector<double> h = measure(hp, opt.launches, opt.batch);
    // As callers write it: grid = lambda meta: (triton.cdiv(n, meta['BLOCK']),), built per call.
    auto with_grid_fn = [&] {
      LaunchConfig config;
      config.grid_fn = [n](const GridMeta& meta) { return Grid(cdiv(n, meta["BLOCK"])); };
      tuned(config, x, y, n, scale);
    };
    std::vector<Path> tp = {path_of([&] { raw_tuned(); }), path_of([&] { tuned(one_program(), x, y, n, scale); }),
                            path_of(with_grid_fn)};
    const std::vector<double> a = measure(tp, opt.launches, opt.batch);
    check_rt(cudaDeviceSynchronize(), "timed launches");
    // Reported, not fatal: the timings stand either way, and the note says if the hot path was not Python-free.
    const unsigned long long python_calls = heur.stats().heuristic_python_calls;
    const unsigned long long tunings = tuned.stats().tunings;

    const int hp_params = raw_heur.runtime_params, tp_params = raw_tuned.runtime_params;
    const std::vector<Row> rows = {
        {"heuristics", "bias_scale_kernel", "(1,)", hp_params, h[0], h[1], raw_heur.hash, raw_heur.chosen},
        {"autotune", "scale_kernel", "(1,)", tp_params, a[0], a[1], raw_tuned.hash, raw_tuned.chosen},
        {"autotune_grid_fn", "scale_kernel", "grid_fn", tp_params, a[0], a[2], raw_tuned.hash, raw_tuned.chosen},
    };
    // A failed tuning measurement must not discard the launch table: it is reported instead.
    Tuning tuning;
    std::string tuning_error;
    try {
      tuning = measure_tuning(file);
    } catch (const std::exception& ex) {
      tuning_error = ex.what();
      std::fprintf(stderr, "decorated_launch_bench: tuning: %s\n", ex.what());
    }

    const cudaDeviceProp& prop = device.prop;
    const int dv = device.driver_version;
    const std::string triton = triton_jit::triton_version();
    std::ostringstream md;
    md << title << "Device: " << prop.name << " (sm_" << prop.major << prop.minor << "), CUDA driver " << dv / 1000
       << "." << (dv % 1000) / 10 << "; Triton " << triton << "; " << triton_jit_bench::today() << "\n\n";
    md << "Host µs per cached launch, one program per launch on the default stream, median of "
       << std::max(1, opt.launches / opt.batch) << " batches of " << opt.batch
       << " launches per path (paths alternating); raw = cuLaunchKernel of the cubin the decorators chose.\n\n";
    md << "| kernel | grid | raw cuLaunchKernel µs | libtriton_jit µs | ratio |\n|---|---|---:|---:|---:|\n";
    for (const Row& r : rows) {
      md << "| " << r.kernel << " (" << r.id << ", " << r.runtime_params << " params) | " << r.grid << " | "
         << fmt("%.3f | %.3f | %.3f", r.raw_us, r.jit_us, r.jit_us / r.raw_us) << " |\n";
    }
    md << "\nChosen: bias_scale_kernel " << raw_heur.chosen << "; scale_kernel " << raw_tuned.chosen
       << fmt(". First launches (compile or cache read, tuning): %.0f ms. Heuristics run through Python: ", first_ms)
       << python_calls << " (expected 0); scale_kernel tunings: " << tunings << " (expected 1).\n";
    if (tuning_error.empty()) {
      md << "\nTuning matmul_kernel (3 configs, key M, N, K), M=N=K=" << tuning.m << ": "
         << fmt("%.1f ms with its kernels in memory; the first key (M=", tuning.tune_ms) << tuning.m0
         << fmt(") took %.1f ms, compiles or cache reads included (", tuning.first_ms) << tuning.first_compiles
         << " compiles). Chose " << tuning.chosen << ".\n";
    } else {
      md << "\nTuning not measured: " << tuning_error << "\n";
    }
    std::printf("%s", md.str().c_str());
    triton_jit_bench::write_file(opt.out, md.str());

    std::ostringstream js;
    js << "{\n  \"device\": \"" << json_escape(prop.name) << "\",\n  \"arch\": \"sm_" << prop.major << prop.minor
       << "\",\n  \"driver_version\": " << dv << ",\n  \"triton_version\": \"" << json_escape(triton)
       << "\",\n  \"date\": \"" << triton_jit_bench::today()
       << "\",\n  \"launches\": " << std::max(1, opt.launches / opt.batch) * opt.batch
       << ",\n  \"batch\": " << opt.batch << ",\n  \"first_launches_ms\": " << fmt("%.1f", first_ms)
       << ",\n  \"heuristic_python_calls\": " << python_calls << ",\n  \"tunings\": " << tunings
       << ",\n  \"rows\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      js << "    {\"id\": \"" << r.id << "\", \"kernel\": \"" << r.kernel << "\", \"grid\": \"" << r.grid
         << "\", \"runtime_params\": " << r.runtime_params
         << fmt(", \"raw_us\": %.4f, \"jit_us\": %.4f", r.raw_us, r.jit_us) << ", \"hash\": \"" << json_escape(r.hash)
         << "\", \"chosen\": \"" << json_escape(r.chosen) << "\"}" << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    js << "  ]";
    if (!tuning_error.empty())
      js << ",\n  \"tuning_error\": \"" << json_escape(tuning_error) << "\"\n}\n";
    else
      js << ",\n  \"tuning\": {\"kernel\": \"matmul_kernel\", \"configs\": 3, \"m0\": " << tuning.m0
         << ", \"m\": " << tuning.m << ", \"n\": " << tuning.n << ", \"k\": " << tuning.k
         << fmt(", \"first_ms\": %.2f, \"tune_ms\": %.2f", tuning.first_ms, tuning.tune_ms)
         << ", \"first_compiles\": " << tuning.first_compiles << ", \"tune_compiles\": " << tuning.tune_compiles
         << ", \"chosen\": \"" << json_escape(tuning.chosen) << "\"}\n}\n";
    triton_jit_bench::write_file(opt.json, js.str());
    if (!tuning_error.empty()) return 1;
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "decorated_launch_bench: %s\n", ex.what());
    return 1;
  }
  return 0;
}

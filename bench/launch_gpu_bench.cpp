// Host cost of a launch on a real GPU: a raw cuLaunchKernel loop over the very cubin libtriton_jit
// compiled, against libtriton_jit's cached fn(config, args...), for kernels of 4 and 14 runtime
// parameters (bench/kernels/launch_kernels.py).
//
//   launch_gpu_bench [--out FILE.md] [--json FILE.json] [--launches N] [--batch N]
//
// Each path runs N launches (default 20000) of a one-program grid on the legacy default stream,
// in batches (default 1000): a batch is timed on the host clock from its first launch to the
// return of its last (no synchronization inside), then the stream is synchronized untimed, so
// the launch queue never fills and the GPU never sets the pace. Batches of the two paths
// alternate; the reported figure is the median over batches of the time per launch.
// bench/run-gpu-bench.sh adds Triton's own Python launch of the same kernels to the table.
//
// Without a GPU (or a driver) it says so and exits 0.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "../tests/support/launch_metadata.h"
#include "gpu_launch_common.h"
#include "triton_jit/triton_jit.h"

namespace {

using triton_jit::ArgSpan;
using triton_jit::ArgValue;
using triton_jit::KernelInfo;
using triton_jit::LaunchConfig;
using triton_jit::TritonJitFunction;
using triton_jit_bench::check_cu;
using triton_jit_bench::check_rt;
using triton_jit_bench::fail;
using triton_jit_bench::g_cu;
using triton_jit_bench::json_escape;
using triton_jit_bench::median;
using triton_jit_bench::Packed;
using triton_jit_bench::time_batch;
using triton_jit_bench::today;
using triton_jit_bench::write_file;

struct Case {
  std::string label;  // "add_kernel"
  const TritonJitFunction* fn = nullptr;
  std::vector<ArgValue> args;
  int expected_runtime_params = 0;
  // Results
  int runtime_params = 0;
  std::string hash;  // Triton's hash of the compiled kernel
  double raw_us = 0, jit_us = 0;
};

LaunchConfig one_program() {
  LaunchConfig c;
  c.grid = triton_jit::Grid(1);
  c.num_warps = 4;
  return c;
}

// `ours` is the user's call, fn(config, args...), with the case's arguments as C++ values.
template <typename Ours>
void run_case(Case& c, int launches, int batch, Ours&& ours) {
  const TritonJitFunction& fn = *c.fn;
  const LaunchConfig config = one_program();
  const ArgSpan span{c.args.data(), c.args.size()};

  // The kernel libtriton_jit launches for these arguments, and which parameters stay runtime ones.
  const KernelInfo& info = fn.compile(config, span);
  c.hash = info.hash;
  const triton_jit::Specialization spec = fn.specialize(config, span);
  Packed packed;
  for (size_t i = 0; i < spec.params.size(); ++i) {
    if (spec.params[i].type == "constexpr") continue;
    packed.push(c.args[i], spec.params[i].type);
  }
  c.runtime_params = packed.count;
  if (c.runtime_params != c.expected_runtime_params) {
    fail(c.label + ": " + std::to_string(c.runtime_params) + " runtime parameters, expected " +
         std::to_string(c.expected_runtime_params) + " (signature " + spec.signature() + ")");
  }
  for (size_t s = 0; s < triton_jit::test::launch_metadata(info).scratch_params.size(); ++s) {
    const CUdeviceptr null = 0;
    packed.push(&null, sizeof null);
  }
  if (triton_jit::test::launch_metadata(info).global_scratch_size > 0 ||
      triton_jit::test::launch_metadata(info).profile_scratch_size > 0) {
    fail(c.label + ": the kernel needs scratch memory; the raw loop would pass null");
  }

  CUmodule module = nullptr;
  CUfunction function = nullptr;
  check_cu(g_cu.ModuleLoadData(&module, info.cubin.data()), "cuModuleLoadData");
  check_cu(g_cu.ModuleGetFunction(&function, module, info.name.c_str()), "cuModuleGetFunction");
  const unsigned block_x = static_cast<unsigned>(info.num_warps * info.target.warp_size);
  const unsigned shared = static_cast<unsigned>(info.shared);
  if (shared > 49152) fail(c.label + ": kernel needs the >48 KiB shared memory opt-in; not handled here");

  auto raw = [&] {
    check_cu(g_cu.LaunchKernel(function, 1, 1, 1, block_x, 1, 1, shared, nullptr, packed.params, nullptr),
             "cuLaunchKernel");
  };

  // Warm-up: module load in the library, caches, clocks.
  for (int w = 0; w < 2; ++w) {
    time_batch(batch, raw);
    time_batch(batch, ours);
  }
  check_rt(cudaGetLastError(), "kernel launch");

  std::vector<double> raw_t, ours_t;
  const int reps = std::max(1, launches / batch);
  for (int r = 0; r < reps; ++r) {
    // Alternate which goes first so neither always follows a synchronization.
    if (r % 2 == 0) {
      raw_t.push_back(time_batch(batch, raw));
      ours_t.push_back(time_batch(batch, ours));
    } else {
      ours_t.push_back(time_batch(batch, ours));
      raw_t.push_back(time_batch(batch, raw));
    }
  }
  c.raw_us = median(raw_t);
  c.jit_us = median(ours_t);
}

// Both paths compute out = x + y on the first BLOCK elements: check they agree with the host.
void check_add_results(const Case& c, const float* d_x, const float* d_y, float* d_out, int block) {
  std::vector<float> x(block), y(block), out(block);
  check_rt(cudaMemcpy(x.data(), d_x, block * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  check_rt(cudaMemcpy(y.data(), d_y, block * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  check_rt(cudaMemset(d_out, 0, block * sizeof(float)), "cudaMemset");
  c.fn->launch(one_program(), ArgSpan{c.args.data(), c.args.size()});
  check_rt(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  check_rt(cudaMemcpy(out.data(), d_out, block * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (int i = 0; i < block; ++i) {
    if (out[i] != x[i] + y[i])
      fail("add_kernel launched through libtriton_jit computed a wrong result at " + std::to_string(i));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const triton_jit_bench::Options opt = triton_jit_bench::parse_options(argc, argv);

  if (triton_jit_bench::report_no_gpu("launch_gpu_bench", opt, "# libtriton_jit launch overhead\n\n")) return 0;

  try {
    const triton_jit_bench::Device device = triton_jit_bench::open_device();
    const cudaDeviceProp& prop = device.prop;
    const int driver_version = device.driver_version;

    constexpr int n = 4096;
    std::vector<float> host(n);
    for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 97) * 0.25f;
    float* buf[6] = {};
    for (float*& b : buf) {
      check_rt(cudaMalloc(reinterpret_cast<void**>(&b), n * sizeof(float)), "cudaMalloc");
      check_rt(cudaMemcpy(b, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    using triton_jit::to_arg;
    const std::string file = std::string(TRITON_JIT_BENCH_KERNELS_DIR) + "/launch_kernels.py";

    Case add;
    add.label = "add_kernel";
    add.fn = &TritonJitFunction::get(file, "add_kernel");
    add.args = {to_arg(buf[0]), to_arg(buf[1]), to_arg(buf[5]), to_arg(int32_t{n}), to_arg(1024)};
    add.expected_runtime_params = 4;

    Case many;
    many.label = "many_args_kernel";
    many.fn = &TritonJitFunction::get(file, "many_args_kernel");
    many.args = {to_arg(buf[0]),     to_arg(buf[1]), to_arg(buf[2]), to_arg(buf[3]), to_arg(buf[4]),
                 to_arg(int32_t{n}), to_arg(0),      to_arg(2),      to_arg(3),      to_arg(5),
                 to_arg(0.5f),       to_arg(1.5f),   to_arg(2.5f),   to_arg(3.5f),   to_arg(1024)};
    many.expected_runtime_params = 14;

    const auto c0 = std::chrono::steady_clock::now();
    add.fn->launch(one_program(), ArgSpan{add.args.data(), add.args.size()});  // compile + load
    many.fn->launch(one_program(), ArgSpan{many.args.data(), many.args.size()});
    check_rt(cudaDeviceSynchronize(), "first launches");
    const double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count();
    check_add_results(add, buf[0], buf[1], buf[5], 1024);

    const TritonJitFunction& add_fn = *add.fn;
    float* const x = buf[0];
    float* const y = buf[1];
    float* const z = buf[2];
    float* const w = buf[3];
    float* const o = buf[4];
    float* const add_out = buf[5];
    const int32_t size = n;
    run_case(add, opt.launches, opt.batch, [&] { add_fn(one_program(), x, y, add_out, size, 1024); });
    const TritonJitFunction& many_fn = *many.fn;
    run_case(many, opt.launches, opt.batch,
             [&] { many_fn(one_program(), x, y, z, w, o, size, 0, 2, 3, 5, 0.5f, 1.5f, 2.5f, 3.5f, 1024); });
    Case* cases[] = {&add, &many};

    const std::string triton = triton_jit::triton_version();
    std::ostringstream md;
    md << "# libtriton_jit launch overhead\n\n";
    md << "Device: " << prop.name << " (sm_" << prop.major << prop.minor << "), CUDA driver " << driver_version / 1000
       << "." << (driver_version % 1000) / 10 << "; Triton " << triton << "; " << today() << "\n\n";
    md << "Host time per launch, one program per launch on the default stream, median of " << opt.launches / opt.batch
       << " batches of " << opt.batch << " launches (stream synchronized, untimed, after each batch).\n\n";
    md << "| kernel args | raw cuLaunchKernel µs | libtriton_jit µs | ratio |\n";
    md << "|---|---:|---:|---:|\n";
    char line[512];
    for (const Case* c : cases) {
      std::snprintf(line, sizeof line, "| %d runtime params (%s, %zu args) | %.3f | %.3f | %.3f |\n", c->runtime_params,
                    c->label.c_str(), c->args.size(), c->raw_us, c->jit_us, c->jit_us / c->raw_us);
      md << line;
    }
    md << "\n(first launches, Triton compile or cache read included: " << static_cast<int>(compile_ms) << " ms)\n";
    {
      // The one driver call a cached launch makes beside cuLaunchKernel: its cost on its own.
      constexpr int kCalls = 1000000;
      CUcontext ctx = nullptr;
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kCalls; ++i) g_cu.CtxGetCurrent(&ctx);
      const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
                        kCalls;
      std::snprintf(line, sizeof line, "\ncuCtxGetCurrent alone: %.1f ns per call\n", ns);
      md << line;
    }
    std::printf("%s", md.str().c_str());
    write_file(opt.out, md.str());

    std::ostringstream js;
    js << "{\n  \"device\": \"" << json_escape(prop.name) << "\",\n  \"arch\": \"sm_" << prop.major << prop.minor
       << "\",\n  \"driver_version\": " << driver_version << ",\n  \"triton_version\": \"" << json_escape(triton)
       << "\",\n  \"date\": \"" << today() << "\",\n  \"launches\": " << opt.launches << ",\n  \"batch\": " << opt.batch
       << ",\n  \"rows\": [\n";
    for (size_t i = 0; i < 2; ++i) {
      const Case* c = cases[i];
      std::snprintf(line, sizeof line,
                    "    {\"kernel\": \"%s\", \"args\": %zu, \"runtime_params\": %d, \"raw_us\": %.4f, "
                    "\"jit_us\": %.4f, \"hash\": \"%s\"}%s\n",
                    c->label.c_str(), c->args.size(), c->runtime_params, c->raw_us, c->jit_us,
                    json_escape(c->hash).c_str(), i == 0 ? "," : "");
      js << line;
    }
    js << "  ]\n}\n";
    write_file(opt.json, js.str());
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "launch_gpu_bench: %s\n", ex.what());
    return 1;
  }
  return 0;
}

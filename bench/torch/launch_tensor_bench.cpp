// Host cost of a cached launch with at::Tensor arguments, on a real GPU, against a raw
// cuLaunchKernel of the same cubin and the same launch with raw pointers, all measured in one
// process, for the kernels of bench/launch_gpu_bench.cpp (bench/kernels/launch_kernels.py):
// add_kernel (4 runtime parameters, 3 tensors) and many_args_kernel (14, 5 tensors).
//
//   launch_tensor_bench [--out FILE.md] [--json FILE.json] [--launches N] [--batch N]
//
// Paths, each a one-program launch on torch's current stream of cuda:0 (the legacy default
// stream unless something changed it):
//   raw            cuLaunchKernel over KernelInfo::cubin of the kernel the runtime compiled for
//                  these arguments, its parameter array packed once
//   pointers       fn(config, x_ptr, ...), config.stream set
//   tensors        fn(config, x, ...) with at::Tensor arguments, config.stream set
//   torch::launch  triton_jit::torch::launch(fn, config, x, ...): device checks, current stream
//   cudaGetDevice  the same, its device check by cudaGetDevice, as on a host with several visible
//                  GPUs (torch::launch skips that call when one GPU is visible)
//   checked        triton_jit::torch::detail::launch_checked(fn, config, x, ...): the checks with
//                  their messages, a CUDAGuard and the stream lookup on every call (what
//                  torch::launch did before it had a fast path; now its path for tensors on
//                  another device than the current one)
// Each path runs N launches (default 20000) in batches (default 1000): a batch is timed on the
// host clock from its first launch to the return of its last, then the stream is synchronized
// untimed, so the launch queue never fills. After two warm-up batches per path, rounds of one
// batch per path follow, each round starting with the next path; the figure is the median over
// batches of the time per launch. Before timing, every path's result is checked against torch.
// The report also times, alone, the calls a launch makes beside cuLaunchKernel.
//
// Without a GPU (or a driver) it says so, writes a note and exits 0.

#include <ATen/ATen.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/headeronly/version.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "../../tests/support/launch_metadata.h"
#include "../gpu_launch_common.h"
#include "triton_jit/torch/tensor_args.h"

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
using triton_jit_bench::ns_per_call;
using triton_jit_bench::Packed;
using triton_jit_bench::time_batch;
using triton_jit_bench::today;
using triton_jit_bench::write_file;

#define TJB_VSTR2(x) #x
#define TJB_VSTR(x) TJB_VSTR2(x)
constexpr const char* kTorchVersion = TJB_VSTR(TORCH_VERSION_MAJOR) "." TJB_VSTR(TORCH_VERSION_MINOR) "." TJB_VSTR(
    TORCH_VERSION_PATCH);

enum Path { kRaw, kPointers, kTensors, kTorchLaunch, kGetDevice, kChecked, kNumPaths };
constexpr std::array<const char*, kNumPaths> kPathKey = {
    "raw", "pointers", "tensors", "torch_launch", "torch_launch_get_device", "checked"};
constexpr std::array<const char*, kNumPaths> kPathLabel = {
    "raw cuLaunchKernel (same cubin, parameters packed once)",
    "fn(config, pointers...), config.stream set",
    "fn(config, tensors...), config.stream set",
    "triton_jit::torch::launch(fn, config, tensors...)",
    "torch::launch with its cudaGetDevice check (as with several visible GPUs)",
    "checked path: every check, CUDAGuard and stream lookup per call (torch::launch before its fast path)",
};

struct Case {
  std::string label;  // "add_kernel"
  const TritonJitFunction* fn = nullptr;
  std::vector<ArgValue> args;  // the tensor arguments' values: the kernel the runtime launches
  int tensors = 0;
  int expected_runtime_params = 0;
  double target = 0;  // the tensor paths' target ratio to raw
  // Results
  int runtime_params = 0;
  std::string hash, signature;
  std::array<double, kNumPaths> us{};
};

LaunchConfig one_program(cudaStream_t stream) {
  LaunchConfig c;
  c.grid = triton_jit::Grid(1);
  c.num_warps = 4;
  c.stream = stream;
  return c;
}

// The raw loop's launch: the cubin of the kernel the runtime compiled for `c.args`, loaded by
// hand, with the runtime's packing of the same values.
struct RawLaunch {
  CUfunction function = nullptr;
  unsigned block_x = 0, shared = 0;
  Packed packed;
  cudaStream_t stream = nullptr;
  void operator()() {
    check_cu(g_cu.LaunchKernel(function, 1, 1, 1, block_x, 1, 1, shared, reinterpret_cast<CUstream>(stream),
                               packed.params, nullptr),
             "cuLaunchKernel");
  }
};

void prepare_raw(Case& c, const LaunchConfig& config, RawLaunch& raw) {
  const TritonJitFunction& fn = *c.fn;
  const ArgSpan span{c.args.data(), c.args.size()};
  const KernelInfo& info = fn.compile(config, span);
  c.hash = info.hash;
  const triton_jit::Specialization spec = fn.specialize(config, span);
  c.signature = spec.signature();
  raw.stream = config.stream;
  for (size_t i = 0; i < spec.params.size(); ++i) {
    if (spec.params[i].type == "constexpr") continue;
    raw.packed.push(c.args[i], spec.params[i].type);
  }
  c.runtime_params = raw.packed.count;
  if (c.runtime_params != c.expected_runtime_params) {
    fail(c.label + ": " + std::to_string(c.runtime_params) + " runtime parameters, expected " +
         std::to_string(c.expected_runtime_params) + " (signature " + c.signature + ")");
  }
  const auto& meta = triton_jit::test::launch_metadata(info);
  for (size_t s = 0; s < meta.scratch_params.size(); ++s) {
    const CUdeviceptr null = 0;
    raw.packed.push(&null, sizeof null);
  }
  if (meta.global_scratch_size > 0 || meta.profile_scratch_size > 0) {
    fail(c.label + ": the kernel needs scratch memory; the raw loop would pass null");
  }
  CUmodule module = nullptr;
  check_cu(g_cu.ModuleLoadData(&module, info.cubin.data()), "cuModuleLoadData");
  check_cu(g_cu.ModuleGetFunction(&raw.function, module, info.name.c_str()), "cuModuleGetFunction");
  raw.block_x = static_cast<unsigned>(info.num_warps * info.target.warp_size);
  raw.shared = static_cast<unsigned>(info.shared);
  if (raw.shared > 49152) fail(c.label + ": kernel needs the >48 KiB shared memory opt-in; not handled here");
}

// Every path must compute `expected` into `out` (its first `count` elements).
template <typename Launch>
void check_result(const Case& c, const char* path, Launch&& launch, at::Tensor& out, const at::Tensor& expected,
                  int64_t count, cudaStream_t stream) {
  out.zero_();
  check_rt(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  launch();
  check_rt(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (!at::allclose(out.narrow(0, 0, count), expected.narrow(0, 0, count), 1e-5, 1e-5)) {
    fail(c.label + ": the path '" + path + "' computed a wrong result");
  }
}

// Runs the six paths of one case, alternating batch by batch.
template <typename Pointers, typename Tensors, typename TorchLaunch, typename GetDevice, typename Checked>
void run_case(Case& c, RawLaunch& raw, cudaStream_t stream, int launches, int batch, Pointers&& pointers,
              Tensors&& tensors, TorchLaunch&& torch_launch, GetDevice&& get_device, Checked&& checked) {
  auto one_batch = [&](int path) -> double {
    switch (path) {
      case kRaw: return time_batch(batch, raw, stream);
      case kPointers: return time_batch(batch, pointers, stream);
      case kTensors: return time_batch(batch, tensors, stream);
      case kTorchLaunch: return time_batch(batch, torch_launch, stream);
      case kGetDevice: return time_batch(batch, get_device, stream);
      default: return time_batch(batch, checked, stream);
    }
  };
  // Warm-up: module loads, caches, clocks.
  for (int w = 0; w < 2; ++w) {
    for (int p = 0; p < kNumPaths; ++p) one_batch(p);
  }
  check_rt(cudaGetLastError(), "kernel launch");
  std::array<std::vector<double>, kNumPaths> times;
  const int reps = std::max(1, launches / batch);
  for (int r = 0; r < reps; ++r) {
    for (int k = 0; k < kNumPaths; ++k) {
      const int p = (r + k) % kNumPaths;  // each round starts with the next path
      times[p].push_back(one_batch(p));
    }
  }
  for (int p = 0; p < kNumPaths; ++p) c.us[p] = median(times[p]);
}

std::string fmt(const char* format, double a, double b = 0) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, a, b);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  const triton_jit_bench::Options opt = triton_jit_bench::parse_options(argc, argv);
  const char* const title = "# libtriton_jit launch overhead with at::Tensor arguments\n\n";

  if (triton_jit_bench::report_no_gpu("launch_tensor_bench", opt, title)) return 0;

  try {
    const triton_jit_bench::Device device = triton_jit_bench::open_device();
    const cudaDeviceProp& prop = device.prop;
    const int driver_version = device.driver_version;

    // Torch's current stream of cuda:0: what torch::launch picks, given to every other path too.
    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(0).stream();
    const LaunchConfig config = one_program(stream);

    constexpr int64_t n = 4096;
    constexpr int kBlock = 1024;
    const auto opts = at::TensorOptions().dtype(at::kFloat).device(at::kCUDA, 0);
    std::vector<at::Tensor> t;
    for (int i = 0; i < 6; ++i) t.push_back(at::randn({n}, opts));
    const at::Tensor &x = t[0], &y = t[1], &z = t[2], &w = t[3];
    at::Tensor &o = t[4], &add_out = t[5];
    float* const px = x.data_ptr<float>();
    float* const py = y.data_ptr<float>();
    float* const pz = z.data_ptr<float>();
    float* const pw = w.data_ptr<float>();
    float* const po = o.data_ptr<float>();
    float* const padd = add_out.data_ptr<float>();
    const int32_t size = static_cast<int32_t>(n);
    using triton_jit::to_arg;
    const std::string file = std::string(TRITON_JIT_BENCH_KERNELS_DIR) + "/launch_kernels.py";

    Case add;
    add.label = "add_kernel";
    add.fn = &TritonJitFunction::get(file, "add_kernel");
    add.args = {to_arg(x), to_arg(y), to_arg(add_out), to_arg(size), to_arg(kBlock)};
    add.tensors = 3;
    add.expected_runtime_params = 4;
    add.target = 1.05;

    Case many;
    many.label = "many_args_kernel";
    many.fn = &TritonJitFunction::get(file, "many_args_kernel");
    many.args = {to_arg(x), to_arg(y), to_arg(z),    to_arg(w),    to_arg(o),    to_arg(size), to_arg(0),     to_arg(2),
                 to_arg(3), to_arg(5), to_arg(0.5f), to_arg(1.5f), to_arg(2.5f), to_arg(3.5f), to_arg(kBlock)};
    many.tensors = 5;
    many.expected_runtime_params = 14;
    many.target = 1.08;

    const auto c0 = std::chrono::steady_clock::now();
    RawLaunch add_raw, many_raw;
    prepare_raw(add, config, add_raw);  // compiles (or reads the caches) and loads
    prepare_raw(many, config, many_raw);
    const double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count();

    const TritonJitFunction& add_fn = *add.fn;
    const TritonJitFunction& many_fn = *many.fn;
    // Pointers and tensors must select the same kernel.
    for (const auto& [c, ptr_sig] :
         {std::pair<const Case*, std::string>{&add, add_fn.specialize(config, px, py, padd, size, kBlock).signature()},
          std::pair<const Case*, std::string>{
              &many, many_fn.specialize(config, px, py, pz, pw, po, size, 0, 2, 3, 5, 0.5f, 1.5f, 2.5f, 3.5f, kBlock)
                         .signature()}}) {
      if (ptr_sig != c->signature) {
        fail(c->label + ": pointers specialize as " + ptr_sig + ", tensors as " + c->signature);
      }
    }

    auto add_pointers = [&] { add_fn(config, px, py, padd, size, kBlock); };
    auto add_tensors = [&] { add_fn(config, x, y, add_out, size, kBlock); };
    auto add_launch = [&] { triton_jit::torch::launch(add_fn, config, x, y, add_out, size, kBlock); };
    auto add_get_device = [&] {
      triton_jit::torch::detail::launch_on_tensors_device<false>(add_fn, config, x, y, add_out, size, kBlock);
    };
    auto add_checked = [&] { triton_jit::torch::detail::launch_checked(add_fn, config, x, y, add_out, size, kBlock); };
    auto many_pointers = [&] { many_fn(config, px, py, pz, pw, po, size, 0, 2, 3, 5, 0.5f, 1.5f, 2.5f, 3.5f, kBlock); };
    auto many_tensors = [&] { many_fn(config, x, y, z, w, o, size, 0, 2, 3, 5, 0.5f, 1.5f, 2.5f, 3.5f, kBlock); };
    auto many_launch = [&] {
      triton_jit::torch::launch(many_fn, config, x, y, z, w, o, size, 0, 2, 3, 5, 0.5f, 1.5f, 2.5f, 3.5f, kBlock);
    };
    auto many_get_device = [&] {
      triton_jit::torch::detail::launch_on_tensors_device<false>(many_fn, config, x, y, z, w, o, size, 0, 2, 3, 5, 0.5f,
                                                                 1.5f, 2.5f, 3.5f, kBlock);
    };
    auto many_checked = [&] {
      triton_jit::torch::detail::launch_checked(many_fn, config, x, y, z, w, o, size, 0, 2, 3, 5, 0.5f, 1.5f, 2.5f,
                                                3.5f, kBlock);
    };

    // Every path computes the kernel's result.
    const at::Tensor add_ref = x + y;
    const at::Tensor many_ref = x * 0.5 + y * 1.5 + z * 2.5 + w * 3.5 + 10.0;
    check_result(add, "raw", add_raw, add_out, add_ref, kBlock, stream);
    check_result(add, "pointers", add_pointers, add_out, add_ref, kBlock, stream);
    check_result(add, "tensors", add_tensors, add_out, add_ref, kBlock, stream);
    check_result(add, "torch::launch", add_launch, add_out, add_ref, kBlock, stream);
    check_result(add, "cudaGetDevice", add_get_device, add_out, add_ref, kBlock, stream);
    check_result(add, "checked", add_checked, add_out, add_ref, kBlock, stream);
    check_result(many, "raw", many_raw, o, many_ref, kBlock, stream);
    check_result(many, "pointers", many_pointers, o, many_ref, kBlock, stream);
    check_result(many, "tensors", many_tensors, o, many_ref, kBlock, stream);
    check_result(many, "torch::launch", many_launch, o, many_ref, kBlock, stream);
    check_result(many, "cudaGetDevice", many_get_device, o, many_ref, kBlock, stream);
    check_result(many, "checked", many_checked, o, many_ref, kBlock, stream);

    run_case(add, add_raw, stream, opt.launches, opt.batch, add_pointers, add_tensors, add_launch, add_get_device,
             add_checked);
    run_case(many, many_raw, stream, opt.launches, opt.batch, many_pointers, many_tensors, many_launch, many_get_device,
             many_checked);
    Case* cases[] = {&add, &many};

    // What a launch calls beside cuLaunchKernel, each alone.
    struct Call {
      const char* name;
      double ns;
    };
    std::vector<Call> calls;
    {
      constexpr int kCalls = 1000000;
      CUcontext ctx = nullptr;
      int device = -1;
      calls.push_back(
          {"cuCtxGetCurrent (every cached launch)", ns_per_call(kCalls, [&] { g_cu.CtxGetCurrent(&ctx); })});
      calls.push_back({"c10::cuda::device_count() (torch::launch)", ns_per_call(kCalls, [&] {
                         volatile int count = c10::cuda::device_count();
                         (void)count;
                       })});
      calls.push_back({"cudaGetDevice (torch::launch, with more than one visible GPU)",
                       ns_per_call(kCalls, [&] { cudaGetDevice(&device); })});
      calls.push_back({"c10::cuda::getCurrentCUDAStream(0).stream() (torch::launch)", ns_per_call(kCalls, [&] {
                         volatile cudaStream_t s = c10::cuda::getCurrentCUDAStream(0).stream();
                         (void)s;
                       })});
      calls.push_back(
          {"c10::cuda::CUDAGuard on the current device, made and destroyed (checked path)",
           ns_per_call(kCalls / 10, [&] { const c10::cuda::CUDAGuard guard(c10::Device(c10::kCUDA, 0)); })});
    }

    const std::string triton = triton_jit::triton_version();
    std::ostringstream md;
    md << title;
    md << "Device: " << prop.name << " (sm_" << prop.major << prop.minor << "), CUDA driver " << driver_version / 1000
       << "." << (driver_version % 1000) / 10 << ", " << static_cast<int>(c10::cuda::device_count())
       << " visible GPU(s); Triton " << triton << "; torch " << kTorchVersion << "; " << today() << "\n\n";
    md << "Host time per launch, one program per launch on torch's current stream of cuda:0 ("
       << (stream == nullptr ? "the legacy default stream" : "a non-default stream") << "), median of "
       << opt.launches / opt.batch << " batches of " << opt.batch
       << " launches per path; the paths' batches alternate, the stream synchronized (untimed) after each. Raw = "
          "cuLaunchKernel over the cubin of the KernelInfo the runtime compiled for these arguments (the kernel "
          "every path launches), parameters packed once. First launches (compile or cache read): "
       << static_cast<int>(compile_ms) << " ms.\n";
    for (const Case* c : cases) {
      md << "\n### " << c->runtime_params << " runtime params (" << c->label << ", " << c->args.size() << " args, "
         << c->tensors << " tensors; `" << c->signature << "`, Triton hash " << c->hash.substr(0, 12) << ")\n\n";
      md << "| path | µs per launch | ratio to raw |\n|---|---:|---:|\n";
      for (int p = 0; p < kNumPaths; ++p) {
        md << "| " << kPathLabel[p] << " | " << fmt("%.3f", c->us[p]) << " | " << fmt("%.3f", c->us[p] / c->us[kRaw])
           << " |\n";
      }
      md << "\nTensor paths against the target (≤ " << fmt("%.2f", c->target) << " × raw): ";
      for (int p : {kTensors, kTorchLaunch, kGetDevice}) {
        const double ratio = c->us[p] / c->us[kRaw];
        md << (p == kTensors       ? "fn(config, tensors...) "
               : p == kTorchLaunch ? "; torch::launch "
                                   : "; with cudaGetDevice ")
           << fmt("%.3f", ratio) << " " << (ratio <= c->target ? "met" : "missed");
      }
      md << ". Over the pointer path: tensors " << fmt("%+.0f ns", 1000 * (c->us[kTensors] - c->us[kPointers]))
         << ", torch::launch " << fmt("%+.0f ns", 1000 * (c->us[kTorchLaunch] - c->us[kPointers]))
         << ", with cudaGetDevice " << fmt("%+.0f ns", 1000 * (c->us[kGetDevice] - c->us[kPointers]))
         << ", checked path " << fmt("%+.0f ns", 1000 * (c->us[kChecked] - c->us[kPointers])) << ".\n";
    }
    md << "\n### What a launch calls beside cuLaunchKernel, each alone\n\n| call | ns per call |\n|---|---:|\n";
    for (const Call& call : calls) md << "| " << call.name << " | " << fmt("%.1f", call.ns) << " |\n";
    std::printf("%s", md.str().c_str());
    write_file(opt.out, md.str());

    std::ostringstream js;
    js << "{\n  \"device\": \"" << json_escape(prop.name) << "\",\n  \"arch\": \"sm_" << prop.major << prop.minor
       << "\",\n  \"driver_version\": " << driver_version
       << ",\n  \"visible_gpus\": " << static_cast<int>(c10::cuda::device_count()) << ",\n  \"triton_version\": \""
       << json_escape(triton) << "\",\n  \"torch_version\": \"" << kTorchVersion << "\",\n  \"date\": \"" << today()
       << "\",\n  \"launches\": " << opt.launches << ",\n  \"batch\": " << opt.batch
       << ",\n  \"default_stream\": " << (stream == nullptr ? "true" : "false") << ",\n  \"rows\": [\n";
    char line[512];
    for (size_t i = 0; i < 2; ++i) {
      const Case* c = cases[i];
      for (int p = 0; p < kNumPaths; ++p) {
        std::snprintf(line, sizeof line,
                      "    {\"kernel\": \"%s\", \"args\": %zu, \"runtime_params\": %d, \"tensors\": %d, \"path\": "
                      "\"%s\", \"us\": %.4f, \"ratio\": %.4f, \"target\": %.2f, \"hash\": \"%s\"}%s\n",
                      c->label.c_str(), c->args.size(), c->runtime_params, c->tensors, kPathKey[p], c->us[p],
                      c->us[p] / c->us[kRaw], c->target, json_escape(c->hash).c_str(),
                      i == 1 && p == kNumPaths - 1 ? "" : ",");
        js << line;
      }
    }
    js << "  ],\n  \"calls_ns\": {";
    for (size_t i = 0; i < calls.size(); ++i) {
      js << (i ? ", " : "") << "\"" << json_escape(calls[i].name) << "\": " << fmt("%.2f", calls[i].ns);
    }
    js << "}\n}\n";
    write_file(opt.json, js.str());
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "launch_tensor_bench: %s\n", ex.what());
    try {
      write_file(opt.out, std::string(title) + "Failed: " + ex.what() + "\n");
      write_file(opt.json, "{\"error\": \"" + json_escape(ex.what()) + "\"}\n");
    } catch (const std::exception&) {
    }
    return 1;
  }
  return 0;
}

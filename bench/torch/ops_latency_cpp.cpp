// µs per call of triton_jit_ops::add on small tensors (4096 fp32 elements) from C++:
//   dispatcher  c10::Dispatcher's typed handle of triton_jit_ops::add, .call(a, b, 1)
//   direct      the same kernel (add.py's add_kernel) launched by hand: at::empty_like, then
//               triton_jit::torch::launch(fn, config, a, b, out, n, ...), as src/add.cpp does for
//               contiguous inputs of one shape (no dispatcher)
//   at::add     torch eager from C++
// Batches of calls timed with steady_clock (host: to the last call's return; wall: through a
// device synchronize after it), median over batches.
//
//   ops_latency_cpp [--lib libtriton_jit_ops.so] [--kernels DIR] [--calls N] [--batch N] [--json FILE]
//
// The operator library is dlopen'ed (its TORCH_LIBRARY registers the operators), as Python's
// torch.ops.load_library does. Without a GPU it prints a note (and writes {"error": ...}) and
// exits 0.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/cuda/CUDAFunctions.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "triton_jit/torch/tensor_args.h"

#ifndef TRITON_JIT_OPS_LIBRARY
#define TRITON_JIT_OPS_LIBRARY "libtriton_jit_ops.so"
#endif
#ifndef TRITON_JIT_OPS_KERNELS_DIR
#define TRITON_JIT_OPS_KERNELS_DIR "triton_jit_kernels"
#endif

namespace {

struct Result {
  std::string path;
  double host_us = 0, wall_us = 0, host_min_us = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Result time_calls(const std::string& name, const std::function<at::Tensor()>& fn, int batch, int batches) {
  using clock = std::chrono::steady_clock;
  for (int w = 0; w < 2; ++w) {
    for (int i = 0; i < batch; ++i) fn();
    c10::cuda::device_synchronize();
  }
  std::vector<double> host, wall;
  for (int r = 0; r < batches; ++r) {
    const auto t0 = clock::now();
    for (int i = 0; i < batch; ++i) fn();
    const auto t1 = clock::now();
    c10::cuda::device_synchronize();
    const auto t2 = clock::now();
    host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
    wall.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count() / batch);
  }
  return {name, median(host), median(wall), *std::min_element(host.begin(), host.end())};
}

void write_json(const std::string& path, const std::string& text) {
  if (path.empty()) return;
  std::ofstream f(path);
  f << text << "\n";
}

std::string error_json(const std::string& msg) {
  std::ostringstream s;
  s << "{\"error\": \"";
  for (char c : msg) {
    if (c == '"' || c == '\\') s << '\\';
    s << (c == '\n' ? ' ' : c);
  }
  s << "\"}";
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::string lib = TRITON_JIT_OPS_LIBRARY, kernels = TRITON_JIT_OPS_KERNELS_DIR, json;
  int calls = 20000, batch = 1000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--lib")
      lib = next();
    else if (a == "--kernels")
      kernels = next();
    else if (a == "--calls")
      calls = std::stoi(next());
    else if (a == "--batch")
      batch = std::stoi(next());
    else if (a == "--json")
      json = next();
    else {
      std::cerr << "usage: ops_latency_cpp [--lib FILE] [--kernels DIR] [--calls N] [--batch N] [--json FILE]\n";
      return 2;
    }
  }
  if (c10::cuda::device_count() == 0) {
    std::cout << "ops_latency_cpp: no CUDA GPU, nothing measured\n";
    write_json(json, error_json("no GPU"));
    return 0;
  }
  if (!dlopen(lib.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
    const char* err = dlerror();
    std::cerr << "ops_latency_cpp: cannot load " << lib << ": " << (err ? err : "?") << "\n";
    write_json(json, error_json(std::string("cannot load ") + lib));
    return 1;
  }
  if (kernels == TRITON_JIT_OPS_KERNELS_DIR && lib != TRITON_JIT_OPS_LIBRARY) {
    kernels = lib.substr(0, lib.find_last_of('/') + 1) + "triton_jit_kernels";
  }

  try {
    const int64_t n = 4096;
    const auto opts = at::TensorOptions().dtype(at::kFloat).device(at::kCUDA, 0);
    const at::Tensor a = at::randn({n}, opts), b = at::randn({n}, opts);
    const at::Tensor expected = at::add(a, b);

    auto op = c10::Dispatcher::singleton()
                  .findSchemaOrThrow("triton_jit_ops::add", "")
                  .typed<at::Tensor(const at::Tensor&, const at::Tensor&, const c10::Scalar&)>();
    const c10::Scalar one(1);
    auto via_dispatcher = [&]() { return op.call(a, b, one); };

    const triton_jit::TritonJitFunction& fn = triton_jit::TritonJitFunction::get(kernels + "/add.py", "add_kernel");
    constexpr int64_t kBlock = 1024;
    auto direct = [&]() {
      at::Tensor out = at::empty_like(a);
      const int64_t count = out.numel();
      triton_jit::LaunchConfig config;
      config.grid = triton_jit::Grid((count + kBlock - 1) / kBlock);
      config.num_warps = 4;
      // add_kernel(a_ptr, b_ptr, out_ptr, n, alpha_f: fp64, alpha_i: i64, BLOCK, HAS_ALPHA)
      // alpha == 1: HAS_ALPHA=False and zeros for alpha, as src/add.cpp passes them.
      triton_jit::torch::launch(fn, config, a, b, out, count, 0.0, int64_t{0}, kBlock, false);
      return out;
    };
    auto eager = [&]() { return at::add(a, b); };

    std::vector<std::pair<std::string, std::function<at::Tensor()>>> paths = {
        {"C++ dispatcher: triton_jit_ops::add", via_dispatcher},
        {"C++ direct launch of add_kernel (no dispatcher)", direct},
        {"C++ at::add (eager)", eager}};
    for (auto& [name, f] : paths) {
      at::Tensor got = f();
      if (!at::allclose(got, expected)) {
        std::cerr << "ops_latency_cpp: " << name << " gave a wrong result\n";
        write_json(json, error_json(name + " gave a wrong result"));
        return 1;
      }
    }
    const int batches = std::max(1, calls / batch);
    std::vector<Result> results;
    for (auto& [name, f] : paths) {
      results.push_back(time_calls(name, f, batch, batches));
      std::printf("%-50s host %7.3f us/call  wall %7.3f us/call\n", name.c_str(), results.back().host_us,
                  results.back().wall_us);
    }
    std::ostringstream s;
    s << "{\"n\": " << n << ", \"dtype\": \"float32\", \"batch\": " << batch << ", \"batches\": " << batches
      << ", \"rows\": [";
    for (size_t i = 0; i < results.size(); ++i) {
      const Result& r = results[i];
      s << (i ? ", " : "") << "{\"path\": \"" << r.path << "\", \"host_us\": " << r.host_us
        << ", \"wall_us\": " << r.wall_us << ", \"host_min_us\": " << r.host_min_us << "}";
    }
    s << "]}";
    write_json(json, s.str());
  } catch (const std::exception& e) {
    std::cerr << "ops_latency_cpp: " << e.what() << "\n";
    write_json(json, error_json(e.what()));
    return 1;
  }
  return 0;
}

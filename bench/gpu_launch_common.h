#pragma once

// The raw-driver side of the GPU launch benchmarks (launch_gpu_bench.cpp, and
// torch/launch_tensor_bench.cpp): libcuda's entry points opened with dlopen, the runtime's
// parameter packing done by hand, the batch timer and the report helpers. Header-only: each
// benchmark is one executable.

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "triton_jit/triton_jit.h"

namespace triton_jit_bench {

#define TJB_STR2(x) #x
#define TJB_STR(x) TJB_STR2(x)  // expands cuda.h's versioned names, as libtriton_jit does

// The raw path's driver entry points, from the same libcuda the library opens.
struct RawDriver {
  decltype(&::cuModuleLoadData) ModuleLoadData = nullptr;
  decltype(&::cuModuleGetFunction) ModuleGetFunction = nullptr;
  decltype(&::cuLaunchKernel) LaunchKernel = nullptr;
  decltype(&::cuGetErrorName) GetErrorName = nullptr;
  decltype(&::cuCtxGetCurrent) CtxGetCurrent = nullptr;

  bool load(std::string* error) {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* e = dlerror();
      *error = std::string("cannot load libcuda.so.1: ") + (e ? e : "?");
      return false;
    }
    ModuleLoadData = reinterpret_cast<decltype(ModuleLoadData)>(dlsym(lib, TJB_STR(cuModuleLoadData)));
    ModuleGetFunction = reinterpret_cast<decltype(ModuleGetFunction)>(dlsym(lib, TJB_STR(cuModuleGetFunction)));
    LaunchKernel = reinterpret_cast<decltype(LaunchKernel)>(dlsym(lib, TJB_STR(cuLaunchKernel)));
    GetErrorName = reinterpret_cast<decltype(GetErrorName)>(dlsym(lib, TJB_STR(cuGetErrorName)));
    CtxGetCurrent = reinterpret_cast<decltype(CtxGetCurrent)>(dlsym(lib, TJB_STR(cuCtxGetCurrent)));
    if (!ModuleLoadData || !ModuleGetFunction || !LaunchKernel || !GetErrorName || !CtxGetCurrent) {
      *error = "libcuda.so.1 lacks a driver entry point";
      return false;
    }
    return true;
  }
};
inline RawDriver g_cu;

[[noreturn]] inline void fail(const std::string& what) { throw std::runtime_error(what); }

inline void check_rt(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

inline void check_cu(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    g_cu.GetErrorName(r, &name);
    fail(std::string(what) + ": " + (name ? name : "CUresult " + std::to_string(r)));
  }
}

// Parameters packed as libtriton_jit packs them: one 8-byte slot per runtime parameter, then one
// null pointer per scratch parameter of the kernel (KernelInfo::scratch_params).
// Not copyable: params point into storage.
struct Packed {
  Packed() = default;
  Packed(const Packed&) = delete;
  Packed& operator=(const Packed&) = delete;

  alignas(8) uint64_t storage[32] = {};
  void* params[32] = {};
  int count = 0;
  void push(const void* value, size_t bytes) {
    std::memcpy(&storage[count], value, bytes);
    params[count] = &storage[count];
    ++count;
  }
  void push(const triton_jit::ArgValue& a, const std::string& type) {
    if (type[0] == '*') {
      const CUdeviceptr p = a.address();
      push(&p, sizeof p);
    } else if (type == "fp32") {
      const float f = static_cast<float>(a.as_float());
      push(&f, sizeof f);
    } else if (type == "i32") {
      const int32_t v = static_cast<int32_t>(a.as_int());
      push(&v, sizeof v);
    } else if (type == "i64") {
      const int64_t v = a.as_int();
      push(&v, sizeof v);
    } else {
      fail("unexpected runtime parameter type " + type);
    }
  }
};

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

// Times `batch` launches of `launch`, then synchronizes `stream` (untimed). Returns µs per launch.
template <typename F>
double time_batch(int batch, F&& launch, cudaStream_t stream = nullptr) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < batch; ++i) launch();
  const auto t1 = std::chrono::steady_clock::now();
  check_rt(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / batch;
}

// ns per call of `call`, over `calls` calls (for the driver and runtime calls a launch makes).
template <typename F>
double ns_per_call(int calls, F&& call) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call();
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / calls;
}

inline std::string today() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  return buf;
}

inline std::string json_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) continue;
    o += ch;
  }
  return o;
}

inline void write_file(const std::string& path, const std::string& text) {
  if (path.empty()) return;
  std::ofstream f(path);
  f << text;
  if (!f) fail("cannot write " + path);
}

// The command line both GPU launch benchmarks take: [--out FILE.md] [--json FILE.json]
// [--launches N] [--batch N], each also as --flag=value. Exits with status 2 on bad usage.
struct Options {
  std::string out, json;
  int launches = 20000;
  int batch = 1000;
};

inline Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const std::string& flag) -> std::string {
      if (a.rfind(flag + "=", 0) == 0) return a.substr(flag.size() + 1);
      if (a == flag && i + 1 < argc) return argv[++i];
      return {};
    };
    std::string v;
    if (!(v = value("--out")).empty()) {
      o.out = v;
    } else if (!(v = value("--json")).empty()) {
      o.json = v;
    } else if (!(v = value("--launches")).empty()) {
      o.launches = std::atoi(v.c_str());
    } else if (!(v = value("--batch")).empty()) {
      o.batch = std::atoi(v.c_str());
    } else {
      std::fprintf(stderr, "usage: %s [--out FILE.md] [--json FILE.json] [--launches N] [--batch N]\n", argv[0]);
      std::exit(2);
    }
  }
  if (o.launches <= 0 || o.batch <= 0) {
    std::fprintf(stderr, "%s: --launches and --batch must be positive\n", argv[0]);
    std::exit(2);
  }
  return o;
}

// Without a usable GPU: says so on stdout, writes the note to the report files (`title` opens the
// markdown one) and returns true; the benchmark then exits 0 having measured nothing.
inline bool report_no_gpu(const char* program, const Options& opt, const std::string& title) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaSuccess && count > 0) return false;
  const std::string why = e != cudaSuccess ? std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e)
                                           : std::string("no device");
  std::printf("%s: no GPU (%s); nothing to measure.\n", program, why.c_str());
  try {
    write_file(opt.out, title + "No GPU (" + why + "); nothing was measured.\n");
    write_file(opt.json, "{\"error\": \"no GPU: " + json_escape(why) + "\"}\n");
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "%s: %s\n", program, ex.what());
  }
  return true;
}

// The device both benchmarks measure on: the raw driver's entry points loaded, device 0's primary
// context current (as torch and the runtime find it), and what the report says of the device.
struct Device {
  cudaDeviceProp prop{};
  int driver_version = 0;
};

inline Device open_device() {
  std::string error;
  if (!g_cu.load(&error)) fail(error);
  check_rt(cudaSetDevice(0), "cudaSetDevice");
  check_rt(cudaFree(nullptr), "cudaFree(0)");  // makes device 0's primary context current
  Device d;
  check_rt(cudaGetDeviceProperties(&d.prop, 0), "cudaGetDeviceProperties");
  cudaDriverGetVersion(&d.driver_version);
  return d;
}

}  // namespace triton_jit_bench

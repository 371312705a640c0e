// Helpers shared by the GPU tests: GPU detection (skip without one), CUDA error checks, device
// buffers, fp16/bf16 conversions on the host and element-wise comparisons.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "triton_jit/triton_jit.h"

#ifndef TRITON_JIT_GPU_KERNELS_DIR
#define TRITON_JIT_GPU_KERNELS_DIR "tests/gpu/kernels"
#endif

namespace gpu_test {

inline std::string kernel_path(const char* file) { return std::string(TRITON_JIT_GPU_KERNELS_DIR) + "/" + file; }

// A copy of kernels/FILE in a folder of its own, new on every call, for a test that counts
// misses, compiles or module loads: a function loaded from it starts with an empty table, no
// index entries and zero stats, whatever earlier tests in the same process launched (the GPU
// binary also runs whole, in one process, under compute-sanitizer). The folder is left for the
// process's temporary directory; its kernels are those of FILE.
inline std::string fresh_copy(const std::string& path) {
  namespace fs = std::filesystem;
  static std::atomic<int> counter{0};
  const fs::path dir = fs::temp_directory_path() /
                       ("triton_jit_gpu_fresh_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  fs::create_directories(dir);
  const fs::path file = fs::path(path).filename();
  fs::copy_file(path, dir / file, fs::copy_options::overwrite_existing);
  return (dir / file).string();
}
inline std::string fresh_kernel_copy(const char* file) { return fresh_copy(kernel_path(file)); }

// The vector add of every test suite: the one copy, tests/kernels/add.py.
inline std::string add_kernel_path() { return std::string(TRITON_JIT_TEST_KERNELS_DIR) + "/add.py"; }

// Throws with the expression, place and CUDA's own words: usable in constructors and threads.
#define CUDA_CHECK(expr)                                                                                               \
  do {                                                                                                                 \
    const cudaError_t cuda_check_status_ = (expr);                                                                     \
    if (cuda_check_status_ != cudaSuccess) {                                                                           \
      throw std::runtime_error(std::string(#expr) + " failed at " + __FILE__ + ":" + std::to_string(__LINE__) + ": " + \
                               cudaGetErrorName(cuda_check_status_) + " (" + cudaGetErrorString(cuda_check_status_) +  \
                               ")");                                                                                   \
    }                                                                                                                  \
  } while (0)

// Whether a CUDA GPU can be used, and if not why. The CUDA runtime loads the driver at run
// time, so this works (and says no) on machines without a driver.
inline bool gpu_available(std::string* why) {
  static const std::pair<bool, std::string> result = [] {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      std::string why = std::string("cudaGetDeviceCount returned ") + cudaGetErrorName(e) + " (" +
                        cudaGetErrorString(e) + ")";
      if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice) {
        why += "; no NVIDIA driver or device on this machine";
      }
      return std::make_pair(false, why);
    }
    if (count == 0) return std::make_pair(false, std::string("cudaGetDeviceCount found 0 devices"));
    return std::make_pair(true, std::string());
  }();
  if (why) *why = result.second;
  return result.first;
}

inline int device_arch() {
  int dev = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  return major * 10 + minor;
}

inline int device_attribute(cudaDeviceAttr attr) {
  int dev = 0, value = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, dev));
  return value;
}

// Every GPU test derives from this: without a GPU the test is skipped with a visible reason.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!gpu_available(&why)) GTEST_SKIP() << "no CUDA GPU: " << why;
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaFree(nullptr));  // makes device 0's primary context current on this thread
  }
};

// A fresh seed per run, printed so that a failure can be replayed (GPU_TEST_SEED=...).
inline uint64_t test_seed() {
  if (const char* env = std::getenv("GPU_TEST_SEED"); env && *env) return std::strtoull(env, nullptr, 0);
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

// Device memory of `count` elements of T, freed on destruction.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes() ? bytes() : 1));
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

  void upload(const std::vector<T>& host) {
    if (host.size() != count_) throw std::runtime_error("upload: size mismatch");
    CUDA_CHECK(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice));
    // From pageable memory the copy may still be in flight on return, and kernels on
    // non-blocking streams do not wait for the legacy stream: finish it here.
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    CUDA_CHECK(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  // All bytes 0xFF: NaN in fp16, bf16, fp32 and fp64, so an element never written shows.
  // Synchronous, for the same reason as upload().
  void poison() {
    CUDA_CHECK(cudaMemset(ptr_, 0xFF, bytes()));
    CUDA_CHECK(cudaDeviceSynchronize());
  }

 private:
  T* ptr_ = nullptr;
  size_t count_;
};

// ---- fp16 / bf16 on the host ----

inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: value = mant * 2^-24
      float f = std::ldexp(static_cast<float>(mant), -24);
      return (h & 0x8000u) ? -f : f;
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Round to nearest even from double (one rounding: exact for sums of two halves).
inline uint16_t double_to_half(double v) {
  if (std::isnan(v)) return 0x7e00u;
  const uint16_t sign = std::signbit(v) ? 0x8000u : 0;
  double a = std::fabs(v);
  if (a >= 65520.0) return sign | 0x7c00u;                     // rounds to infinity
  if (a < std::ldexp(1.0, -14)) {                              // subnormal range: multiples of 2^-24
    const double q = std::nearbyint(a * std::ldexp(1.0, 24));  // default rounding: to nearest even
    return sign | static_cast<uint16_t>(q);
  }
  int e = 0;
  const double m = std::frexp(a, &e);            // a = m * 2^e, m in [0.5, 1)
  double q = std::nearbyint(std::ldexp(m, 11));  // 11 significant bits
  if (q == 2048.0) {
    q = 1024.0;
    ++e;
  }
  const int biased = e - 1 + 15;
  if (biased >= 0x1f) return sign | 0x7c00u;
  return sign | static_cast<uint16_t>(biased << 10) | static_cast<uint16_t>(static_cast<uint32_t>(q) - 1024u);
}

inline float bf16_to_float(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t double_to_bf16(double v) {
  if (std::isnan(v)) return 0x7fc0u;
  const uint16_t sign = std::signbit(v) ? 0x8000u : 0;
  const double a = std::fabs(v);
  if (a == 0) return sign;
  if (a < std::ldexp(1.0, -126)) {  // subnormal: multiples of 2^-133
    const double q = std::nearbyint(a * std::ldexp(1.0, 133));
    return sign | static_cast<uint16_t>(q);
  }
  int e = 0;
  const double m = std::frexp(a, &e);
  double q = std::nearbyint(std::ldexp(m, 8));  // 8 significant bits
  if (q == 256.0) {
    q = 128.0;
    ++e;
  }
  const int biased = e - 1 + 127;
  if (biased >= 0xff) return sign | 0x7f80u;
  return sign | static_cast<uint16_t>(biased << 7) | static_cast<uint16_t>(static_cast<uint32_t>(q) - 128u);
}

// ---- comparisons ----

// Collects mismatches and prints the first few with their index.
class Mismatches {
 public:
  explicit Mismatches(std::string what) : what_(std::move(what)) {}
  void add(size_t index, const std::string& detail) {
    if (count_ < 8) examples_ << "\n  [" << index << "] " << detail;
    ++count_;
  }
  size_t count() const { return count_; }
  std::string report(size_t total) const {
    std::ostringstream s;
    s << what_ << ": " << count_ << " of " << total << " elements wrong" << examples_.str();
    return s.str();
  }

 private:
  std::string what_;
  size_t count_ = 0;
  std::ostringstream examples_;
};

inline bool close(double got, double want, double atol, double rtol) {
  if (std::isnan(got) || std::isnan(want)) return false;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

inline std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

inline size_t cdiv(size_t a, size_t b) { return (a + b - 1) / b; }

}  // namespace gpu_test

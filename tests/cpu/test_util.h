#pragma once
// Helpers shared by the CPU tests: kernel paths, argument lists, source line lookup.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "triton_jit/triton_jit.h"

#ifndef TRITON_JIT_TEST_KERNELS_DIR
#error "TRITON_JIT_TEST_KERNELS_DIR must name tests/kernels"
#endif

namespace test {

inline std::string kernel(const std::string& file) { return std::string(TRITON_JIT_TEST_KERNELS_DIR) + "/" + file; }

inline std::string canonical(const std::string& path) { return std::filesystem::canonical(path).string(); }

// 1-based number of the first line of `path` that contains `text`; 0 if none.
inline int line_of(const std::string& path, const std::string& text) {
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find(text) != std::string::npos) return n;
  }
  return 0;
}

// Number of lines of `path`.
inline int line_count(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) ++n;
  return n;
}

// A device address that is not dereferenced: CPU tests only specialize, compile and fake-launch.
inline triton_jit::ArgValue ptr(uint64_t address, triton_jit::DType dtype = triton_jit::DType::fp32) {
  return triton_jit::ArgValue::pointer_address(address, dtype);
}

template <typename... A>
std::vector<triton_jit::ArgValue> args(const A&... a) {
  return {triton_jit::to_arg(a)...};
}

inline triton_jit::ArgSpan span(const std::vector<triton_jit::ArgValue>& v) { return {v.data(), v.size()}; }

inline triton_jit::LaunchConfig config(int64_t grid = 1, int num_warps = 4, int num_stages = 3, int num_ctas = 1) {
  triton_jit::LaunchConfig c;
  c.grid = triton_jit::Grid(grid);
  c.num_warps = num_warps;
  c.num_stages = num_stages;
  c.num_ctas = num_ctas;
  return c;
}

// tests/kernels/add.py's add_kernel, the tests' plain kernel.
inline triton_jit::TritonJitFunction& add_kernel() {
  return triton_jit::TritonJitFunction::get(kernel("add.py"), "add_kernel");
}

// Writes `text` to `path` as is (binary), creating the folders above it.
inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace test

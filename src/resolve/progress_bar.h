#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "triton_jit/prepare_options.h"

namespace triton_jit::detail {

// A one-line bar on stderr, redrawn in place:
//   [triton_jit] prepare [############--------]  12/20  3.4 s  add_kernel
// Drawn on `fd` (stderr unless told) only when asked (Always) or when it is a terminal (Auto).
class ProgressBar {
 public:
  ProgressBar(std::string label, size_t total, Progress mode, int fd = 2);
  ~ProgressBar();
  void advance(const std::string& what);
  bool enabled() const noexcept { return enabled_; }

 private:
  void draw(const std::string& what);
  void put(const std::string& text);
  std::string label_;
  size_t total_;
  size_t done_ = 0;
  int fd_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace triton_jit::detail

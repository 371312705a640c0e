#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "triton_jit/prepare.h"

namespace triton_jit::detail {

// A one-line bar on stderr, redrawn in place:
//   [triton_jit] prepare [############--------]  12/20  3.4 s  add_kernel
// Drawn only when asked (Always) or when stderr is a terminal (Auto).
class ProgressBar {
 public:
  ProgressBar(std::string label, size_t total, Progress mode);
  ~ProgressBar();
  void advance(const std::string& what);
  bool enabled() const noexcept { return enabled_; }

 private:
  void draw(const std::string& what);
  std::string label_;
  size_t total_;
  size_t done_ = 0;
  bool enabled_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace triton_jit::detail

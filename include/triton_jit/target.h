#pragma once

#include <string>

#include "triton_jit/export.h"

namespace triton_jit {

// A compilation target, as Triton's GPUTarget: backend, architecture, warp size.
struct TRITON_JIT_API Target {
  std::string backend = "cuda";
  int arch = 90;
  int warp_size = 32;

  std::string str() const;  // "cuda:90"
  // Parses "cuda:90" (warp size 32 implied) or "cuda:90:32"; throws triton_jit::Error otherwise.
  static Target parse(const std::string& text);
  bool operator==(const Target& o) const { return backend == o.backend && arch == o.arch && warp_size == o.warp_size; }
};

}  // namespace triton_jit

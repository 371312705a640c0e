#pragma once

#include <string>

#include "triton_jit/export.h"

namespace triton_jit {

// A compilation target, as Triton's GPUTarget: backend, architecture, warp size. `arch` is the
// compute capability for cuda (90), and for hip the hexadecimal digits of the gfx name as a number
// (gfx942 is 0x942); hip kernels launch through the HIP runtime (docs/guide/hip.md).
struct TRITON_JIT_API Target {
  std::string backend = "cuda";
  int arch = 90;
  int warp_size = 32;

  std::string str() const;  // "cuda:90", "hip:gfx942"
  // Parses "cuda:90" (warp size 32 implied), "cuda:90:32", "hip:gfx942" (warp size 64 before
  // gfx10, else 32, as Triton's) or "hip:gfx1100:32"; throws triton_jit::Error otherwise.
  static Target parse(const std::string& text);
  bool operator==(const Target& o) const { return backend == o.backend && arch == o.arch && warp_size == o.warp_size; }
};

}  // namespace triton_jit

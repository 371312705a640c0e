#include "triton_jit/target.h"

#include <cctype>
#include <cstdio>
#include <stdexcept>

#include "triton_jit/errors.h"

namespace triton_jit {
namespace {

constexpr const char* kBackends =
    "this build compiles for cuda (NVIDIA: cuda:ARCH, e.g. cuda:90) and hip (AMD: hip:gfxNAME, e.g. hip:gfx942; "
    "launched through the HIP runtime)";

[[noreturn]] void invalid(const std::string& text, const std::string& why) {
  throw Error("invalid target '" + text + "': " + why);
}

// A whole decimal integer, or -1.
int parse_number(const std::string& s) {
  if (s.empty() || s.size() > 6) return -1;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  }
  return std::stoi(s);
}

}  // namespace

std::string Target::str() const {
  if (backend == "hip") {
    // A gfx name is hexadecimal digits (gfx90a, gfx942, gfx1100): the arch number holds them.
    char name[16];
    std::snprintf(name, sizeof name, "gfx%x", static_cast<unsigned>(arch));
    return backend + ":" + name;
  }
  return backend + ":" + std::to_string(arch);
}

Target Target::parse(const std::string& text) {
  Target t;
  const size_t colon = text.find(':');
  if (colon == std::string::npos) invalid(text, "expected BACKEND:ARCH[:WARP_SIZE], e.g. cuda:90 or hip:gfx942");
  t.backend = text.substr(0, colon);
  const std::string rest = text.substr(colon + 1);
  const size_t colon2 = rest.find(':');
  const std::string arch = rest.substr(0, colon2);
  const bool warp_given = colon2 != std::string::npos;
  if (warp_given) {
    t.warp_size = parse_number(rest.substr(colon2 + 1));
    if (t.warp_size <= 0 || t.warp_size > 0xff) invalid(text, "the warp size must be an integer from 1 to 255");
  }
  if (t.backend == "cuda") {
    t.arch = parse_number(arch);
    if (t.arch < 0) invalid(text, "expected BACKEND:ARCH[:WARP_SIZE], e.g. cuda:90");
    if (t.arch == 0 || t.arch > 0xffff) invalid(text, "architecture out of range");
    // Every NVIDIA GPU runs 32 threads a warp; another number would only mislabel the kernel.
    if (t.warp_size != 32) {
      invalid(text, "CUDA's warp size is 32, got " + std::to_string(t.warp_size) +
                        " (write cuda:" + std::to_string(t.arch) + " or cuda:" + std::to_string(t.arch) + ":32)");
    }
    return t;
  }
  if (t.backend == "hip") {
    // gfx + 1 to 4 hexadecimal digits, as Triton's AMD backend names its targets (GPUTarget.arch).
    size_t digits = arch.size() >= 3 ? arch.size() - 3 : 0;
    bool hex = arch.compare(0, 3, "gfx") == 0 && digits >= 1 && digits <= 4;
    for (size_t i = 3; hex && i < arch.size(); ++i) hex = std::isxdigit(static_cast<unsigned char>(arch[i])) != 0;
    if (!hex) invalid(text, "hip targets name a gfx architecture, e.g. hip:gfx942 or hip:gfx90a");
    t.arch = static_cast<int>(std::stoul(arch.substr(3), nullptr, 16));
    // Triton's AMD backend compiles wave64 before gfx10 (CDNA, gfx9) and wave32 from gfx10 on
    // (RDNA), whatever is asked: a kernel recorded with another warp size would be keyed wrongly.
    const int major = digits > 2 ? std::stoi(arch.substr(3, digits - 2), nullptr, 16) : 0;
    const int triton_warp_size = digits > 2 && major >= 0x10 ? 32 : 64;
    if (!warp_given) {
      t.warp_size = triton_warp_size;
    } else if (t.warp_size != triton_warp_size) {
      invalid(text, "Triton compiles " + arch + " with a warp size of " + std::to_string(triton_warp_size) + ", got " +
                        std::to_string(t.warp_size) + " (write hip:" + arch + " or hip:" + arch + ":" +
                        std::to_string(triton_warp_size) + ")");
    }
    return t;
  }
  invalid(text, "unknown backend '" + t.backend + "': " + kBackends);
}

}  // namespace triton_jit

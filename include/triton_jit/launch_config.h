#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "triton_jit/export.h"

// The driver's stream handle, declared without pulling cuda.h into user code.
struct CUstream_st;

namespace triton_jit {

// Triton's defaults for the launch options, written here once: every struct that carries them
// (LaunchConfig, CompileRequest, PackManifestEntry, Specialization, KernelInfo) starts from these.
inline constexpr int kDefaultNumWarps = 4;
inline constexpr int kDefaultNumStages = 3;
inline constexpr int kDefaultNumCtas = 1;

// Launch grid in programs, as in Triton's kernel[grid]. Any integer type converts without a
// narrowing error; negative sizes are rejected at launch.
struct Grid {
  int64_t x = 1, y = 1, z = 1;

  Grid() = default;
  template <typename X, typename Y = int, typename Z = int,
            typename = std::enable_if_t<std::is_integral_v<X> && std::is_integral_v<Y> && std::is_integral_v<Z>>>
  Grid(X gx, Y gy = 1, Z gz = 1)
      : x(static_cast<int64_t>(gx)), y(static_cast<int64_t>(gy)), z(static_cast<int64_t>(gz)) {}
};

// Compile options beyond num_warps/num_stages/num_ctas (e.g. "maxnreg", "enable_fp_fusion",
// "launch_pdl"). Build once and keep it: a launch only reads its precomputed hash.
class TRITON_JIT_API CompileOptions {
 public:
  using Value = std::variant<int64_t, bool, double, std::string>;

  CompileOptions() = default;
  CompileOptions(std::initializer_list<std::pair<std::string, Value>> options);

  // Sets or replaces one option; options are kept sorted by name so equal sets hash equal.
  CompileOptions& set(std::string name, Value value);

  const std::vector<std::pair<std::string, Value>>& items() const noexcept { return items_; }
  uint64_t hash() const noexcept { return hash_; }
  bool empty() const noexcept { return items_.empty(); }

 private:
  void rehash();
  std::vector<std::pair<std::string, Value>> items_;
  uint64_t hash_ = 0;
};

struct LaunchConfig {
  Grid grid;
  int num_warps = kDefaultNumWarps;
  int num_stages = kDefaultNumStages;
  int num_ctas = kDefaultNumCtas;
  // The caller's stream; nullptr is the legacy default stream.
  CUstream_st* stream = nullptr;
  // Optional further compile options; must outlive the call.
  const CompileOptions* options = nullptr;
};

}  // namespace triton_jit

#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "triton_jit/export.h"
#include "triton_jit/target.h"

// The driver's stream handle, declared without pulling cuda.h into user code.
struct CUstream_st;

namespace triton_jit {

// Triton's defaults for the launch options, written here once: every struct that carries them
// (LaunchConfig, CompileRequest, PackManifestEntry, Specialization, KernelInfo) starts from these,
// but for the num_stages of the first three, which start from kTargetDefaultNumStages (below).
inline constexpr int kDefaultNumWarps = 4;
// Triton's CUDA default (CUDAOptions.num_stages), and triton.Config's, which every autotune config
// states explicitly, on AMD too. What a kernel was compiled with (Specialization, KernelInfo) is
// never kTargetDefaultNumStages.
inline constexpr int kDefaultNumStages = 3;
inline constexpr int kDefaultNumCtas = 1;

// num_stages left to the target, the default of LaunchConfig, CompileRequest and
// PackManifestEntry: the launch compiles with its backend's default as the installed Triton's
// options class has it, exactly as Triton's own launch without num_stages does (CUDAOptions: 3,
// HIPOptions: 2). Resolved before anything is keyed, so a kernel's key, index record and pack
// entry hold the number (an AMD launch without num_stages shares its kernel with one stating 2).
// -1, as 0 is a legal num_stages on AMD (no software pipelining).
inline constexpr int kTargetDefaultNumStages = -1;

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

class ArgValue;
struct StaticSignature;

// ceil(a / b) for positive b, as triton.cdiv: the usual way a grid covers a size.
constexpr int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// What a grid function sees: the call's final arguments by parameter name, including the values
// an autotuner's chosen config and the heuristics set (Python's `meta` in
// `grid = lambda meta: (triton.cdiv(n, meta['BLOCK']),)`), and the chosen launch options
// (num_stages resolved: the target's default where the call left it, never
// kTargetDefaultNumStages).
class TRITON_JIT_API GridMeta {
 public:
  GridMeta(const StaticSignature& signature, const ArgValue* args, int num_warps, int num_stages, int num_ctas)
      : signature_(signature), args_(args), num_warps(num_warps), num_stages(num_stages), num_ctas(num_ctas) {}

  // The integer (or bool) value of parameter `name`. Throws ArgumentError naming the parameter
  // when there is none of that name or its value is not an integer.
  int64_t operator[](std::string_view name) const;
  // The argument of parameter `name`, whatever its kind. Throws ArgumentError for an unknown name.
  const ArgValue& arg(std::string_view name) const;

 private:
  const StaticSignature& signature_;
  const ArgValue* args_;

 public:
  const int num_warps, num_stages, num_ctas;
};

// The num_stages a kernel for `target` compiles with: `num_stages` itself, or, for
// kTargetDefaultNumStages, the target's default (kDefaultNumStages on CUDA; on HIP the installed
// Triton's HIPOptions default, asked once a process, 2 where no Triton can be asked).
TRITON_JIT_API int target_num_stages(int num_stages, const Target& target);
// The same for the target a launch from here compiles for: the explicit target, else the current
// device's (launch_target_is_hip() tells which backend), else CUDA.
TRITON_JIT_API int launch_num_stages(int num_stages);

struct LaunchConfig {
  Grid grid;
  int num_warps = kDefaultNumWarps;
  // kTargetDefaultNumStages: the target's default (target_num_stages), as Triton's launch
  // without num_stages; any value in 0..255 is used as given.
  int num_stages = kTargetDefaultNumStages;
  int num_ctas = kDefaultNumCtas;
  // The caller's stream; nullptr is the legacy default stream.
  CUstream_st* stream = nullptr;
  // Optional further compile options; must outlive the call.
  const CompileOptions* options = nullptr;
  // When set, the grid is computed from the call's final arguments instead of `grid`: needed when
  // it depends on what an autotuner or a heuristic chose. Small captures do not allocate.
  std::function<Grid(const GridMeta&)> grid_fn = nullptr;
};

}  // namespace triton_jit

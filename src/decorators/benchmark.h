#pragma once
// Timing of one autotune config on the caller's stream, as Triton's autotuner does it
// (triton.testing.do_bench with quantiles (0.5, 0.2, 0.8), called by Autotuner._bench).

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "triton_jit/export.h"

namespace triton_jit::detail {

struct BenchmarkOptions {
  double warmup_ms = 25.0;  // Triton's autotuner defaults
  double rep_ms = 100.0;
};

struct BenchmarkResult {
  double median_ms = 0, p20_ms = 0, p80_ms = 0;
  int runs = 0;  // timed runs
};

// Times `launch_once` (one launch on `stream`; it may also run reset/restore work, which is then
// timed too, as in Triton) exactly as Triton 3.6's do_bench does for its autotuner:
//   1. launch_once(), then cuStreamSynchronize;
//   2. estimate: one event pair around 5 x (flush, launch_once); estimate_ms = elapsed / 5;
//   3. n_warmup = max(1, int(warmup_ms / estimate_ms)), n_repeat = max(1, int(rep_ms / estimate_ms));
//   4. n_warmup x launch_once();
//   5. n_repeat x (flush, record start[i], launch_once(), record end[i]), then synchronize;
//   6. quantiles 0.5, 0.2, 0.8 of the n_repeat elapsed times (triton.testing._quantile).
// The flush zeroes a 256 MiB buffer (cuMemsetD32Async), Triton's L2 flush.
// Throws CudaError naming the failing driver call; what launch_once throws propagates.
TRITON_JIT_API BenchmarkResult benchmark(CUstream stream, const std::function<void()>& launch_once,
                                         const BenchmarkOptions& options);

// The size of the flush buffer: Triton's get_empty_cache_for_benchmark (256 MiB of int32).
inline constexpr uint64_t kFlushBufferBytes = uint64_t{256} * 1024 * 1024;

// The flush buffer of the current context (allocated on first use and kept, as Triton's is per
// process: torch's caching allocator hands the same block back).
TRITON_JIT_API uint64_t flush_buffer();
// Frees every context's flush buffer (tests; or before destroying contexts). No work that uses
// them may be pending.
TRITON_JIT_API void release_flush_buffers() noexcept;

// Warm-up and timed run counts for an estimate, as do_bench computes them (step 3 above).
struct RunCounts {
  int warmup = 0;
  int repeat = 0;
};
TRITON_JIT_API RunCounts run_counts(double estimate_ms, const BenchmarkOptions& options);

// triton.testing._quantile: sort, then linear interpolation at q * (n - 1). Samples not empty.
TRITON_JIT_API std::vector<double> quantiles(std::vector<double> samples, const std::vector<double>& qs);

}  // namespace triton_jit::detail

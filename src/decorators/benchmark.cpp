#include "decorators/benchmark.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "cuda/device.h"
#include "cuda/driver_api.h"

// What this follows, in Triton 3.6.0 (python/triton/testing.py do_bench and _quantile;
// backends/nvidia/driver.py get_empty_cache_for_benchmark / clear_cache; runtime/autotuner.py
// _bench). Across 3.4 to 3.9 these lines are the same; the differences:
//   - 3.4-3.9 do_bench divides by the estimate unguarded (an estimate of 0 raises
//     ZeroDivisionError); 3.8+ added do_bench_proton, which takes 1000 warm-up and 1000 timed
//     runs for an estimate of 0. We do that rather than fail (on a GPU the estimate includes five
//     256 MiB flushes and is never 0).
//   - 3.8+ _quantile renamed its loop variable only; 3.8+ autotuner hooks skip arguments that are
//     None (device_memory.h: empty ranges are skipped).
// Triton synchronizes the whole device (torch.cuda.synchronize) where we synchronize the stream:
// only work on the caller's stream is timed.

namespace triton_jit::detail {
namespace {

void check(CUresult r, const char* call) {
  if (r != CUDA_SUCCESS) cuda::throw_cuda_error(r, call, "benchmarking an autotune config");
}

// A timing event (torch.cuda.Event(enable_timing=True): default flags), destroyed on scope exit.
class Event {
 public:
  Event() { check(cuda::driver().EventCreate(&event_, CU_EVENT_DEFAULT), "cuEventCreate"); }
  ~Event() {
    if (event_ != nullptr) cuda::driver().EventDestroy(event_);
  }
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event& operator=(Event&&) = delete;

  void record(CUstream stream) { check(cuda::driver().EventRecord(event_, stream), "cuEventRecord"); }
  void synchronize() { check(cuda::driver().EventSynchronize(event_), "cuEventSynchronize"); }
  // Milliseconds from `start` to this event, as float (torch's elapsed_time), widened to double.
  double since(const Event& start) const {
    float ms = 0;
    check(cuda::driver().EventElapsedTime(&ms, start.event_, event_), "cuEventElapsedTime");
    return static_cast<double>(ms);
  }

 private:
  CUevent event_ = nullptr;
};

std::mutex g_flush_mutex;
std::unordered_map<CUcontext, CUdeviceptr>& flush_buffers() {
  static auto* buffers = new std::unordered_map<CUcontext, CUdeviceptr>();  // kept for the process
  return *buffers;
}

// clear_cache: cache.zero_() on the int32 buffer.
void flush(CUstream stream, uint64_t buffer) {
  check(cuda::driver().MemsetD32Async(static_cast<CUdeviceptr>(buffer), 0, kFlushBufferBytes / 4, stream),
        "cuMemsetD32Async");
}

// Python's int() of a non-negative double, clamped to int.
int truncate(double v) {
  if (!(v < static_cast<double>(INT_MAX))) return INT_MAX;  // also NaN
  return static_cast<int>(v);
}

}  // namespace

uint64_t flush_buffer() {
  const CUcontext context = cuda::current_device().context;
  std::lock_guard<std::mutex> lock(g_flush_mutex);
  auto& buffers = flush_buffers();
  auto it = buffers.find(context);
  if (it != buffers.end()) return it->second;
  CUdeviceptr p = 0;
  const CUresult r = cuda::driver().MemAlloc(&p, static_cast<size_t>(kFlushBufferBytes));
  if (r != CUDA_SUCCESS) {
    cuda::throw_cuda_error(r, "cuMemAlloc", "allocating the 256 MiB L2 flush buffer for autotuning");
  }
  buffers.emplace(context, p);
  return static_cast<uint64_t>(p);
}

void release_flush_buffers() noexcept {
  std::lock_guard<std::mutex> lock(g_flush_mutex);
  auto& buffers = flush_buffers();
  try {
    const cuda::DriverApi& d = cuda::driver();
    for (const auto& entry : buffers) d.MemFree(entry.second);
  } catch (...) {  // no driver: nothing to free
  }
  buffers.clear();
}

RunCounts run_counts(double estimate_ms, const BenchmarkOptions& options) {
  if (estimate_ms <= 0) return RunCounts{1000, 1000};  // do_bench_proton (3.8+); do_bench would raise
  return RunCounts{std::max(1, truncate(options.warmup_ms / estimate_ms)),
                   std::max(1, truncate(options.rep_ms / estimate_ms))};
}

std::vector<double> quantiles(std::vector<double> samples, const std::vector<double>& qs) {
  if (samples.empty()) throw std::invalid_argument("quantiles of no samples");
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  std::vector<double> out;
  out.reserve(qs.size());
  for (double q : qs) {
    if (!(q >= 0 && q <= 1)) throw std::invalid_argument("Quantiles must be in the range [0, 1]");
    const double point = q * static_cast<double>(n - 1);
    const double lower = std::floor(point);
    const double upper = std::ceil(point);
    const double t = point - lower;
    out.push_back((1 - t) * samples[static_cast<size_t>(lower)] + t * samples[static_cast<size_t>(upper)]);
  }
  return out;
}

BenchmarkResult benchmark(CUstream stream, const std::function<void()>& launch_once, const BenchmarkOptions& options) {
  const cuda::DriverApi& d = cuda::driver();
  launch_once();
  check(d.StreamSynchronize(stream), "cuStreamSynchronize");

  const uint64_t cache = flush_buffer();

  // Estimate the runtime from 5 runs, each after a flush, under one event pair.
  double estimate_ms = 0;
  {
    Event start, end;
    start.record(stream);
    for (int i = 0; i < 5; ++i) {
      flush(stream, cache);
      launch_once();
    }
    end.record(stream);
    end.synchronize();
    estimate_ms = end.since(start) / 5;
  }

  const RunCounts counts = run_counts(estimate_ms, options);
  std::vector<Event> starts, ends;
  starts.reserve(static_cast<size_t>(counts.repeat));
  ends.reserve(static_cast<size_t>(counts.repeat));
  for (int i = 0; i < counts.repeat; ++i) {
    starts.emplace_back();
    ends.emplace_back();
  }
  for (int i = 0; i < counts.warmup; ++i) launch_once();
  for (int i = 0; i < counts.repeat; ++i) {
    flush(stream, cache);  // the L2 holds none of the inputs when the run starts
    starts[static_cast<size_t>(i)].record(stream);
    launch_once();
    ends[static_cast<size_t>(i)].record(stream);
  }
  ends.back().synchronize();  // events of one stream complete in order: all are done

  std::vector<double> times(static_cast<size_t>(counts.repeat));
  for (size_t i = 0; i < times.size(); ++i) times[i] = ends[i].since(starts[i]);
  const std::vector<double> q = quantiles(std::move(times), {0.5, 0.2, 0.8});
  BenchmarkResult result;
  result.median_ms = q[0];
  result.p20_ms = q[1];
  result.p80_ms = q[2];
  result.runs = counts.repeat;
  return result;
}

}  // namespace triton_jit::detail

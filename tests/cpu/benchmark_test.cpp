// The autotuner's timing and device-memory layer (src/decorators/) against the fake driver: run
// counts from Triton's formulas, parity with Triton's own do_bench on the same simulated clock,
// quantiles as triton.testing._quantile computes them, the flush before every timed run, the
// order and effect of reset_to_zero/restore_value, and driver errors.
#include <gtest/gtest.h>
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bridge/interpreter.h"
#include "decorators/benchmark.h"
#include "cuda/device_memory.h"
#include "fake_driver.h"
#include "triton_jit/errors.h"

namespace {

namespace py = pybind11;
using triton_jit::detail::benchmark;
using triton_jit::detail::BenchmarkOptions;
using triton_jit::detail::BenchmarkResult;
using triton_jit::detail::DeviceBuffer;
using triton_jit::detail::kFlushBufferBytes;
using triton_jit::detail::Range;
using triton_jit::detail::RestoreSet;
using triton_jit::detail::wrap_for_tuning;

CUstream const kStream = reinterpret_cast<CUstream>(uintptr_t{0x5000});

class Benchmark : public ::testing::Test {
 protected:
  void SetUp() override {
    fake::install();
    fake::state().write_limit = 1 << 20;  // the 256 MiB flush is recorded, not written
  }
  void TearDown() override {
    triton_jit::detail::release_flush_buffers();
    fake::uninstall();
  }
};

// A launch that takes `durations[k]` ms of simulated time on its k-th call (cycling).
struct ScriptedLaunch {
  std::vector<double> durations;
  size_t calls = 0;
  void operator()() {
    fake::advance(durations[calls % durations.size()], "run");
    ++calls;
  }
};

// Triton 3.6 do_bench's counts, computed here from its formulas: the estimate is one float
// elapsed time over 5 x (flush + run), divided by 5.
struct Expected {
  int warmup, repeat;
};
Expected triton_counts(double run_ms, double flush_ms, double warmup_ms, double rep_ms) {
  double clock = run_ms;  // the fake's clock after the first run, accumulated as the fake does
  const double start = clock;
  for (int i = 0; i < 5; ++i) {
    clock += flush_ms;
    clock += run_ms;
  }
  const double estimate = static_cast<double>(static_cast<float>(clock - start)) / 5;
  return {std::max(1, static_cast<int>(warmup_ms / estimate)), std::max(1, static_cast<int>(rep_ms / estimate))};
}

TEST_F(Benchmark, RunCountsFollowTritonsFormulas) {
  struct Case {
    double run_ms, flush_ms, warmup_ms, rep_ms;
  };
  const Case cases[] = {
      {0.7, 0.0, 25, 100},  {3.3, 0.0, 25, 100},  {12.5, 0.0, 25, 100}, {150.0, 0.0, 25, 100},
      {0.01, 0.0, 25, 100}, {0.3, 0.08, 25, 100}, {1.0, 0.5, 10, 40},   {0.123, 0.017, 25, 100},
      {30.0, 0.0, 25, 100}, {24.9, 0.1, 25, 100}, {0.05, 0.25, 5, 20},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("run_ms=" + std::to_string(c.run_ms) + " flush_ms=" + std::to_string(c.flush_ms));
    fake::install();
    fake::state().write_limit = 1 << 20;
    fake::state().memset_ms = c.flush_ms;
    ScriptedLaunch launch{{c.run_ms}};
    const BenchmarkResult r = benchmark(kStream, std::ref(launch), BenchmarkOptions{c.warmup_ms, c.rep_ms});
    const Expected e = triton_counts(c.run_ms, c.flush_ms, c.warmup_ms, c.rep_ms);
    EXPECT_EQ(r.runs, e.repeat);
    EXPECT_EQ(launch.calls, static_cast<size_t>(1 + 5 + e.warmup + e.repeat));
    // One flush per estimate run and per timed run, none during the warm-up.
    EXPECT_EQ(fake::ops_of("memset32").size(), static_cast<size_t>(5 + e.repeat));
    // Each timed run spans exactly the launch: every sample is run_ms (as float).
    EXPECT_FLOAT_EQ(r.median_ms, c.run_ms);
    EXPECT_EQ(fake::state().events_created, fake::state().events_destroyed);
    EXPECT_EQ(fake::state().events_created, 2 + 2 * e.repeat);
  }
}

TEST_F(Benchmark, DefaultsAreTritonsAutotunerDefaults) {
  const BenchmarkOptions o;
  EXPECT_EQ(o.warmup_ms, 25.0);
  EXPECT_EQ(o.rep_ms, 100.0);
  EXPECT_EQ(kFlushBufferBytes, uint64_t{256} * 1024 * 1024);
}

TEST_F(Benchmark, ZeroEstimateTakesAThousandRuns) {
  ScriptedLaunch launch{{0.0}};
  const BenchmarkResult r = benchmark(kStream, std::ref(launch), BenchmarkOptions{});
  EXPECT_EQ(r.runs, 1000);
  EXPECT_EQ(launch.calls, 1u + 5u + 1000u + 1000u);
  EXPECT_EQ(r.median_ms, 0.0);
}

// The exact sequence: a first run and a stream sync; the estimate's event pair around five
// (flush, run); warm-up runs; then per timed run: flush, record, run, record; then a sync.
TEST_F(Benchmark, FlushPrecedesEveryTimedRun) {
  ScriptedLaunch launch{{10.0}};
  const BenchmarkResult r = benchmark(kStream, std::ref(launch), BenchmarkOptions{});
  const Expected e = triton_counts(10.0, 0.0, 25, 100);
  ASSERT_EQ(e.warmup, 2);
  ASSERT_EQ(e.repeat, 10);
  ASSERT_EQ(r.runs, 10);

  const std::vector<fake::Op> allocs = fake::ops_of("alloc");
  ASSERT_EQ(allocs.size(), 1u);
  EXPECT_EQ(allocs[0].count, kFlushBufferBytes);
  const uint64_t flush = allocs[0].dst;

  std::vector<std::string> got;
  for (const fake::Op& op : fake::state().ops) {
    if (op.kind == "memset32") {
      EXPECT_EQ(op.dst, flush);
      EXPECT_EQ(op.count, kFlushBufferBytes / 4);
      EXPECT_EQ(op.value, 0u);
    }
    if (op.kind != "run" && op.kind != "alloc" && op.kind != "sync_event") EXPECT_EQ(op.stream, kStream) << op.kind;
    if (op.kind != "alloc") got.push_back(op.kind);
  }
  std::vector<std::string> want = {"run", "sync_stream", "record"};
  for (int i = 0; i < 5; ++i) want.insert(want.end(), {"memset32", "run"});
  want.insert(want.end(), {"record", "sync_event"});
  for (int i = 0; i < e.warmup; ++i) want.push_back("run");
  for (int i = 0; i < e.repeat; ++i) want.insert(want.end(), {"memset32", "record", "run", "record"});
  want.push_back("sync_event");
  EXPECT_EQ(got, want);

  // The buffer is kept: a second benchmark in this context allocates nothing.
  benchmark(kStream, std::ref(launch), BenchmarkOptions{});
  EXPECT_EQ(fake::ops_of("alloc").size(), 1u);
  EXPECT_EQ(triton_jit::detail::flush_buffer(), flush);
  // Another context gets its own.
  fake::state().current = fake::new_context();
  EXPECT_NE(triton_jit::detail::flush_buffer(), flush);
  EXPECT_EQ(fake::ops_of("alloc").size(), 2u);
}

TEST_F(Benchmark, FlushZeroesTheBuffer) {
  fake::state().write_limit = UINT64_MAX;  // once, for real: 256 MiB of host memory
  const uint64_t flush = triton_jit::detail::flush_buffer();
  auto* words = reinterpret_cast<uint32_t*>(flush);
  ScriptedLaunch launch{{60.0}};
  int checked = 0;
  auto dirty = [&] {
    launch();
    words[0] = 0xdeadbeef;
    words[kFlushBufferBytes / 4 - 1] = 0xdeadbeef;
  };
  fake::state().memset_ms = 0;
  // Check before each timed run: its flush came right before (a record is all in between).
  benchmark(
      kStream,
      [&] {
        if (launch.calls > 6 && fake::state().ops.back().kind == "record") {  // a timed run
          EXPECT_EQ(words[0], 0u);
          EXPECT_EQ(words[kFlushBufferBytes / 4 - 1], 0u);
          ++checked;
        }
        dirty();
      },
      BenchmarkOptions{});
  EXPECT_EQ(checked, 1);  // 60 ms: one timed run
}

// Triton's own do_bench, run on a simulated driver whose clock advances as the fake's does.
const char* kTritonDoBench = R"(
import struct
import triton.testing
from triton import runtime

def run(durations, flush_ms, warmup, rep):
    clock = [0.0]
    calls = [0]

    class _Event:
        def __init__(self, enable_timing=False):
            self.t = None
        def record(self):
            self.t = clock[0]
        def elapsed_time(self, end):
            return struct.unpack('f', struct.pack('f', end.t - self.t))[0]

    class DeviceInterface:
        Event = _Event
        def synchronize(self):
            pass

    class Driver:
        def get_device_interface(self):
            return DeviceInterface()
        def get_empty_cache_for_benchmark(self):
            return object()
        def clear_cache(self, cache):
            clock[0] += flush_ms

    def fn():
        clock[0] += durations[calls[0] % len(durations)]
        calls[0] += 1

    # Restored as a whole afterwards: reset_active() would look for a GPU, and where the active
    # driver lives differs between versions (3.4: `active`, later `_active`).
    saved = dict(vars(runtime.driver))
    runtime.driver.set_active(Driver())
    try:
        q = triton.testing.do_bench(fn, warmup=warmup, rep=rep, quantiles=(0.5, 0.2, 0.8))
    finally:
        vars(runtime.driver).clear()
        vars(runtime.driver).update(saved)
    return calls[0], list(q)
)";

TEST_F(Benchmark, SameRunsAndQuantilesAsTritonsDoBench) {
  triton_jit::bridge::GilGuard gil;
  triton_jit::bridge::bridge();  // imports triton
  py::dict scope;
  py::exec(kTritonDoBench, scope);
  std::mt19937_64 rng(12345);
  for (int trial = 0; trial < 12; ++trial) {
    // Per-call durations from 0.01 to 5 ms, cycling with a period that is not the run count.
    std::uniform_real_distribution<double> duration(0.01, 5.0);
    std::vector<double> durations(7 + trial);
    for (double& d : durations) d = duration(rng);
    const double flush_ms = trial % 3 == 0 ? 0.0 : 0.05 * trial;
    const BenchmarkOptions options{trial % 2 ? 25.0 : 10.0, trial % 2 ? 100.0 : 37.0};
    SCOPED_TRACE("trial " + std::to_string(trial));

    fake::install();
    fake::state().write_limit = 1 << 20;
    fake::state().memset_ms = flush_ms;
    ScriptedLaunch launch{durations};
    const BenchmarkResult r = benchmark(kStream, std::ref(launch), options);
    const py::tuple want = scope["run"](durations, flush_ms, options.warmup_ms, options.rep_ms);
    const auto calls = want[0].cast<size_t>();
    const auto q = want[1].cast<std::vector<double>>();
    EXPECT_EQ(launch.calls, calls);
    EXPECT_EQ(r.median_ms, q[0]);
    EXPECT_EQ(r.p20_ms, q[1]);
    EXPECT_EQ(r.p80_ms, q[2]);
    EXPECT_GT(r.runs, 0);
  }
}

TEST_F(Benchmark, QuantilesMatchTritonsQuantile) {
  triton_jit::bridge::GilGuard gil;
  triton_jit::bridge::bridge();
  py::object quantile = py::module_::import("triton.testing").attr("_quantile");
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> value(0.001, 3.0);
  const std::vector<double> qs = {0.5, 0.2, 0.8, 0.0, 1.0, 0.37};
  for (size_t n : {1, 2, 3, 4, 5, 10, 11, 99, 100, 1001}) {
    std::vector<double> samples(n);
    for (double& s : samples) s = static_cast<double>(static_cast<float>(value(rng)));
    const auto want = quantile(samples, qs).cast<std::vector<double>>();
    EXPECT_EQ(triton_jit::detail::quantiles(samples, qs), want) << "n=" << n;
  }
  EXPECT_THROW(triton_jit::detail::quantiles({1.0}, {1.5}), std::invalid_argument);
  EXPECT_THROW(triton_jit::detail::quantiles({}, {0.5}), std::invalid_argument);
}

// ---- reset_to_zero / restore_value ----

std::vector<uint8_t> bytes_at(uint64_t address, size_t n) {
  const auto* p = reinterpret_cast<const uint8_t*>(address);
  return std::vector<uint8_t>(p, p + n);
}

TEST_F(Benchmark, ResetAndRestoreInTritonsOrder) {
  DeviceBuffer a(64), b(40), c(7);
  std::memset(reinterpret_cast<void*>(a.address()), 0xab, 64);
  std::vector<uint8_t> pattern(40);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 1);
  std::memcpy(reinterpret_cast<void*>(b.address()), pattern.data(), pattern.size());
  std::memset(reinterpret_cast<void*>(c.address()), 0xcd, 7);

  int runs = 0;
  auto launch = [&] {
    // What the kernel sees: the reset ranges zero, the restored one as it was.
    EXPECT_EQ(bytes_at(a.address(), 64), std::vector<uint8_t>(64, 0));
    EXPECT_EQ(bytes_at(c.address() + 1, 5), std::vector<uint8_t>(5, 0));
    EXPECT_EQ(bytes_at(b.address(), 40), pattern);
    fake::note("run");
    std::memset(reinterpret_cast<void*>(a.address()), 7, 64);
    std::memset(reinterpret_cast<void*>(b.address()), 0xee, 40);
    ++runs;
  };
  fake::state().ops.clear();  // a, b and c's allocations
  const std::vector<Range> reset = {{a.address(), 64}, {c.address() + 1, 5}, {0, 0}};
  const std::vector<Range> restore = {{b.address(), 40}, {0, 0}};
  std::function<void()> call = wrap_for_tuning(launch, reset, restore, kStream);
  const std::vector<fake::Op> allocs = fake::ops_of("alloc");
  ASSERT_EQ(allocs.size(), 1u);  // the restore copies, once
  const uint64_t copy = allocs.back().dst;
  call();
  call();
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(bytes_at(b.address(), 40), pattern);                       // restored
  EXPECT_EQ(bytes_at(a.address(), 64), std::vector<uint8_t>(64, 7));   // not restored: Triton zeroes only before
  EXPECT_EQ(bytes_at(c.address(), 1), std::vector<uint8_t>(1, 0xcd));  // outside the range
  EXPECT_EQ(bytes_at(c.address() + 6, 1), std::vector<uint8_t>(1, 0xcd));

  std::vector<std::string> got;
  for (const fake::Op& op : fake::state().ops) {
    if (op.kind == "alloc") continue;
    got.push_back(op.kind);
    if (op.kind == "memset32") {
      EXPECT_EQ(op.dst, a.address());
      EXPECT_EQ(op.count, 16u);
    } else if (op.kind == "memset8") {
      EXPECT_EQ(op.dst, c.address() + 1);
      EXPECT_EQ(op.count, 5u);
    }
    if (op.kind == "copy") EXPECT_EQ(op.count, 40u);
    if (op.kind != "run") EXPECT_EQ(op.stream, kStream);
  }
  const std::vector<std::string> once = {"memset32", "memset8", "copy", "run", "copy"};
  std::vector<std::string> want = once;
  want.insert(want.end(), once.begin(), once.end());
  EXPECT_EQ(got, want);
  const std::vector<fake::Op> copies = fake::ops_of("copy");
  EXPECT_EQ(copies[0].src, b.address());  // save: argument -> copy
  EXPECT_EQ(copies[0].dst, copy);
  EXPECT_EQ(copies[1].src, copy);  // restore: copy -> argument
  EXPECT_EQ(copies[1].dst, b.address());
}

TEST_F(Benchmark, RestoreAfterAFailedLaunch) {
  DeviceBuffer b(16);
  std::memset(reinterpret_cast<void*>(b.address()), 3, 16);
  auto call = wrap_for_tuning(
      [&] {
        std::memset(reinterpret_cast<void*>(b.address()), 9, 16);
        throw std::runtime_error("launch failed");
      },
      {}, {{b.address(), 16}}, kStream);
  EXPECT_THROW(call(), std::runtime_error);
  EXPECT_EQ(bytes_at(b.address(), 16), std::vector<uint8_t>(16, 3));
}

TEST_F(Benchmark, NothingToResetOrRestoreIsTheLaunchItself) {
  int runs = 0;
  auto call = wrap_for_tuning([&] { ++runs; }, {{0, 0}}, std::vector<Range>{}, kStream);
  call();
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(fake::state().ops.empty());
}

TEST_F(Benchmark, WrappedCallUnderBenchmark) {
  DeviceBuffer acc(256), keep(32);
  std::memset(reinterpret_cast<void*>(keep.address()), 5, 32);
  ScriptedLaunch timed{{4.0}};
  auto launch = [&] {
    auto* p = reinterpret_cast<uint32_t*>(acc.address());
    EXPECT_EQ(p[0], 0u);  // an accumulator starts from zero every run
    p[0] += 1;
    EXPECT_EQ(bytes_at(keep.address(), 32), std::vector<uint8_t>(32, 5));
    std::memset(reinterpret_cast<void*>(keep.address()), 1, 32);
    timed();
  };
  fake::state().copy_ms = 0.25;  // the save and restore copies are timed too, as in Triton
  const BenchmarkResult r = benchmark(
      kStream, wrap_for_tuning(launch, {{acc.address(), 256}}, {{keep.address(), 32}}, kStream), {});
  const Expected e = triton_counts(4.5, 0.0, 25, 100);
  EXPECT_EQ(r.runs, e.repeat);
  EXPECT_EQ(timed.calls, static_cast<size_t>(1 + 5 + e.warmup + e.repeat));
  EXPECT_FLOAT_EQ(r.median_ms, 4.5);
  EXPECT_EQ(bytes_at(keep.address(), 32), std::vector<uint8_t>(32, 5));
}

TEST_F(Benchmark, DeviceBufferOwnsItsMemory) {
  {
    DeviceBuffer a(100);
    EXPECT_TRUE(a);
    EXPECT_EQ(a.bytes(), 100u);
    EXPECT_EQ(a.address() % 256, 0u);
    EXPECT_EQ(fake::state().bytes_allocated, 100u);
    DeviceBuffer b(std::move(a));
    EXPECT_FALSE(a);
    EXPECT_EQ(b.bytes(), 100u);
    DeviceBuffer c(50);
    c = std::move(b);  // frees c's 50 bytes
    EXPECT_EQ(fake::state().bytes_allocated, 100u);
    EXPECT_EQ(fake::ops_of("free").size(), 1u);
    DeviceBuffer empty(0);
    EXPECT_FALSE(empty);
  }
  EXPECT_EQ(fake::state().bytes_allocated, 0u);
  EXPECT_EQ(fake::ops_of("free").size(), 2u);
}

// ---- driver errors ----

void expect_cuda_error(const std::function<void()>& f, const std::string& call) {
  try {
    f();
    ADD_FAILURE() << "no error for " << call;
  } catch (const triton_jit::CudaError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(call + " failed with CUDA_ERROR_INVALID_VALUE"), std::string::npos) << what;
    EXPECT_EQ(e.code(), static_cast<int>(CUDA_ERROR_INVALID_VALUE));
  }
}

TEST_F(Benchmark, DriverErrorsNameTheCall) {
  for (const char* call : {"cuMemAlloc", "cuStreamSynchronize", "cuEventCreate", "cuEventRecord", "cuMemsetD32Async",
                           "cuEventSynchronize", "cuEventElapsedTime"}) {
    SCOPED_TRACE(call);
    triton_jit::detail::release_flush_buffers();
    fake::install();
    fake::state().write_limit = 1 << 20;
    fake::state().fail_call = call;
    ScriptedLaunch launch{{1.0}};
    expect_cuda_error([&] { benchmark(kStream, std::ref(launch), BenchmarkOptions{}); }, call);
    EXPECT_EQ(fake::state().events_created, fake::state().events_destroyed);
  }
  fake::state().fail_call.clear();
  DeviceBuffer b(64);
  fake::state().fail_call = "cuMemAlloc";
  expect_cuda_error([&] { DeviceBuffer x(8); }, "cuMemAlloc");
  expect_cuda_error([&] { RestoreSet x({{b.address(), 64}}); }, "cuMemAlloc");
  fake::state().fail_call = "cuMemsetD32Async";
  expect_cuda_error([&] { triton_jit::detail::zero_async(kStream, b.address(), 64); }, "cuMemsetD32Async");
  fake::state().fail_call = "cuMemsetD8Async";
  expect_cuda_error([&] { triton_jit::detail::zero_async(kStream, b.address() + 1, 3); }, "cuMemsetD8Async");
  fake::state().fail_call = "cuMemcpyDtoDAsync";
  expect_cuda_error([&] { triton_jit::detail::copy_async(kStream, b.address(), b.address() + 32, 32); },
                    "cuMemcpyDtoDAsync");
  fake::state().fail_call.clear();
}

TEST_F(Benchmark, LaunchErrorsPropagate) {
  int calls = 0;
  EXPECT_THROW(benchmark(
                   kStream,
                   [&] {
                     if (++calls == 3) throw std::runtime_error("third launch");
                     fake::advance(1.0);
                   },
                   BenchmarkOptions{}),
               std::runtime_error);
  EXPECT_EQ(fake::state().events_created, fake::state().events_destroyed);
}

}  // namespace

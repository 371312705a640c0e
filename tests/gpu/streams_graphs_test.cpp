// Launches on several streams at once (from several threads, cold table included), events between
// streams, CUDA graph capture of cached launches (scratch-needing kernels too) and table counters.
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_util.h"
#include "support/launch_metadata.h"

namespace {

using namespace gpu_test;

class GpuStreams : public GpuTest {};
class GpuGraphs : public GpuTest {};
class GpuTable : public GpuTest {};
using triton_jit::ArgSpan;
using triton_jit::ArgValue;
using triton_jit::LaunchConfig;
using triton_jit::Stats;
using triton_jit::to_arg;
using triton_jit::TritonJitFunction;

// Integer-valued inputs keep every sum exact, so results compare with ==.
std::vector<float> small_integers(size_t n, int lo, int hi, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(dist(rng));
  return v;
}

void expect_equal(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  Mismatches bad(what);
  for (size_t i = 0; i < want.size(); ++i) {
    if (!(got[i] == want[i])) bad.add(i, fmt(got[i]) + ", want " + fmt(want[i]));
  }
  EXPECT_EQ(bad.count(), 0u) << bad.report(want.size());
}

struct StreamGuard {
  cudaStream_t s = nullptr;
  StreamGuard() { CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~StreamGuard() {
    if (s) cudaStreamDestroy(s);
  }
};

// ---------------------------------------------------------------------------------------------

// Several threads, each with its own non-blocking stream and buffers, start together on a cold
// kernel (they race to compile the same key) and then launch many times concurrently.
TEST_F(GpuStreams, ConcurrentLaunchesOnSeveralStreamsFromSeveralThreads) {
  constexpr int kThreads = 4, kLaunches = 50, kBlock = 2048;
  const size_t n = (size_t{1} << 20) + 7;
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // A function of its own, so the key is cold even when earlier tests ran in this process.
  auto& axpy = TritonJitFunction::get(fresh_kernel_copy("elementwise.py"), "axpy_inplace_kernel");
  const Stats before = axpy.stats();

  std::mutex m;
  std::condition_variable cv;
  int ready = 0;
  bool go = false;
  std::vector<std::string> errors(kThreads);
  std::vector<std::vector<float>> results(kThreads), expected(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        std::mt19937_64 rng(seed + t);
        CUDA_CHECK(cudaSetDevice(0));
        StreamGuard stream;
        const std::vector<float> x = small_integers(n, -8, 8, rng);
        std::vector<float> acc = small_integers(n, -1000, 1000, rng);
        DeviceBuffer<float> dx(n), dacc(n);
        dx.upload(x);
        dacc.upload(acc);
        const float alpha = static_cast<float>(t + 1);
        {
          std::unique_lock<std::mutex> lock(m);
          ++ready;
          cv.notify_all();
          cv.wait(lock, [&] { return go; });
        }
        const LaunchConfig config{{cdiv(n, kBlock)}, 8, 3, 1, stream.s};
        for (int i = 0; i < kLaunches; ++i) axpy(config, dacc.get(), dx.get(), alpha, static_cast<int64_t>(n), kBlock);
        CUDA_CHECK(cudaStreamSynchronize(stream.s));
        results[t] = dacc.download();
        for (size_t i = 0; i < n; ++i) acc[i] += kLaunches * alpha * x[i];
        expected[t] = std::move(acc);
      } catch (const std::exception& e) {
        errors[t] = e.what();
        std::lock_guard<std::mutex> lock(m);
        ++ready;  // never leave the others waiting
        cv.notify_all();
      }
    });
  }
  {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return ready >= kThreads; });
    go = true;
    cv.notify_all();
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    SCOPED_TRACE("thread " + std::to_string(t));
    ASSERT_TRUE(errors[t].empty()) << errors[t];
    expect_equal(results[t], expected[t], "axpy_inplace_kernel on stream of thread " + std::to_string(t));
  }
  const Stats after = axpy.stats();
  EXPECT_EQ(after.compiles - before.compiles, 1u) << "racing threads must share one compile of the key";
  EXPECT_EQ(after.hits + after.misses - before.hits - before.misses, static_cast<uint64_t>(kThreads * kLaunches));
  EXPECT_EQ(after.loads - before.loads, 1u) << "one context, so one module load";
}

// One thread, several streams with work in flight at once, ordered across streams by events:
// stream k computes out_k = x + y_k, then stream (k+1) % S waits and accumulates out_k into acc.
TEST_F(GpuStreams, InterleavedStreamsOrderedByEvents) {
  constexpr int kStreams = 4, kBlock = 1024;
  const size_t n = 300007;
  std::mt19937_64 rng(test_seed());
  auto& add = TritonJitFunction::get(add_kernel_path(), "add_kernel");
  auto& axpy = TritonJitFunction::get(kernel_path("elementwise.py"), "axpy_inplace_kernel");
  const std::vector<float> x = small_integers(n, -50, 50, rng);
  DeviceBuffer<float> dx(n);
  dx.upload(x);
  std::vector<std::vector<float>> y(kStreams), acc(kStreams);
  std::vector<std::unique_ptr<DeviceBuffer<float>>> dy, dout, dacc;
  StreamGuard streams[kStreams];
  cudaEvent_t done[kStreams];
  for (int k = 0; k < kStreams; ++k) {
    y[k] = small_integers(n, -50, 50, rng);
    acc[k] = small_integers(n, -50, 50, rng);
    dy.push_back(std::make_unique<DeviceBuffer<float>>(n));
    dout.push_back(std::make_unique<DeviceBuffer<float>>(n));
    dacc.push_back(std::make_unique<DeviceBuffer<float>>(n));
    dy[k]->upload(y[k]);
    dacc[k]->upload(acc[k]);
    dout[k]->poison();
    CUDA_CHECK(cudaEventCreateWithFlags(&done[k], cudaEventDisableTiming));
  }
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < kStreams; ++k) {
      add(LaunchConfig{{cdiv(n, kBlock)}, 4, 3, 1, streams[k].s}, dx.get(), dy[k]->get(), dout[k]->get(),
          static_cast<int64_t>(n), kBlock);
      CUDA_CHECK(cudaEventRecord(done[k], streams[k].s));
    }
    for (int k = 0; k < kStreams; ++k) {
      const int next = (k + 1) % kStreams;
      CUDA_CHECK(cudaStreamWaitEvent(streams[next].s, done[k], 0));
      axpy(LaunchConfig{{cdiv(n, kBlock)}, 4, 3, 1, streams[next].s}, dacc[k]->get(), dout[k]->get(), 1.0f,
           static_cast<int64_t>(n), kBlock);
    }
    // The next round's add on stream k overwrites out_k: it must wait for the reader on stream k+1.
    for (int k = 0; k < kStreams; ++k) {
      const int next = (k + 1) % kStreams;
      CUDA_CHECK(cudaEventRecord(done[k], streams[next].s));
      CUDA_CHECK(cudaStreamWaitEvent(streams[k].s, done[k], 0));
    }
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int k = 0; k < kStreams; ++k) {
    for (size_t i = 0; i < n; ++i) acc[k][i] += 3 * (x[i] + y[k][i]);
    expect_equal(dacc[k]->download(), acc[k], "accumulator " + std::to_string(k));
    CUDA_CHECK(cudaEventDestroy(done[k]));
  }
}

// ---------------------------------------------------------------------------------------------

// Warm the kernel, capture N cached launches into a graph on a non-blocking stream (global
// capture mode: nothing in the hit path may touch the legacy stream or synchronize), replay it.
TEST_F(GpuGraphs, GraphCaptureOfCachedLaunches) {
  constexpr int kCaptured = 10, kReplays = 5, kBlock = 512;
  const size_t n = 100003;
  std::mt19937_64 rng(test_seed());
  auto& axpy = TritonJitFunction::get(kernel_path("elementwise.py"), "axpy_inplace_kernel");
  const std::vector<float> x = small_integers(n, -20, 20, rng);
  std::vector<float> acc = small_integers(n, -1000, 1000, rng);
  DeviceBuffer<float> dx(n), dacc(n);
  dx.upload(x);
  StreamGuard stream;
  const LaunchConfig config{{cdiv(n, kBlock)}, 4, 3, 1, stream.s};

  // Warm-up: compiles and loads. Its effect is undone by the upload below.
  axpy(config, dacc.get(), dx.get(), 1.0f, static_cast<int64_t>(n), kBlock);
  CUDA_CHECK(cudaStreamSynchronize(stream.s));
  dacc.upload(acc);

  const Stats before = axpy.stats();
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(stream.s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < kCaptured; ++i) {
    const float alpha = (i % 2 == 0) ? 1.0f : 2.0f;  // scalars are not specialized: one key
    axpy(config, dacc.get(), dx.get(), alpha, static_cast<int64_t>(n), kBlock);
  }
  CUDA_CHECK(cudaStreamEndCapture(stream.s, &graph));
  const Stats captured = axpy.stats();
  EXPECT_EQ(captured.hits - before.hits, static_cast<uint64_t>(kCaptured));
  EXPECT_EQ(captured.misses, before.misses);
  EXPECT_EQ(captured.compiles, before.compiles);
  EXPECT_EQ(captured.loads, before.loads);

  size_t nodes = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  EXPECT_EQ(nodes, static_cast<size_t>(kCaptured)) << "one kernel node per captured launch";
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < kReplays; ++r) CUDA_CHECK(cudaGraphLaunch(exec, stream.s));
  CUDA_CHECK(cudaStreamSynchronize(stream.s));

  // Per replay: 5 launches with alpha 1 and 5 with alpha 2.
  for (size_t i = 0; i < n; ++i) acc[i] += kReplays * 15.0f * x[i];
  expect_equal(dacc.download(), acc, "axpy_inplace_kernel after graph replays");
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
}

// The scratch of a kernel that needs global scratch is stream-ordered (cuMemAllocAsync), so its
// launches capture too: the graph gets memory alloc/free nodes around each kernel.
TEST_F(GpuGraphs, GraphCaptureOfKernelNeedingGlobalScratch) {
  const int arch = device_arch();
  if (arch < 90) GTEST_SKIP() << "device-side tensor descriptors (TMA) need sm_90 or newer; the device is sm_" << arch;
  constexpr int M = 200, N = 96, BM = 32, BN = 32;
  const size_t count = static_cast<size_t>(M) * N;
  std::mt19937_64 rng(test_seed());
  auto& fn = TritonJitFunction::get(kernel_path("tensor_descriptor.py"), "scale_shift_2d_kernel");
  const std::vector<float> a = small_integers(count, -100, 100, rng);
  DeviceBuffer<float> da(count), db(count), dc(count);
  da.upload(a);
  StreamGuard stream;
  const LaunchConfig config{{cdiv(M, BM), cdiv(N, BN)}, 4, 3, 1, stream.s};
  // b = 2a + 1, then c = 2b + 1 = 4a + 3: the second kernel reads what the first wrote.
  auto step = [&](const float* in, float* out) { fn(config, in, out, M, N, 2.0f, 1.0f, BM, BN); };
  step(da.get(), db.get());  // warm-up
  CUDA_CHECK(cudaStreamSynchronize(stream.s));
  const ArgValue args[] = {to_arg(da.get()), to_arg(db.get()), to_arg(M),  to_arg(N),
                           to_arg(2.0f),     to_arg(1.0f),     to_arg(BM), to_arg(BN)};
  ASSERT_GT(triton_jit::test::launch_metadata(fn.compile(config, ArgSpan{args, 8})).global_scratch_size, 0)
      << "the kernel should need global scratch";
  db.poison();
  dc.poison();

  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(stream.s, cudaStreamCaptureModeGlobal));
  step(da.get(), db.get());
  step(db.get(), dc.get());
  CUDA_CHECK(cudaStreamEndCapture(stream.s, &graph));
  size_t nodes = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  std::printf("graph of two scratch-needing launches has %zu nodes\n", nodes);
  EXPECT_GE(nodes, 2u);
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < 3; ++r) CUDA_CHECK(cudaGraphLaunch(exec, stream.s));
  CUDA_CHECK(cudaStreamSynchronize(stream.s));
  std::vector<float> b(count), c(count);
  for (size_t i = 0; i < count; ++i) {
    b[i] = 2 * a[i] + 1;
    c[i] = 4 * a[i] + 3;
  }
  expect_equal(db.download(), b, "first scratch kernel in the graph");
  expect_equal(dc.download(), c, "second scratch kernel in the graph");
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
}

// ---------------------------------------------------------------------------------------------

TEST_F(GpuTable, SecondLaunchIsATableHit) {
  constexpr int kBlock = 256;
  const int n = 4099;
  std::mt19937_64 rng(test_seed());
  const std::vector<float> x = small_integers(n, -9, 9, rng), y = small_integers(n, -9, 9, rng);
  DeviceBuffer<float> dx(n), dy(n), dout(n);
  dx.upload(x);
  dy.upload(y);
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = x[i] + y[i];
  // A function of its own: its first launch is a miss whatever ran before in this process.
  auto& add = TritonJitFunction::get(fresh_copy(add_kernel_path()), "add_kernel");
  const LaunchConfig config{{cdiv(n, kBlock)}, 2};

  const Stats s0 = add.stats();
  const Stats g0 = triton_jit::global_stats();
  dout.poison();
  add(config, dx.get(), dy.get(), dout.get(), n, kBlock);
  CUDA_CHECK(cudaDeviceSynchronize());
  expect_equal(dout.download(), want, "first launch");
  const Stats s1 = add.stats();
  EXPECT_EQ(s1.misses - s0.misses, 1u);
  EXPECT_EQ(s1.compiles - s0.compiles, 1u);
  EXPECT_EQ(s1.loads - s0.loads, 1u);
  EXPECT_EQ(s1.hits, s0.hits);

  dout.poison();
  add(config, dx.get(), dy.get(), dout.get(), n, kBlock);
  CUDA_CHECK(cudaDeviceSynchronize());
  expect_equal(dout.download(), want, "second launch");
  const Stats s2 = add.stats();
  EXPECT_EQ(s2.hits - s1.hits, 1u) << "the second launch must be a hit";
  EXPECT_EQ(s2.misses, s1.misses);
  EXPECT_EQ(s2.compiles, s1.compiles);
  EXPECT_EQ(s2.loads, s1.loads);

  const Stats g2 = triton_jit::global_stats();
  EXPECT_GE(g2.hits - g0.hits, 1u);
  EXPECT_GE(g2.compiles - g0.compiles, 1u);
}

}  // namespace

// The kernel table (in memory) behind compile(): hits and misses by key, one compile per key even
// when many threads ask at once. Each test uses keys (BLOCK values) no other test uses, so the
// tests also hold when the whole executable runs in one process.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

using triton_jit::KernelInfo;
using triton_jit::Stats;
using triton_jit::TritonJitFunction;

namespace {

std::vector<triton_jit::ArgValue> add_args(int block, uint64_t x = 0x100000, int n = 1000) {
  return {test::ptr(x), test::ptr(0x200000), test::ptr(0x300000), triton_jit::to_arg(n), triton_jit::to_arg(block)};
}

TEST(KernelTable, SecondIdenticalCallHits) {
  const Stats s0 = test::add_kernel().stats();
  const auto args = add_args(16);
  const KernelInfo& first = test::add_kernel().compile(test::config(), test::span(args));
  const Stats s1 = test::add_kernel().stats();
  EXPECT_EQ(s1.compiles, s0.compiles + 1);
  EXPECT_EQ(s1.misses, s0.misses + 1);
  EXPECT_EQ(s1.hits, s0.hits);

  const KernelInfo& second = test::add_kernel().compile(test::config(), test::span(args));
  const Stats s2 = test::add_kernel().stats();
  EXPECT_EQ(&first, &second);
  EXPECT_EQ(s2.compiles, s1.compiles);
  EXPECT_EQ(s2.misses, s1.misses);
  EXPECT_EQ(s2.hits, s1.hits + 1);

  // Other addresses with the same alignment, another size with the same hint: the same key.
  const auto other = add_args(16, 0x7f0000000000, 999);
  EXPECT_EQ(&test::add_kernel().compile(test::config(), test::span(other)), &first);
  EXPECT_EQ(test::add_kernel().stats().compiles, s1.compiles);
  EXPECT_EQ(test::add_kernel().stats().hits, s1.hits + 2);
}

TEST(KernelTable, DifferentKeysCompileAgain) {
  const auto a = add_args(32);
  const KernelInfo& base = test::add_kernel().compile(test::config(), test::span(a));
  const Stats s0 = test::add_kernel().stats();

  const auto other_block = add_args(8192);  // another constexpr
  EXPECT_NE(&test::add_kernel().compile(test::config(), test::span(other_block)), &base);
  EXPECT_EQ(test::add_kernel().stats().compiles, s0.compiles + 1);

  const auto misaligned = add_args(32, 0x100004);  // another pointer hint
  EXPECT_NE(&test::add_kernel().compile(test::config(), test::span(misaligned)), &base);
  EXPECT_EQ(test::add_kernel().stats().compiles, s0.compiles + 2);

  EXPECT_NE(&test::add_kernel().compile(test::config(1, 2), test::span(a)), &base);  // another num_warps
  EXPECT_EQ(test::add_kernel().stats().compiles, s0.compiles + 3);

  EXPECT_NE(&test::add_kernel().compile(test::config(1, 4, 2), test::span(a)), &base);  // another num_stages
  EXPECT_EQ(test::add_kernel().stats().compiles, s0.compiles + 4);

  const auto one = add_args(32, 0x100000, 1);  // n == 1 is a constexpr
  EXPECT_NE(&test::add_kernel().compile(test::config(), test::span(one)), &base);
  EXPECT_EQ(test::add_kernel().stats().compiles, s0.compiles + 5);

  const auto big = add_args(32, 0x100000, 0);
  std::vector<triton_jit::ArgValue> wide = big;
  wide[3] = triton_jit::to_arg(int64_t{1} << 40);  // i64 instead of i32
  EXPECT_NE(&test::add_kernel().compile(test::config(), test::span(wide)), &base);
  EXPECT_EQ(test::add_kernel().stats().compiles, s0.compiles + 6);
  EXPECT_EQ(test::add_kernel().stats().hits, s0.hits);
}

TEST(KernelTable, StringConstexprsCompareByContent) {
  auto& fn = TritonJitFunction::get(test::kernel("defaults.py"), "defaults_kernel");
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x1000});
  std::string fast = "fast", slow = "slow";
  const auto a = test::args(x, 100, 256, std::string_view(fast));
  const KernelInfo& k_fast = fn.compile(test::config(), test::span(a));
  const Stats s0 = fn.stats();
  const auto b = test::args(x, 100, 256, std::string_view(slow));
  const KernelInfo& k_slow = fn.compile(test::config(), test::span(b));
  EXPECT_NE(&k_fast, &k_slow);
  EXPECT_NE(k_fast.hash, k_slow.hash);
  EXPECT_EQ(fn.stats().compiles, s0.compiles + 1);
  // The same text in another buffer is the same key.
  std::string fast_copy = std::string("fa") + "st";
  const auto c = test::args(x, 100, 256, std::string_view(fast_copy));
  EXPECT_EQ(&fn.compile(test::config(), test::span(c)), &k_fast);
  EXPECT_EQ(fn.stats().compiles, s0.compiles + 1);
  // Omitting MODE takes its default 'fast'.
  const auto d = test::args(x, 100, 256);
  EXPECT_EQ(&fn.compile(test::config(), test::span(d)), &k_fast);
}

// Starts `threads` threads at once, each running body(i).
template <typename F>
void run_together(int threads, F body) {
  std::mutex m;
  std::condition_variable cv;
  bool go = false;
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&, i] {
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return go; });
      }
      body(i);
    });
  }
  {
    std::lock_guard<std::mutex> lock(m);
    go = true;
  }
  cv.notify_all();
  for (auto& t : pool) t.join();
}

TEST(KernelTable, ConcurrentCallsForOneKeyCompileOnce) {
  const Stats s0 = test::add_kernel().stats();
  const auto args = add_args(4096);
  std::vector<const KernelInfo*> results(8, nullptr);
  std::atomic<int> errors{0};
  run_together(8, [&](int i) {
    try {
      results[i] = &test::add_kernel().compile(test::config(), test::span(args));
    } catch (...) {
      ++errors;
    }
  });
  EXPECT_EQ(errors.load(), 0);
  for (const KernelInfo* r : results) EXPECT_EQ(r, results[0]);
  const Stats s1 = test::add_kernel().stats();
  EXPECT_EQ(s1.compiles, s0.compiles + 1);
  EXPECT_EQ((s1.hits - s0.hits) + (s1.misses - s0.misses), 8u);
}

TEST(KernelTable, ConcurrentCallsForSeveralKeysCompileEachOnce) {
  auto& fn = TritonJitFunction::get(test::kernel("scratch.py"), "sum_kernel");
  const Stats s0 = fn.stats();
  const int blocks[] = {64, 128, 256};
  std::vector<const KernelInfo*> results(8, nullptr);
  std::atomic<int> errors{0};
  run_together(8, [&](int i) {
    const auto args = test::args(reinterpret_cast<const float*>(uintptr_t{0x1000}),
                                 reinterpret_cast<float*>(uintptr_t{0x2000}), blocks[i % 3]);
    try {
      results[i] = &fn.compile(test::config(), test::span(args));
    } catch (...) {
      ++errors;
    }
  });
  EXPECT_EQ(errors.load(), 0);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(results[i], results[i % 3]) << i;
    if (i >= 3) continue;
    for (int j = 0; j < i; ++j) EXPECT_NE(results[i], results[j]);
  }
  EXPECT_EQ(fn.stats().compiles, s0.compiles + 3);
}

TEST(KernelTable, GlobalStatsSumAllFunctions) {
  auto& fn = TritonJitFunction::get(test::kernel("mixed_module.py"), "real_kernel");
  const Stats g0 = triton_jit::global_stats();
  const Stats f0 = fn.stats();
  const auto args = test::args(reinterpret_cast<const float*>(uintptr_t{0x1000}), 16);
  fn.compile(test::config(), test::span(args));
  fn.compile(test::config(), test::span(args));
  const Stats g1 = triton_jit::global_stats();
  EXPECT_EQ(g1.compiles - g0.compiles, fn.stats().compiles - f0.compiles);
  EXPECT_EQ(g1.hits - g0.hits, 1u);
  EXPECT_GE(g1.compiles, fn.stats().compiles + test::add_kernel().stats().compiles);
}

TEST(KernelTable, CompileSignatureIsNotKeptInTheTable) {
  const Stats s0 = test::add_kernel().stats();
  test::add_kernel().compile(
      triton_jit::CompileRequest{"*fp32:16,*fp32:16,*fp32:16,i32,8", 4, 3, 1, {}, triton_jit::Target{}});
  test::add_kernel().compile(
      triton_jit::CompileRequest{"*fp32:16,*fp32:16,*fp32:16,i32,8", 4, 3, 1, {}, triton_jit::Target{}});
  EXPECT_EQ(test::add_kernel().stats().compiles, s0.compiles + 2);
  EXPECT_EQ(test::add_kernel().stats().hits, s0.hits);
  // Nor does it fill the table a call uses; a call finds the kernel in the persistent index.
  const auto args = add_args(8);
  test::add_kernel().compile(test::config(), test::span(args));
  EXPECT_EQ(test::add_kernel().stats().compiles, s0.compiles + 2);
  EXPECT_EQ(test::add_kernel().stats().misses, s0.misses + 1);
  EXPECT_EQ(test::add_kernel().stats().index_hits, s0.index_hits + 1);
}

}  // namespace

// Instructions per cached launch, counted by callgrind (run it through bench/callgrind-launch.sh).
//
//   bench_launch_callgrind [N [ROUNDS]]
//   bench_launch_callgrind --client-requests   (prints yes when callgrind.h was available)
//
// Sets up the fake driver, loads and compiles the kernels (Python init and Triton compile happen
// here, unmeasured), warms up, then runs N launches inside each tjb_region_* function. The script
// runs this under `valgrind --tool=callgrind --toggle-collect=tjb_region_*` so that only the
// regions are counted, and divides each region's instructions by N. Outside valgrind it runs the
// regions ROUNDS times (default 1) and prints the best round's wall time, and where the kernel
// allows perf_event_open the user-space cycles and instructions, per launch.

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "bench_common.h"
#include "fake_driver.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define TJB_HAVE_CALLGRIND_H 1
#endif
#endif
#ifndef TJB_HAVE_CALLGRIND_H
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

namespace tjb = triton_jit_bench;

namespace {

struct Sample {
  double ns = 0;
  uint64_t cycles = 0, instructions = 0;
};

// The thread's user-space cycles and instructions (perf_event_open), plus the wall clock: cycles
// do not count the time other processes held the core, which wall time on a shared machine does.
class CounterGroup {
 public:
  CounterGroup() {
    cycles_ = open_counter(PERF_COUNT_HW_CPU_CYCLES);
    instructions_ = open_counter(PERF_COUNT_HW_INSTRUCTIONS);
  }
  ~CounterGroup() {
    if (cycles_ >= 0) close(cycles_);
    if (instructions_ >= 0) close(instructions_);
  }
  bool ok() const { return cycles_ >= 0 && instructions_ >= 0; }
  Sample sample() const {
    Sample s;
    s.ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
    s.cycles = read_counter(cycles_);
    s.instructions = read_counter(instructions_);
    return s;
  }

 private:
  static int open_counter(uint64_t config) {
    perf_event_attr attr{};
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = config;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  }
  static uint64_t read_counter(int fd) {
    uint64_t v = 0;
    if (fd < 0 || read(fd, &v, sizeof v) != static_cast<ssize_t>(sizeof v)) return 0;
    return v;
  }
  int cycles_ = -1, instructions_ = -1;
};

}  // namespace

// The measured regions: extern "C" and never inlined, so --toggle-collect can name them.
extern "C" {
__attribute__((noinline)) void tjb_region_launch_add(const triton_jit::TritonJitFunction* fn, const tjb::AddArgs* a,
                                                     long n) {
  for (long i = 0; i < n; ++i) tjb::launch_add(*fn, *a);
}
__attribute__((noinline)) void tjb_region_launch_many(const triton_jit::TritonJitFunction* fn, const tjb::ManyArgs* a,
                                                      long n) {
  for (long i = 0; i < n; ++i) tjb::launch_many(*fn, *a);
}
__attribute__((noinline)) void tjb_region_raw_add(const tjb::RawLaunch* raw, long n) {
  const triton_jit::cuda::DriverApi& d = triton_jit::cuda::driver();
  for (long i = 0; i < n; ++i) {
    CUresult r = (*raw)(d);
    asm volatile("" : : "r"(r) : "memory");
  }
}
__attribute__((noinline)) void tjb_region_raw_many(const tjb::RawLaunch* raw, long n) {
  const triton_jit::cuda::DriverApi& d = triton_jit::cuda::driver();
  for (long i = 0; i < n; ++i) {
    CUresult r = (*raw)(d);
    asm volatile("" : : "r"(r) : "memory");
  }
}
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--client-requests") {
    // Whether CALLGRIND_START_INSTRUMENTATION is compiled in (callgrind-launch.sh asks, to run
    // everything before the regions uninstrumented).
#ifdef TJB_HAVE_CALLGRIND_H
    std::puts("yes");
    return 0;
#else
    std::puts("no");
    return 1;
#endif
  }
  const long n = argc > 1 ? std::atol(argv[1]) : 10000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 1;
  if (n <= 0 || rounds <= 0) {
    std::fprintf(stderr, "usage: %s [N>0 [ROUNDS>0]]\n", argv[0]);
    return 2;
  }
  try {
    const tjb::Kernels k = tjb::setup_fake_runtime();
    const tjb::AddArgs aa = tjb::add_args();
    const tjb::ManyArgs ma = tjb::many_args();
    const triton_jit::ArgValue add_values[] = {triton_jit::to_arg(aa.x), triton_jit::to_arg(aa.y),
                                               triton_jit::to_arg(aa.out), triton_jit::to_arg(aa.n),
                                               triton_jit::to_arg(tjb::AddArgs::kBlock)};
    const tjb::RawLaunch raw_add = tjb::raw_add(aa, k.add->compile(tjb::one_program(), {add_values, 5}),
                                                fake::quiet_function());
    const triton_jit::ArgValue many_values[] = {
        triton_jit::to_arg(ma.x[0]), triton_jit::to_arg(ma.x[1]), triton_jit::to_arg(ma.x[2]),
        triton_jit::to_arg(ma.x[3]), triton_jit::to_arg(ma.out),  triton_jit::to_arg(ma.n),
        triton_jit::to_arg(ma.o[0]), triton_jit::to_arg(ma.o[1]), triton_jit::to_arg(ma.o[2]),
        triton_jit::to_arg(ma.o[3]), triton_jit::to_arg(ma.a[0]), triton_jit::to_arg(ma.a[1]),
        triton_jit::to_arg(ma.a[2]), triton_jit::to_arg(ma.a[3]), triton_jit::to_arg(tjb::ManyArgs::kBlock)};
    const tjb::RawLaunch raw_many = tjb::raw_many(ma, k.many->compile(tjb::one_program(), {many_values, 15}),
                                                  fake::quiet_function());

    // Warm-up outside the regions: thread-local device cache, first-touch of everything.
    for (int i = 0; i < 100; ++i) {
      tjb::launch_add(*k.add, aa);
      tjb::launch_many(*k.many, ma);
    }

    // Each round runs the four regions once; natively the best round counts (fewest cycles:
    // on a shared machine the others mostly measure the neighbours). Under callgrind use 1 round.
    constexpr int kRegions = 4;
    double best_ns[kRegions], best_cycles[kRegions], best_instr[kRegions];
    for (int r = 0; r < kRegions; ++r) best_ns[r] = best_cycles[r] = best_instr[r] = 1e300;
    CounterGroup counters;
    CALLGRIND_START_INSTRUMENTATION;
    for (int round = 0; round < rounds; ++round) {
      for (int r = 0; r < kRegions; ++r) {
        const Sample before = counters.sample();
        switch (r) {
          case 0: tjb_region_launch_add(k.add, &aa, n); break;
          case 1: tjb_region_launch_many(k.many, &ma, n); break;
          case 2: tjb_region_raw_add(&raw_add, n); break;
          default: tjb_region_raw_many(&raw_many, n); break;
        }
        const Sample after = counters.sample();
        best_ns[r] = std::min(best_ns[r], (after.ns - before.ns) / n);
        best_cycles[r] = std::min(best_cycles[r], static_cast<double>(after.cycles - before.cycles) / n);
        best_instr[r] = std::min(best_instr[r], static_cast<double>(after.instructions - before.instructions) / n);
      }
    }
    CALLGRIND_STOP_INSTRUMENTATION;

    std::printf("launches per region: %ld, rounds: %d (best round shown)\n", n, rounds);
    std::printf("wall ns/launch (meaningless under valgrind): add %.1f, many %.1f, raw4 %.1f, raw14 %.1f\n", best_ns[0],
                best_ns[1], best_ns[2], best_ns[3]);
    if (counters.ok()) {
      std::printf("user-space cycles/launch (perf): add %.1f, many %.1f, raw4 %.1f, raw14 %.1f\n", best_cycles[0],
                  best_cycles[1], best_cycles[2], best_cycles[3]);
      std::printf("user-space instructions/launch (perf): add %.1f, many %.1f, raw4 %.1f, raw14 %.1f\n", best_instr[0],
                  best_instr[1], best_instr[2], best_instr[3]);
    } else {
      std::printf("cycles/launch: not available (perf_event_open refused)\n");
    }
    const triton_jit::Stats s = k.add->stats();
    std::printf("add_kernel table: hits %llu, misses %llu, compiles %llu\n", static_cast<unsigned long long>(s.hits),
                static_cast<unsigned long long>(s.misses), static_cast<unsigned long long>(s.compiles));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_launch_callgrind: %s\n", e.what());
    return 1;
  }
  return 0;
}

// CPU cost of a cached launch, against the driver floor, on a fake driver (no GPU needed).
//
// The fake driver's cuLaunchKernel returns CUDA_SUCCESS and does nothing, so the time of
// fn(config, args...) is libtriton_jit's own work: argument conversion, key building, the
// lock-free cache lookup, parameter packing and one indirect call. The raw baseline calls the
// same fake cuLaunchKernel with a parameter array packed once, so the difference between the two
// is the runtime's overhead per launch. Heap allocations made during the timed loop are counted
// (global operator new is replaced, see alloc_counter.cpp) and reported as allocs_per_launch.
//
// Kernels (bench/kernels/launch_kernels.py) are compiled for real by Triton, for cuda:90, on the
// first call, before any benchmark runs.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "alloc_counter.h"
#include "bench_common.h"
#include "fake_driver.h"

namespace tjb = triton_jit_bench;

namespace {

tjb::Kernels g_kernels;
tjb::AddArgs g_add_args;
tjb::ManyArgs g_many_args;
tjb::RawLaunch g_raw_add, g_raw_many;

std::string g_format = "console";
bool g_repetitions_given = false;

constexpr double kTargetNs = 150.0;  // per cached launch of the 5-argument kernel

// Runs `body` once per iteration and reports heap allocations per iteration.
template <typename Body>
void timed(benchmark::State& state, Body&& body) {
  const uint64_t before = tjb::thread_allocations();
  for (auto _ : state) body();
  const uint64_t allocs = tjb::thread_allocations() - before;
  state.counters["allocs_per_launch"] = benchmark::Counter(static_cast<double>(allocs),
                                                           benchmark::Counter::kAvgIterations);
}

void BM_CachedLaunch_Add(benchmark::State& state) {
  const triton_jit::TritonJitFunction& fn = *g_kernels.add;
  const tjb::AddArgs a = g_add_args;
  timed(state, [&] { tjb::launch_add(fn, a); });
}

void BM_CachedLaunch_Many(benchmark::State& state) {
  const triton_jit::TritonJitFunction& fn = *g_kernels.many;
  const tjb::ManyArgs a = g_many_args;
  timed(state, [&] { tjb::launch_many(fn, a); });
}

// The non-template entry with a prebuilt argument array: no per-call conversion of C++ values.
void BM_CachedLaunchSpan_Add(benchmark::State& state) {
  const triton_jit::TritonJitFunction& fn = *g_kernels.add;
  const tjb::AddArgs a = g_add_args;
  const triton_jit::ArgValue values[] = {triton_jit::to_arg(a.x), triton_jit::to_arg(a.y), triton_jit::to_arg(a.out),
                                         triton_jit::to_arg(a.n), triton_jit::to_arg(tjb::AddArgs::kBlock)};
  const triton_jit::LaunchConfig config = tjb::one_program();
  timed(state, [&] { fn.launch(config, triton_jit::ArgSpan{values, 5}); });
}

// The same launch with a C++ launch hook pair registered (both do nothing): the cost of the
// hooked path (launch/hooked_launch.cpp) itself, and that it allocates nothing either.
void BM_CachedLaunchHooked_Add(benchmark::State& state) {
  const triton_jit::TritonJitFunction& fn = *g_kernels.add;
  const tjb::AddArgs a = g_add_args;
  static int calls = 0;
  const auto count = [](const triton_jit::LaunchHookInfo&, void* n) { ++*static_cast<int*>(n); };
  const uint64_t id = triton_jit::add_launch_hooks({count, count, &calls});
  timed(state, [&] { tjb::launch_add(fn, a); });
  triton_jit::remove_launch_hooks(id);
}

// The floor: the same fake cuLaunchKernel through the same kind of table, parameters prepacked.
void BM_RawDriverLaunch(benchmark::State& state, const tjb::RawLaunch* raw) {
  const triton_jit::cuda::DriverApi& d = triton_jit::cuda::driver();  // the installed fake
  timed(state, [&] { benchmark::DoNotOptimize((*raw)(d)); });
}

struct Result {
  double real_ns = 0;
  double cpu_ns = 0;
  double allocs = 0;
  int threads = 1;
};

// Whether a run failed or was skipped: Google Benchmark up to 1.7 has Run::error_occurred, 1.8 and
// later Run::skipped.
template <typename R>
auto run_failed(const R& r, int) -> decltype(static_cast<bool>(r.error_occurred)) {
  return r.error_occurred;
}
template <typename R>
auto run_failed(const R& r, long) -> decltype(static_cast<int>(r.skipped) != 0) {
  return static_cast<int>(r.skipped) != 0;
}
template <typename R>
bool run_failed(const R&, ...) {
  return false;
}

// Forwards to the reporter --benchmark_format asks for, keeping the numbers for the summary.
class SummaryReporter : public benchmark::BenchmarkReporter {
 public:
  explicit SummaryReporter(benchmark::BenchmarkReporter* inner) : inner_(inner) {}
  bool ReportContext(const Context& context) override { return inner_->ReportContext(context); }
  void Finalize() override { inner_->Finalize(); }
  void ReportRuns(const std::vector<Run>& runs) override {
    inner_->ReportRuns(runs);
    for (const Run& r : runs) {
      if (run_failed(r, 0)) continue;
      const bool aggregate = r.run_type == Run::RT_Aggregate;
      // Preference: the fastest repetition, else the median, else a single run.
      const int rank = !aggregate ? 1 : r.aggregate_name == "min" ? 3 : r.aggregate_name == "median" ? 2 : 0;
      const std::string key = r.run_name.function_name + (r.threads > 1 ? "/threads:" + std::to_string(r.threads) : "");
      // Allocations: the worst seen (a mean above 0 means some repetition allocated).
      auto counter = r.counters.find("allocs_per_launch");
      if (counter != r.counters.end() && (rank > 0 || r.aggregate_name == "mean")) {
        max_allocs_[key] = std::max(max_allocs_[key], counter->second.value);
      }
      if (rank == 0 || ranks_[key] > rank) continue;
      Result res;
      res.real_ns = r.GetAdjustedRealTime() * to_ns(r.time_unit);
      res.cpu_ns = r.GetAdjustedCPUTime() * to_ns(r.time_unit);
      res.threads = static_cast<int>(r.threads);
      results_[key] = res;
      ranks_[key] = rank;
    }
    for (auto& [key, res] : results_) res.allocs = max_allocs_[key];
  }
  const std::map<std::string, Result>& results() const { return results_; }

 private:
  static double to_ns(benchmark::TimeUnit u) {
    switch (u) {
      case benchmark::kSecond: return 1e9;
      case benchmark::kMillisecond: return 1e6;
      case benchmark::kMicrosecond: return 1e3;
      default: return 1;
    }
  }
  benchmark::BenchmarkReporter* inner_;
  std::map<std::string, Result> results_;
  std::map<std::string, int> ranks_;
  std::map<std::string, double> max_allocs_;
};

// CPU time is the headline figure: on a shared machine, real time also counts the time other
// processes held the core. Both are printed.
void print_summary(std::FILE* out, const std::map<std::string, Result>& results) {
  auto find = [&](const std::string& k) -> const Result* {
    auto it = results.find(k);
    return it == results.end() ? nullptr : &it->second;
  };
  std::fprintf(out, "\nSummary: fake driver, ns per launch (CPU time; real time in parentheses); raw = the same fake "
                    "cuLaunchKernel called with prepacked params\n\n");
  std::fprintf(out, "| kernel | libtriton_jit ns | raw cuLaunchKernel ns | overhead ns | ratio | allocs/launch |\n");
  std::fprintf(out, "|---|---:|---:|---:|---:|---:|\n");
  struct Row {
    const char* label;
    const char* ours;
    const char* raw;
  } rows[] = {
      {"add_kernel: 5 args, 4 runtime params", "cached_launch/add_kernel", "raw_cuLaunchKernel/4_params"},
      {"add_kernel via launch(config, ArgSpan)", "cached_launch_span/add_kernel", "raw_cuLaunchKernel/4_params"},
      {"add_kernel with a C++ launch hook pair", "cached_launch_hooked/add_kernel", "raw_cuLaunchKernel/4_params"},
      {"add_kernel, 2 threads at once", "cached_launch/add_kernel/threads:2", "raw_cuLaunchKernel/4_params"},
      {"many_args_kernel: 15 args, 14 runtime params", "cached_launch/many_args_kernel",
       "raw_cuLaunchKernel/14_params"},
  };
  for (const Row& row : rows) {
    const Result* o = find(row.ours);
    const Result* r = find(row.raw);
    if (o == nullptr) continue;
    if (r == nullptr) {  // the raw benchmark was filtered out
      std::fprintf(out, "| %s | %.1f (%.1f) | - | - | - | %.3g |\n", row.label, o->cpu_ns, o->real_ns, o->allocs);
      continue;
    }
    std::fprintf(out, "| %s | %.1f (%.1f) | %.1f (%.1f) | %.1f | %.0fx | %.3g |\n", row.label, o->cpu_ns, o->real_ns,
                 r->cpu_ns, r->real_ns, o->cpu_ns - r->cpu_ns, r->cpu_ns > 0 ? o->cpu_ns / r->cpu_ns : 0.0, o->allocs);
  }
  if (const Result* o = find("cached_launch/add_kernel")) {
    const bool ok = o->cpu_ns <= kTargetNs && o->allocs == 0;
    std::fprintf(out,
                 "\ntarget: a cached launch of the 5-argument kernel in <= %.0f ns with 0 heap allocations: %s "
                 "(%.1f ns CPU, %.1f ns real, %.3g allocs/launch)\n",
                 kTargetNs, ok ? "met" : "MISSED", o->cpu_ns, o->real_ns, o->allocs);
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--benchmark_format=", 0) == 0) g_format = a.substr(19);
    if (a.rfind("--benchmark_repetitions", 0) == 0) g_repetitions_given = true;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  try {
    g_kernels = tjb::setup_fake_runtime();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "launch_cpu_bench: setup failed: %s\n", e.what());
    return 1;
  }
  g_add_args = tjb::add_args();
  g_many_args = tjb::many_args();
  {
    const triton_jit::LaunchConfig c = tjb::one_program();
    const triton_jit::ArgValue add_values[] = {triton_jit::to_arg(g_add_args.x), triton_jit::to_arg(g_add_args.y),
                                               triton_jit::to_arg(g_add_args.out), triton_jit::to_arg(g_add_args.n),
                                               triton_jit::to_arg(tjb::AddArgs::kBlock)};
    g_raw_add = tjb::raw_add(g_add_args, g_kernels.add->compile(c, {add_values, 5}), fake::quiet_function());
    const tjb::ManyArgs& m = g_many_args;
    const triton_jit::ArgValue many_values[] = {
        triton_jit::to_arg(m.x[0]), triton_jit::to_arg(m.x[1]), triton_jit::to_arg(m.x[2]),
        triton_jit::to_arg(m.x[3]), triton_jit::to_arg(m.out),  triton_jit::to_arg(m.n),
        triton_jit::to_arg(m.o[0]), triton_jit::to_arg(m.o[1]), triton_jit::to_arg(m.o[2]),
        triton_jit::to_arg(m.o[3]), triton_jit::to_arg(m.a[0]), triton_jit::to_arg(m.a[1]),
        triton_jit::to_arg(m.a[2]), triton_jit::to_arg(m.a[3]), triton_jit::to_arg(tjb::ManyArgs::kBlock)};
    g_raw_many = tjb::raw_many(m, g_kernels.many->compile(c, {many_values, 15}), fake::quiet_function());
  }

  // Unless told otherwise, 5 repetitions each, reported as aggregates; the summary takes the
  // fastest repetition (on a shared machine the others mostly measure the neighbours).
  auto configure = [](auto* b) {  // benchmark::internal::Benchmark (benchmark::Benchmark in new releases)
    b->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
    if (!g_repetitions_given) b->Repetitions(5)->DisplayAggregatesOnly(true);
  };
  configure(benchmark::RegisterBenchmark("cached_launch/add_kernel", BM_CachedLaunch_Add)->Threads(1)->Threads(2));
  configure(benchmark::RegisterBenchmark("cached_launch_span/add_kernel", BM_CachedLaunchSpan_Add));
  configure(benchmark::RegisterBenchmark("cached_launch_hooked/add_kernel", BM_CachedLaunchHooked_Add));
  configure(benchmark::RegisterBenchmark("cached_launch/many_args_kernel", BM_CachedLaunch_Many));
  configure(benchmark::RegisterBenchmark("raw_cuLaunchKernel/4_params", BM_RawDriverLaunch, &g_raw_add));
  configure(benchmark::RegisterBenchmark("raw_cuLaunchKernel/14_params", BM_RawDriverLaunch, &g_raw_many));

  // The reporter --benchmark_format names (console unless told), wrapped to collect the summary.
  std::unique_ptr<benchmark::BenchmarkReporter> inner;
  if (g_format == "json") {
    inner = std::make_unique<benchmark::JSONReporter>();
  } else {
    if (g_format != "console")
      std::fprintf(stderr, "launch_cpu_bench: format '%s' not supported here; console\n", g_format.c_str());
    inner = std::make_unique<benchmark::ConsoleReporter>(
        isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_ColorTabular : benchmark::ConsoleReporter::OO_Tabular);
  }
  SummaryReporter reporter(inner.get());
  benchmark::RunSpecifiedBenchmarks(&reporter);
  // Keeps machine-readable output clean: the summary goes to stderr unless the format is console.
  print_summary(g_format == "json" ? stderr : stdout, reporter.results());
  benchmark::Shutdown();
  return 0;
}

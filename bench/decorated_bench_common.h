// What the benchmarks of decorated kernels share (decorated_launch_bench, libentry_launch_bench):
// the raw path over the cubin the decorators chose for a call, and the timing of alternating paths.
#pragma once

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "../tests/support/launch_metadata.h"
#include "gpu_launch_common.h"
#include "triton_jit/triton_jit.h"

namespace triton_jit_bench {

// A table cell: up to three numbers through a printf format.
inline std::string fmt(const char* format, double a, double b = 0, double c = 0) {
  char line[256];
  std::snprintf(line, sizeof line, format, a, b, c);
  return line;
}

inline triton_jit::LaunchConfig one_program() {
  triton_jit::LaunchConfig c;
  c.grid = triton_jit::Grid(1);
  return c;
}

// The raw path for one decorated call: the cubin the runtime resolved for these caller arguments
// (heuristics applied, tuned config chosen), loaded with the driver, parameters packed once.
struct RawKernel {
  CUfunction function = nullptr;
  unsigned block_x = 0, shared = 0;
  Packed packed;
  int runtime_params = 0;    // the caller's arguments that reach the kernel (scratch pointers not counted)
  std::string hash, chosen;  // Triton's hash; the constexprs and warps the decorators chose

  RawKernel(const triton_jit::TritonJitFunction& fn, const std::vector<triton_jit::ArgValue>& args) {
    const triton_jit::LaunchConfig config = one_program();
    const triton_jit::ArgSpan span{args.data(), args.size()};
    const triton_jit::KernelInfo& info = fn.compile(config, span);
    const triton_jit::Specialization spec = fn.specialize(config, span);
    // The decorators set trailing constexprs only: runtime parameters are all caller arguments.
    for (size_t i = 0; i < spec.params.size(); ++i) {
      if (spec.params[i].type == "constexpr") {
        if (i >= args.size()) chosen += fn.signature().params[i].name + "=" + spec.params[i].value_repr + ", ";
        continue;
      }
      if (i >= args.size()) fail(fn.name() + ": runtime parameter " + std::to_string(i) + " set by a decorator");
      packed.push(args[i], spec.params[i].type);
    }
    chosen += "num_warps=" + std::to_string(spec.num_warps) + ", num_stages=" + std::to_string(spec.num_stages);
    runtime_params = packed.count;
    const auto& meta = triton_jit::test::launch_metadata(info);
    for (size_t s = 0; s < meta.scratch_params.size(); ++s) {
      const CUdeviceptr null = 0;
      packed.push(&null, sizeof null);
    }
    if (meta.global_scratch_size > 0 || meta.profile_scratch_size > 0) {
      fail(fn.name() + ": the kernel needs scratch memory; the raw loop would pass null");
    }
    CUmodule module = nullptr;
    check_cu(g_cu.ModuleLoadData(&module, info.cubin.data()), "cuModuleLoadData");
    check_cu(g_cu.ModuleGetFunction(&function, module, info.name.c_str()), "cuModuleGetFunction");
    block_x = static_cast<unsigned>(info.num_warps * info.target.warp_size);
    shared = static_cast<unsigned>(info.shared);
    if (shared > 49152) fail(fn.name() + ": needs the >48 KiB shared memory opt-in; not handled here");
    hash = info.hash;
  }
  void operator()() {
    check_cu(g_cu.LaunchKernel(function, 1, 1, 1, block_x, 1, 1, shared, nullptr, packed.params, nullptr),
             "cuLaunchKernel");
  }
};

// One timed path: runs a batch of its launches, returns µs per launch. The batch loop is
// instantiated per lambda, so the std::function indirection is paid once a batch, not a launch.
struct Path {
  std::function<double(int)> run;
  std::vector<double> times;
};
template <typename F>
Path path_of(F launch) {
  return Path{[launch](int batch) mutable { return time_batch(batch, launch); }, {}};
}

// Warm-up, then rounds of one batch per path, the first path rotating so none always follows a
// synchronization. Returns each path's median µs per launch.
inline std::vector<double> measure(std::vector<Path>& paths, int launches, int batch) {
  for (int w = 0; w < 2; ++w)
    for (Path& p : paths) p.run(batch);
  check_rt(cudaGetLastError(), "kernel launch");
  const int reps = std::max(1, launches / batch);
  for (int r = 0; r < reps; ++r)
    for (size_t j = 0; j < paths.size(); ++j) {
      Path& p = paths[(r + j) % paths.size()];
      p.times.push_back(p.run(batch));
    }
  std::vector<double> medians;
  for (const Path& p : paths) medians.push_back(median(p.times));
  return medians;
}

}  // namespace triton_jit_bench

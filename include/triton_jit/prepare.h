#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "triton_jit/export.h"
#include "triton_jit/jit_function.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/settings.h"

namespace triton_jit {

// One specialization to have ready before it is launched.
struct KernelRequest {
  const TritonJitFunction* function = nullptr;
  // Triton's signature syntax, one item per parameter: "*fp32:16,*fp32:16,i32,1024".
  // request() below derives it from a call's arguments.
  std::string signature;
  int num_warps = 4;
  int num_stages = 3;
  int num_ctas = 1;
  CompileOptions options;
  // Default: the target a launch on the current device uses (explicit_target(), else the
  // device's, else cuda:90).
  std::optional<Target> target;
};

// The request for the kernel that `fn(config, args...)` would launch.
template <typename... Args>
KernelRequest request(const TritonJitFunction& fn, const LaunchConfig& config, const Args&... args) {
  KernelRequest r;
  r.function = &fn;
  if constexpr (sizeof...(Args) == 0) {
    r.signature = fn.specialize(config, ArgSpan{}).signature();
  } else {
    const ArgValue values[] = {ArgConverter<std::decay_t<const Args>>::convert(args)...};
    r.signature = fn.specialize(config, ArgSpan{values, sizeof...(Args)}).signature();
  }
  r.num_warps = config.num_warps;
  r.num_stages = config.num_stages;
  r.num_ctas = config.num_ctas;
  if (config.options != nullptr) r.options = *config.options;
  return r;
}

// Progress on stderr: Auto draws a bar when stderr is a terminal; Never is quiet.
enum class Progress { Auto, Always, Never };

struct PrepareOptions {
  // Parallel compiles, each in its own Python process (Triton's compile holds the GIL).
  // 0: one per core; 1: compile in this process, one after another.
  int jobs = 0;
  Progress progress = Progress::Auto;
  // Also load the kernels into the current CUDA context when a device is present, so that a
  // later launch (during graph capture, say) neither compiles nor loads.
  bool load = true;
};

struct PrepareReport {
  size_t requested = 0;   // distinct kernels asked for
  size_t in_memory = 0;   // already in this process
  size_t from_packs = 0;  // taken from loaded packs
  size_t from_index = 0;  // taken from the persistent index
  size_t compiled = 0;    // compiled now
  int workers = 0;        // compile processes used (0: none needed, 1: in this process)
  double seconds = 0;
};

// Makes every requested kernel ready: found in memory, a pack or the index, or compiled, in
// parallel across processes. Kernels that compile are kept even when others fail; then one
// CompileError (or ArgumentError for a request that does not fit its function) reports the
// first failure and counts the rest.
TRITON_JIT_API PrepareReport prepare(const std::vector<KernelRequest>& requests, const PrepareOptions& options = {});

}  // namespace triton_jit

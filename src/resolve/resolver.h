#pragma once

#include <string>
#include <vector>

#include "launch/call_mode.h"
#include "launch/function_state.h"
#include "store/records.h"
#include "triton_jit/prepare.h"

namespace triton_jit::detail {

// A kernel a batch made ready, in request order (duplicates share an entry).
struct ResolvedKernel {
  const TritonJitFunction* function = nullptr;
  const KernelEntry* entry = nullptr;
  KernelKey key;
  std::string source_sha256;  // the hash packs know the function by (FunctionState::pack_sha256)
};

// This process's interpreter compiles one miss at a time (Triton holds the GIL): a miss claims
// it, and one that finds it taken compiles on the worker pool (bridge/compile_pool.h) instead.
// Tests claim it to send misses to the pool.
class InterpreterSlot {
 public:
  static bool try_claim() noexcept;
  static void release() noexcept;
};

// The miss path: the one component that turns a key into a kernel. In this order: the
// function's in-memory table, the loaded packs, the persistent index, and only then a compile
// (in this process, or on the compile worker pool: a batch, or a miss while this process
// compiles another), whose result is stored in the index and inserted into the table. Where
// nothing may compile (offline, no source, no Python, graph capture) it throws the one
// MissingKernelError that names the kernel and its manifest line.
class Resolver {
 public:
  // A launch's or compile()'s miss: one kernel. Concurrent callers with the same key share one
  // compile. `capture_stream`: a launch's stream, checked for graph capture before compiling
  // (nullptr: not a launch).
  static const KernelEntry* resolve(FunctionState& fn, const SpecKey& key, const ArgValue* args,
                                    const LaunchConfig& config, const Target& target, CUstream capture_stream,
                                    bool check_capture);

  // prepare() and pack building: many kernels, compiled in parallel; `label` names the batch in
  // its progress bar and log line. With `out`, the kernels in request order.
  static PrepareReport resolve_batch(const std::vector<KernelRequest>& requests, const PrepareOptions& options,
                                     const char* label, std::vector<ResolvedKernel>* out);

  // request(fn, config, args...): the completed call's signature and launch options (mode
  // Describe: a known choice, or the call kept for prepare() to tune), or, with mode Prepare, the
  // request's kept call tuned (or its stored choice taken) and completed. Returns whether it tuned.
  static bool complete_request(const TritonJitFunction& fn, const LaunchConfig& config, ArgSpan args, CallMode mode,
                               KernelRequest* out);

  // compile(CompileRequest): always compiles; the kernel goes to the index, not to memory.
  static KernelInfo compile_request(FunctionState& fn, const CompileRequest& request);

  // The target of calls that need no device: explicit, else the current device's, else cuda:90.
  static Target default_target();

  // The hash loaded packs know `fn` by (FunctionState::pack_sha256).
  static const std::string& pack_sha256(const TritonJitFunction& fn) { return state(fn).pack_sha256; }

 private:
  static FunctionState& state(const TritonJitFunction& fn) { return *fn.state_; }
};

}  // namespace triton_jit::detail

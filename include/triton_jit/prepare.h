#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "triton_jit/export.h"
#include "triton_jit/jit_function.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/prepare_options.h"

namespace triton_jit {

// One specialization of a function to have ready before it is launched: what to compile
// (CompileRequest: signature in Triton's syntax, launch options, target) and of which function.
// request() below derives it from a call's arguments.
struct KernelRequest : CompileRequest {
  const TritonJitFunction* function = nullptr;

  KernelRequest() = default;
  KernelRequest(const TritonJitFunction* fn, std::string sig) : function(fn) { signature = std::move(sig); }
  KernelRequest(const TritonJitFunction* fn, CompileRequest r) : CompileRequest(std::move(r)), function(fn) {}
};

// The request for the kernel that `fn(config, args...)` would launch.
template <typename... Args>
KernelRequest request(const TritonJitFunction& fn, const LaunchConfig& config, const Args&... args) {
  KernelRequest r;
  r.function = &fn;
  r.signature = fn.specialize(config, args...).signature();
  r.num_warps = config.num_warps;
  r.num_stages = config.num_stages;
  r.num_ctas = config.num_ctas;
  if (config.options != nullptr) r.options = *config.options;
  return r;
}

// Makes every requested kernel ready: found in memory, a pack or the index, or compiled, in
// parallel across processes. Kernels that compile are kept even when others fail; then one
// CompileError (or ArgumentError for a request that does not fit its function) reports the
// first failure and counts the rest.
TRITON_JIT_API PrepareReport prepare(const std::vector<KernelRequest>& requests, const PrepareOptions& options = {});

}  // namespace triton_jit

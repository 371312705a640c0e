#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "triton_jit/export.h"
#include "triton_jit/jit_function.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/prepare_options.h"

namespace triton_jit {

namespace detail {
struct RequestCall;
}

// One specialization of a function to have ready before it is launched: what to compile
// (CompileRequest: signature in Triton's syntax, launch options, target) and of which function.
// request() below derives it from a call's arguments.
struct KernelRequest : CompileRequest {
  const TritonJitFunction* function = nullptr;
  // A call of a function under @triton.autotune whose tuning key has no choice yet (request()
  // keeps a copy of its arguments; `signature` is then empty): prepare() tunes it on the call's
  // stream, or takes a stored choice, and then makes the chosen kernel ready.
  std::shared_ptr<const detail::RequestCall> call;

  KernelRequest() = default;
  KernelRequest(const TritonJitFunction* fn, std::string sig) : function(fn) { signature = std::move(sig); }
  KernelRequest(const TritonJitFunction* fn, CompileRequest r) : CompileRequest(std::move(r)), function(fn) {}
};

namespace detail {
// request()'s body, not a template: the completed call's key and launch options, or the call
// itself for an autotuned function that has yet to be tuned for it.
TRITON_JIT_API KernelRequest call_request(const TritonJitFunction& fn, const LaunchConfig& config, ArgSpan args);
}  // namespace detail

// The request for the kernel that `fn(config, args...)` would launch, decorators applied (the
// chosen config's constexprs and launch options). For an autotuned function with no choice for
// the call's tuning key yet, the request carries the call, and prepare() tunes it: the arguments
// must then be real device buffers, as for a launch (strings and tensor descriptors are copied).
template <typename... Args>
KernelRequest request(const TritonJitFunction& fn, const LaunchConfig& config, const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return detail::call_request(fn, config, ArgSpan{});
  } else {
    const ArgValue values[] = {ArgConverter<std::decay_t<const Args>>::convert(args)...};
    return detail::call_request(fn, config, ArgSpan{values, sizeof...(Args)});
  }
}

// Makes every requested kernel ready: found in memory, a pack or the index, or compiled, in
// parallel across processes. Kernels that compile are kept even when others fail; then one
// CompileError (or ArgumentError for a request that does not fit its function) reports the
// first failure and counts the rest.
TRITON_JIT_API PrepareReport prepare(const std::vector<KernelRequest>& requests, const PrepareOptions& options = {});

// Starts the compile worker processes (compile_workers() of them, settings.h) now, in the
// background, and returns at once: the first prepare() and concurrent misses then find them
// running instead of paying their start (about a second). For a server, at start-up. Starts
// Python in this process; does nothing offline or when compile_workers() is 0. Throws
// PythonError when Python cannot be used.
TRITON_JIT_API void start_compile_workers();

}  // namespace triton_jit

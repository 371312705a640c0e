// prepare(): the resolver's batch entry, for kernels wanted ready before they are launched. A
// request for an autotuned call with no choice yet is tuned first (tune() on the call's stream),
// so that a launch during graph capture finds both the choice and the kernel.
#include "triton_jit/prepare.h"

#include <deque>

#include "bridge/compile_pool.h"
#include "decorators/autotune_hooks.h"
#include "decorators/decorated_call.h"
#include "resolve/resolver.h"
#include "triton_jit/settings.h"
#include "triton_jit/tensor_descriptor.h"

namespace triton_jit {

namespace detail {

// A call kept by request() for prepare() to tune: the arguments, with the strings and tensor
// descriptors they view copied, and the launch options (the grid function included).
struct RequestCall {
  std::vector<ArgValue> args;
  std::deque<std::string> strings;
  std::deque<TensorDescriptor> descriptors;
  LaunchConfig config;
};

namespace {

bool tunes(const StaticSignature& signature) {
  for (const DecoratorLayer& layer : signature.decorators) {
    if (layer.tunes() && layer.autotune.configs.size() > 1) return true;
  }
  return false;
}

std::shared_ptr<const RequestCall> keep_call(const LaunchConfig& config, ArgSpan args) {
  auto call = std::make_shared<RequestCall>();
  call->config = config;
  call->config.options = nullptr;  // the caller's object may not outlive the request: a copy is in it
  for (size_t i = 0; i < args.size; ++i) {
    const ArgValue& a = args[i];
    if (a.kind() == ArgValue::Kind::String) {
      call->strings.emplace_back(a.as_string());
      call->args.push_back(ArgValue::string(call->strings.back()));
    } else if (a.kind() == ArgValue::Kind::TensorDesc) {
      call->descriptors.push_back(*a.as_tensor_descriptor());
      call->args.push_back(ArgValue::tensor_descriptor(&call->descriptors.back(), a.dtype()));
    } else {
      call->args.push_back(a);
    }
  }
  return call;
}

}  // namespace

bool Resolver::complete_request(const TritonJitFunction& function, const LaunchConfig& config, ArgSpan args,
                                CallMode mode, KernelRequest* out) {
  FunctionState& fn = state(function);
  const uint64_t tunings_before = fn.tunings.load(std::memory_order_relaxed);
  const HookedDescriptorScope hooked;  // descriptors a config pre_hook set, until the request is described
  ArgStorage storage;
  LaunchConfig completed;
  const LaunchConfig* effective = &config;
  ArgSpan span = args;
  if (fn.decorated != nullptr) {
    fn.decorated->complete(fn, config, args, storage.data(), &completed, mode);
    effective = &completed;
    span = ArgSpan{storage.data(), fn.signature.params.size()};
  }
  const Target target = out->target ? *out->target : default_target();
  SpecKey key;
  ArgStorage bound;
  const ArgValue* full = fn.bind_for<false>(*effective, span, target, &key, bound.data(), nullptr);
  out->function = &function;
  const Specialization spec = fn.describe(key, full, *effective, target);
  out->signature = spec.signature();
  out->num_warps = effective->num_warps;
  out->num_stages = spec.num_stages;  // the target's default resolved, as the key has it
  out->num_ctas = effective->num_ctas;
  out->options = effective->options != nullptr ? *effective->options : CompileOptions{};
  return fn.tunings.load(std::memory_order_relaxed) != tunings_before;
}

KernelRequest call_request(const TritonJitFunction& fn, const LaunchConfig& config, ArgSpan args) {
  KernelRequest r;
  r.function = &fn;
  try {
    Resolver::complete_request(fn, config, args, CallMode::Describe, &r);
  } catch (const Error&) {
    if (!tunes(fn.signature())) throw;
    // No choice for this tuning key yet (or nothing may tell): prepare() tunes the call.
    r.signature.clear();
    r.options = config.options != nullptr ? *config.options : CompileOptions{};
    r.call = keep_call(config, args);
  }
  return r;
}

}  // namespace detail

PrepareReport prepare(const std::vector<KernelRequest>& requests, const PrepareOptions& options) {
  bool any_call = false;
  for (const KernelRequest& r : requests) any_call |= r.call != nullptr && r.signature.empty();
  if (!any_call) return detail::Resolver::resolve_batch(requests, options, "prepare", nullptr);
  // Tune first (each on its own stream, one after another: timings must not overlap), then make
  // the chosen kernels ready with the rest.
  std::vector<KernelRequest> completed = requests;
  size_t tuned = 0;
  for (KernelRequest& r : completed) {
    if (r.call == nullptr || !r.signature.empty() || r.function == nullptr) continue;
    LaunchConfig config = r.call->config;
    const CompileOptions kept = r.options;  // the caller's options, copied by request()
    config.options = kept.empty() ? nullptr : &kept;
    tuned += detail::Resolver::complete_request(*r.function, config, ArgSpan{r.call->args.data(), r.call->args.size()},
                                                detail::CallMode::Prepare, &r);
  }
  PrepareReport report = detail::Resolver::resolve_batch(completed, options, "prepare", nullptr);
  report.tuned = tuned;
  return report;
}

void start_compile_workers() {
  if (offline() || compile_workers() == 0) return;
  bridge::start_workers(compile_workers());
}

}  // namespace triton_jit

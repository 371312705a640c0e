// The calls of a TritonJitFunction. A launch builds its key on the stack, finds the kernel in the
// function's table without a lock, packs and launches; everything else is the resolver's.
#include "triton_jit/jit_function.h"

#include <optional>

#include "decorators/autotune_hooks.h"
#include "decorators/decorated_call.h"
#include "decorators/python_wrapper.h"
#include "function/call.h"
#include "launch/function_state.h"
#include "resolve/resolver.h"

namespace triton_jit {

using detail::ArgStorage;
using detail::KernelEntry;
using detail::Resolver;
using detail::SpecKey;

TritonJitFunction::TritonJitFunction(std::unique_ptr<detail::FunctionState> state) : state_(std::move(state)) {
  state_->self = this;
}
TritonJitFunction::~TritonJitFunction() = default;

namespace {

// A call completed for the @triton.jit function: decorators applied, or, for a plain function
// with a grid function, defaults filled in so the grid function sees every parameter.
const ArgValue* complete_call(detail::FunctionState& m, const LaunchConfig& config, ArgSpan args, ArgValue* full,
                              LaunchConfig* out, detail::CallMode mode) {
  if (m.decorated != nullptr) {
    m.decorated->complete(m, config, args, full, out, mode);
    return full;
  }
  m.binder->complete(args, full);
  detail::copy_launch_options(config, out);
  detail::apply_grid_fn(m.signature, config, full, out);
  return full;
}

// A call as the @triton.jit function takes it, for specialize() and compile(): the caller's own
// when the function is plain and has no grid function, else completed into `storage`.
struct DescribedCall {
  detail::HookedDescriptorScope hooked;  // descriptors a config pre_hook set, until the call is described
  ArgStorage storage;
  LaunchConfig completed_config;
  const LaunchConfig* config = nullptr;
  ArgSpan args;

  DescribedCall(detail::FunctionState& m, const LaunchConfig& c, ArgSpan a) : config(&c), args(a) {
    if (m.decorated == nullptr && !c.grid_fn) return;
    complete_call(m, c, a, storage.data(), &completed_config, detail::CallMode::Describe);
    config = &completed_config;
    args = ArgSpan{storage.data(), m.rules.size()};
  }
};

[[gnu::noinline]] void launch_completed(detail::FunctionState& m, const LaunchConfig& config, ArgSpan args) {
  // Descriptors a config pre_hook set live until the launch is done; only functions with hooks
  // open the scope (two thread-local accesses the others do not pay).
  std::optional<detail::HookedDescriptorScope> hooked;
  if (m.decorated != nullptr && m.decorated->runs_hooks()) hooked.emplace();
  ArgStorage storage;
  LaunchConfig effective;
  if (m.decorated != nullptr) {
    if (const int layer = m.decorated->python_layer(); layer >= 0) {
      detail::run_python_wrapper(m, static_cast<size_t>(layer), config, args);
      return;
    }
    m.decorated->complete(m, config, args, storage.data(), &effective, detail::CallMode::Launch);
  } else {
    complete_call(m, config, args, storage.data(), &effective, detail::CallMode::Launch);
  }
  detail::launch_call(m, effective, ArgSpan{storage.data(), m.rules.size()});
}

}  // namespace

void TritonJitFunction::launch(const LaunchConfig& config, ArgSpan args) const {
  detail::FunctionState& m = *state_;
  if (m.decorated == nullptr && !config.grid_fn) {
    detail::launch_call(m, config, args);
  } else {
    launch_completed(m, config, args);
  }
}

Specialization TritonJitFunction::specialize(const LaunchConfig& config, ArgSpan args) const {
  const Target target = Resolver::default_target();
  const DescribedCall call(*state_, config, args);
  SpecKey key;
  ArgStorage storage;
  const ArgValue* full = state_->bind_for<false>(*call.config, call.args, target, &key, storage.data(), nullptr);
  return state_->describe(key, full, *call.config, target);
}

const KernelInfo& TritonJitFunction::compile(const LaunchConfig& config, ArgSpan args) const {
  const DescribedCall call(*state_, config, args);
  return detail::resolve_call(*state_, *call.config, call.args, Resolver::default_target()).info();
}

void TritonJitFunction::set_heuristics_through_python(bool on) noexcept {
  state_->heuristics_through_python.store(on, std::memory_order_relaxed);
}

KernelInfo TritonJitFunction::compile(const CompileRequest& request) const {
  return Resolver::compile_request(*state_, request);
}

const StaticSignature& TritonJitFunction::signature() const noexcept { return state_->signature; }
const Binder& TritonJitFunction::binder() const noexcept { return *state_->binder; }
const std::string& TritonJitFunction::name() const noexcept { return state_->name; }
const std::string& TritonJitFunction::path() const noexcept { return state_->path; }
const std::string& TritonJitFunction::module() const noexcept { return state_->module; }

Stats TritonJitFunction::stats() const noexcept {
  Stats s;
  s.hits = state_->hits.load(std::memory_order_relaxed) +
           (state_->hit_slot >= 0 ? detail::sum_hits(state_->hit_slot) : 0);
  s.misses = state_->misses.load(std::memory_order_relaxed);
  s.compiles = state_->compiles.load(std::memory_order_relaxed);
  s.loads = state_->loads.load(std::memory_order_relaxed);
  s.index_hits = state_->index_hits.load(std::memory_order_relaxed);
  s.pack_hits = state_->pack_hits.load(std::memory_order_relaxed);
  s.tunings = state_->tunings.load(std::memory_order_relaxed);
  s.heuristic_python_calls = state_->heuristic_python_calls.load(std::memory_order_relaxed);
  s.python_wrapper_calls = state_->python_wrapper_calls.load(std::memory_order_relaxed);
  return s;
}

std::vector<TuningResult> TritonJitFunction::last_tuning() const {
  std::vector<TuningResult> out;
  if (state_->decorated == nullptr) return out;
  for (size_t l = 0; l < state_->signature.decorators.size(); ++l) {
    if (const detail::AutotuneRuntime* tuner = state_->decorated->autotuner(l)) {
      if (std::optional<TuningResult> r = tuner->last_tuning()) out.push_back(std::move(*r));
    }
  }
  return out;
}

}  // namespace triton_jit

// Autotune's Python hooks (autotune_hooks.h).
#include "decorators/autotune_hooks.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "launch/function_state.h"
#include "settings/settings.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {

bool has_hooks(const AutotuneInfo& info) noexcept {
  if (info.has_pre_hook || info.has_post_hook) return true;
  for (const AutotuneConfigInfo& c : info.configs) {
    if (c.has_pre_hook) return true;
  }
  return false;
}

namespace {

// Descriptors hooks wrote back, per thread: the arguments of this thread's calls point at them
// until the outermost HookedDescriptorScope ends.
thread_local std::deque<TensorDescriptor> t_hooked_descriptors;
thread_local bool t_hooked_descriptors_used = false;
thread_local int t_scope_depth = 0;

// The wrapper object the hooks hang from; a clear error where Python cannot run.
bridge::PyHandle hooks_wrapper(FunctionState& fn) {
  const auto fail = [&](const std::string& why) {
    return ArgumentError(fn.signature.function +
                             ": autotune's hooks (pre_hook, post_hook, a Config's pre_hook) run "
                             "through Python, which cannot run here: " +
                             why,
                         fn.signature.function, "pre_hook");
  };
  std::string why;
  const bridge::PyHandle wrapper = fn.python_wrapper_or_why(&why);
  if (wrapper.object == nullptr) throw fail(why);
  return wrapper;
}

}  // namespace

HookArgs::HookArgs(FunctionState& fn, const AutotuneRuntime& tuner, uint32_t config, const ArgValue* full,
                   size_t num_caller_args, const Grid& grid)
    : fn_(&fn), tuner_(&tuner), config_(config), wrapper_(hooks_wrapper(fn)) {
  size_t num_passed = 0;
  params_ = tuner.hook_params(num_caller_args, &num_passed);
  dict_ = bridge::autotune_hook_args(wrapper_, tuner.layer(), config, fn.signature, full, params_, num_passed, grid);
}

bool has_descriptor_args(const ArgValue* full, size_t n) noexcept {
  for (size_t i = 0; i < n; ++i) {
    if (full[i].kind() == ArgValue::Kind::TensorDesc) return true;
  }
  return false;
}

HookedDescriptorScope::HookedDescriptorScope() noexcept { ++t_scope_depth; }

HookedDescriptorScope::~HookedDescriptorScope() {
  if (--t_scope_depth == 0 && t_hooked_descriptors_used) {
    t_hooked_descriptors.clear();
    t_hooked_descriptors_used = false;
  }
}

void HookArgs::write_back_descriptors(ArgValue* full) const {
  for (auto& [param, desc] : bridge::hooked_descriptors(dict_, fn_->signature, full, params_)) {
    const ArgValue& before = full[param];
    const TensorDescriptor& old = *before.as_tensor_descriptor();
    if (std::equal(old.shape, old.shape + TensorDescriptor::kMaxRank, desc.shape) &&
        std::equal(old.strides, old.strides + TensorDescriptor::kMaxRank, desc.strides) &&
        std::equal(old.block_shape, old.block_shape + TensorDescriptor::kMaxRank, desc.block_shape) &&
        old.rank == desc.rank && old.padding == desc.padding && old.base.ptr == desc.base.ptr) {
      continue;  // unchanged: the caller's own stays
    }
    t_hooked_descriptors.push_back(desc);
    t_hooked_descriptors_used = true;
    full[param] = ArgValue::tensor_descriptor(&t_hooked_descriptors.back(), before.dtype());
  }
}

HookArgs::~HookArgs() { bridge::release(dict_); }

HookArgs::HookArgs(HookArgs&& other) noexcept
    : fn_(other.fn_),
      tuner_(other.tuner_),
      config_(other.config_),
      wrapper_(other.wrapper_),
      dict_(other.dict_),
      params_(std::move(other.params_)) {
  other.dict_ = bridge::PyHandle{};
}

HookArgs& HookArgs::operator=(HookArgs&& other) noexcept {
  if (this != &other) {
    bridge::release(dict_);
    fn_ = other.fn_;
    tuner_ = other.tuner_;
    config_ = other.config_;
    wrapper_ = other.wrapper_;
    dict_ = other.dict_;
    params_ = std::move(other.params_);
    other.dict_ = bridge::PyHandle{};
  }
  return *this;
}

void HookArgs::run(bridge::AutotuneHook hook, CUstream stream, bool reset_only, const std::string* exception) const {
  bridge::call_autotune_hook(wrapper_, tuner_->layer(), config_, hook, dict_, fn_->signature, stream, reset_only,
                             exception);
  if (log_enabled(LogLevel::Debug)) {
    log_line(std::string("autotune ") + bridge::hook_name(hook) + " of " + fn_->signature.function + " ran (config [" +
             std::to_string(config_) + "]" + (reset_only ? ", reset_only" : "") + ")");
  }
}

void run_config_pre_hook(FunctionState& fn, const AutotuneRuntime& tuner, uint32_t config, ArgValue* full,
                         size_t num_caller_args, const Grid& grid, CUstream stream) {
  const HookArgs hooks(fn, tuner, config, full, num_caller_args, grid);
  hooks.run(bridge::AutotuneHook::ConfigPreHook, stream);
  if (has_descriptor_args(full, fn.signature.params.size())) hooks.write_back_descriptors(full);
}

}  // namespace triton_jit::detail

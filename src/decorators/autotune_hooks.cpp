// Autotune's Python hooks (autotune_hooks.h).
#include "decorators/autotune_hooks.h"

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
  const std::vector<uint32_t> params = tuner.hook_params(num_caller_args, &num_passed);
  dict_ = bridge::autotune_hook_args(wrapper_, tuner.layer(), config, fn.signature, full, params, num_passed, grid);
}

HookArgs::~HookArgs() { bridge::release(dict_); }

HookArgs::HookArgs(HookArgs&& other) noexcept
    : fn_(other.fn_), tuner_(other.tuner_), config_(other.config_), wrapper_(other.wrapper_), dict_(other.dict_) {
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

void run_config_pre_hook(FunctionState& fn, const AutotuneRuntime& tuner, uint32_t config, const ArgValue* full,
                         size_t num_caller_args, const Grid& grid, CUstream stream) {
  HookArgs(fn, tuner, config, full, num_caller_args, grid).run(bridge::AutotuneHook::ConfigPreHook, stream);
}

}  // namespace triton_jit::detail

// A call through a wrapper's own run in Python (python_wrapper.h).
#include "decorators/python_wrapper.h"

#include <cstdlib>
#include <cstring>

#include "bridge/bridge.h"
#include "decorators/decorated_call.h"
#include "launch/function_state.h"
#include "settings/settings.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {

namespace {

std::string wrapper_words(const FunctionState& fn, size_t layer) {
  const DecoratorLayer& l = fn.signature.decorators[layer];
  if (l.kind != DecoratorLayer::Kind::Python) {  // fla's CachedAutotuner under FLA_CACHE_MODE
    const char* mode = std::getenv("FLA_CACHE_MODE");
    return fn.signature.function + " is wrapped in fla.ops.utils.cache.CachedAutotuner (FLA_CACHE_MODE=" +
           std::string(mode != nullptr ? mode : "") + ": its configs come from fla's JSON config files)";
  }
  return fn.signature.function + " is wrapped in " + l.python.class_name + " (" + l.python.reason + ")";
}

// The wrapper object, or a clear error where Python cannot run its run.
bridge::PyHandle wrapper_or_fail(FunctionState& fn, size_t layer) {
  const auto fail = [&](const std::string& why) {
    return ArgumentError(wrapper_words(fn, layer) +
                             ", which the runtime does not emulate: each call runs the wrapper's own run through "
                             "Python, which cannot run here: " +
                             why +
                             ". Call it where Python and Triton are available, or name the undecorated function "
                             "('" + fn.name + ".fn') and pass what the wrapper would choose.",
                         fn.signature.function, "");
  };
  std::string why;
  const bridge::PyHandle wrapper = fn.python_wrapper_or_why(&why);
  if (wrapper.object == nullptr) throw fail(why);
  return wrapper;
}

}  // namespace

void run_python_wrapper(FunctionState& fn, size_t layer, const LaunchConfig& config, ArgSpan args) {
  const bridge::PyHandle wrapper = wrapper_or_fail(fn, layer);
  if (!fn.python_wrapper_said.exchange(true, std::memory_order_relaxed) && log_enabled(LogLevel::Info)) {
    log_line(wrapper_words(fn, layer) + ": every call runs the wrapper's own run through Python");
  }
  const std::vector<uint32_t>& params = fn.decorated->caller_params();
  if (args.size > params.size()) {
    std::string names;
    for (uint32_t p : params) names += (names.empty() ? "" : ", ") + fn.signature.params[p].name;
    throw ArgumentError(fn.signature.function + " takes at most " + std::to_string(params.size()) + " arguments (" +
                            names + ") but " + std::to_string(args.size) +
                            " were given; the caller must not pass the parameters its wrappers set",
                        fn.signature.function, "");
  }
  // A wrapper whose meta gives no num_stages (Triton's JITFunction.run passes only the
  // arguments) leaves it to the target: the caller's grid function reads the target's default.
  LaunchConfig resolved = config;
  if (config.grid_fn) {
    const StaticSignature* signature = &fn.signature;
    resolved.grid_fn = [signature, inner = &config.grid_fn](const GridMeta& meta) {
      if (meta.num_stages != kTargetDefaultNumStages) return (*inner)(meta);
      ArgValue full[kMaxParams];
      for (const ParamInfo& p : signature->params) full[p.index] = meta.arg(p.name);
      return (*inner)(GridMeta(*signature, full, meta.num_warps, launch_num_stages(meta.num_stages), meta.num_ctas));
    };
  }
  bridge::run_python_wrapper(wrapper, fn.signature, params, args.data, args.size, resolved);
  fn.python_wrapper_calls.fetch_add(1, std::memory_order_relaxed);
}

bool fla_cache_mode_on() noexcept {
  const char* mode = std::getenv("FLA_CACHE_MODE");
  return mode != nullptr && *mode != '\0' && std::strcmp(mode, "disabled") != 0;
}

void fail_python_wrapper_not_launched(const FunctionState& fn, size_t layer) {
  throw ArgumentError(wrapper_words(fn, layer) +
                          ", which the runtime does not emulate: what it launches is known only by running its "
                          "own run, in a launch. specialize(), compile() and prepare() cannot predict it; name "
                          "the undecorated function ('" + fn.name + ".fn') with the values the wrapper would choose.",
                      fn.signature.function, "");
}

}  // namespace triton_jit::detail

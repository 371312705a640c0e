#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "triton_jit/arg.h"
#include "triton_jit/export.h"
#include "triton_jit/signature.h"

namespace triton_jit {

// How a call's arguments meet a function's parameters: the one binder both front ends use (C++
// calls, positional, through TritonJitFunction::launch; the Python extension's `k[grid](...)`,
// positional and by keyword). Worked out once per function from its signature: which parameters
// the caller passes (those no @triton.heuristics or @triton.autotune layer sets), which layer sets
// the others, each parameter's default as an ArgValue, and where a name goes. Binding itself
// allocates nothing and formats nothing; the messages are built in the cold fail_* functions.
// A function's binder is TritonJitFunction::binder(); it views the signature it was made from
// (names, default strings), which must outlive it.
class TRITON_JIT_API Binder {
 public:
  explicit Binder(const StaticSignature& signature);

  const StaticSignature& signature() const noexcept { return *signature_; }
  size_t num_params() const noexcept { return set_by_layer_.size(); }
  // Whether the function has decorator layers (its errors then say what the caller passes).
  bool decorated() const noexcept { return decorated_; }

  // The parameters the caller passes, in order: a caller position's parameter index.
  const std::vector<uint32_t>& caller_params() const noexcept { return caller_params_; }
  // The parameters a decorator layer sets, in order.
  const std::vector<uint32_t>& decorator_params() const noexcept { return decorator_params_; }
  // Per parameter: the decorator layer (outermost 0) that first sets it, or -1 for the caller's.
  const std::vector<int>& set_by_layer() const noexcept { return set_by_layer_; }
  // The caller's parameters are the first ones, in order (a plain function's always are).
  bool callers_lead() const noexcept { return callers_lead_; }

  // Per parameter: a default C++ can pass exists (a Python default without a C++ form, a tuple
  // say, is no usable default), and that default (None where there is none).
  bool has_default(uint32_t param) const noexcept { return has_default_[param] != 0; }
  const ArgValue& default_value(uint32_t param) const noexcept { return defaults_[param]; }
  const ArgValue* defaults() const noexcept { return defaults_.data(); }
  // The default of a caller position, or nullptr when it has none.
  const ArgValue* caller_default(size_t position) const noexcept {
    const uint32_t p = caller_params_[position];
    return has_default_[p] != 0 ? &defaults_[p] : nullptr;
  }
  // The fewest positional arguments a call may give: every caller position from here on has a
  // default.
  size_t min_args() const noexcept { return min_args_; }

  // The caller position of the parameter named `name`, or -1 when no parameter the caller passes
  // has that name.
  int position(std::string_view name) const noexcept;
  // Whether `name` is a parameter a decorator layer sets (the caller must not pass it).
  bool set_by_decorator(std::string_view name) const noexcept;

  // ---- binding a positional call (C++ calls, and the Python extension's after its keywords) ----

  // Writes the call as the @triton.jit function takes it into `full` (num_params() values): the
  // caller's arguments at their parameters, the omitted trailing ones' defaults, None for the
  // parameters a decorator sets (until its layer runs). Throws ArgumentError (fail_count) when
  // too many are given or an omitted one has no usable default.
  void complete(ArgSpan args, ArgValue* full) const {
    if (args.size > caller_params_.size() || args.size < min_args_) fail_count(args.size);
    if (!plain_) {
      place(args, full);
      return;
    }
    // The caller passes every parameter, in order: its arguments, then the defaults after them.
    if (args.size != 0) std::memcpy(static_cast<void*>(full), args.data, args.size * sizeof(ArgValue));
    const size_t rest = caller_params_.size() - args.size;
    if (rest != 0) {
      std::memcpy(static_cast<void*>(full + args.size), defaults_.data() + args.size, rest * sizeof(ArgValue));
    }
  }

  // ---- cold errors: messages are built only when something is wrong ----

  // A C++ call with `given` arguments, too many or too few (complete's error): names the
  // parameters; for a decorated function, which ones the caller passes and which a decorator sets.
  [[noreturn, gnu::cold, gnu::noinline]] void fail_count(size_t given) const;

  // The Python extension's, in Python's words, prefixed with `function` (the name the kernel was
  // got by): more positional arguments than caller parameters; a keyword for a caller position
  // already given; a caller position neither given nor with a default; a keyword naming a
  // parameter a decorator sets.
  [[noreturn, gnu::cold, gnu::noinline]] void fail_too_many_positional(const std::string& function, size_t given) const;
  [[noreturn, gnu::cold, gnu::noinline]] void fail_duplicate(const std::string& function, size_t position) const;
  [[noreturn, gnu::cold, gnu::noinline]] void fail_missing(const std::string& function, size_t position) const;
  [[noreturn, gnu::cold, gnu::noinline]] void fail_set_by_decorator(const std::string& function,
                                                                    std::string_view name) const;

 private:
  // complete() for a function whose decorators set parameters: each argument to its parameter.
  void place(ArgSpan args, ArgValue* full) const {
    for (uint32_t p : decorator_params_) full[p] = ArgValue::none();
    if (callers_lead_) {
      if (args.size != 0) std::memcpy(static_cast<void*>(full), args.data, args.size * sizeof(ArgValue));
    } else {
      for (size_t i = 0; i < args.size; ++i) full[caller_params_[i]] = args[i];
    }
    for (size_t i = args.size; i < caller_params_.size(); ++i) full[caller_params_[i]] = defaults_[caller_params_[i]];
  }

  const StaticSignature* signature_;
  std::vector<uint32_t> caller_params_;
  std::vector<uint32_t> decorator_params_;
  std::vector<int> set_by_layer_;
  std::vector<int> position_of_param_;  // per parameter: its caller position, or -1
  std::vector<ArgValue> defaults_;      // views signature_'s default strings
  std::vector<uint8_t> has_default_;
  size_t min_args_ = 0;
  bool callers_lead_ = true;
  bool plain_ = true;  // no decorator sets a parameter: the caller passes all, in order
  bool decorated_ = false;
};

}  // namespace triton_jit

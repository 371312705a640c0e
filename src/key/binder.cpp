// The binder's table, made once per function, and its cold errors. The two front ends' messages
// stay as callers know them: C++ calls name the parameters and their count; the Python extension
// speaks as Python's own binder would ("got multiple values for argument 'x'").
#include "triton_jit/binder.h"

#include <string>

#include "triton_jit/errors.h"

namespace triton_jit {

namespace {

// The wrapper as messages name it.
std::string layer_name(const DecoratorLayer& layer) {
  switch (layer.kind) {
    case DecoratorLayer::Kind::Heuristics: return "@triton.heuristics";
    case DecoratorLayer::Kind::Python: return layer.python.class_name;
    case DecoratorLayer::Kind::LibTuner: return "FlagGems' LibTuner";
    default: return "@triton.autotune";
  }
}

}  // namespace

Binder::Binder(const StaticSignature& signature) : signature_(&signature) {
  const size_t n = signature.params.size();
  decorated_ = !signature.decorators.empty();
  set_by_layer_.assign(n, -1);
  // The outermost layer that sets a parameter is the one named in messages; an inner layer setting
  // it again does not give it back to the caller.
  for (size_t l = 0; l < signature.decorators.size(); ++l) {
    const DecoratorLayer& layer = signature.decorators[l];
    auto mark = [&](size_t param) {
      if (param < n && set_by_layer_[param] < 0) set_by_layer_[param] = static_cast<int>(l);
    };
    if (layer.kind == DecoratorLayer::Kind::Heuristics) {
      for (const HeuristicInfo& h : layer.heuristics) mark(h.param);
    } else if (layer.kind == DecoratorLayer::Kind::Python) {
      for (int p : layer.python.sets) mark(static_cast<size_t>(p));  // as far as its chain says
    } else if (layer.tunes()) {
      for (const AutotuneConfigInfo& c : layer.autotune.configs) {
        for (const auto& kv : c.kwargs) mark(kv.first);
      }
    }
  }
  position_of_param_.assign(n, -1);
  for (size_t p = 0; p < n; ++p) {
    if (set_by_layer_[p] < 0) {
      position_of_param_[p] = static_cast<int>(caller_params_.size());
      caller_params_.push_back(static_cast<uint32_t>(p));
    } else {
      decorator_params_.push_back(static_cast<uint32_t>(p));
    }
    const std::optional<DefaultValue>& d = signature.params[p].default_value;
    const bool usable = d && d->representable;
    has_default_.push_back(usable ? 1 : 0);
    defaults_.push_back(usable ? d->to_arg() : ArgValue::none());
  }
  for (size_t i = 0; i < caller_params_.size(); ++i) callers_lead_ &= caller_params_[i] == i;
  plain_ = decorator_params_.empty();
  min_args_ = caller_params_.size();
  while (min_args_ > 0 && has_default_[caller_params_[min_args_ - 1]] != 0) --min_args_;
}

int Binder::position(std::string_view name) const noexcept {
  const int p = signature_->find(name);
  return p < 0 ? -1 : position_of_param_[static_cast<size_t>(p)];
}

bool Binder::set_by_decorator(std::string_view name) const noexcept {
  const int p = signature_->find(name);
  return p >= 0 && set_by_layer_[static_cast<size_t>(p)] >= 0;
}

void Binder::fail_count(size_t given) const {
  const StaticSignature& sig = *signature_;
  const std::string count = std::to_string(caller_params_.size());
  std::string names;
  for (uint32_t p : caller_params_) names += (names.empty() ? "" : ", ") + sig.params[p].name;
  if (decorated_) {
    std::string set;
    for (uint32_t p : decorator_params_) {
      set += (set.empty() ? "" : ", ") + sig.params[p].name + " (by " +
             layer_name(sig.decorators[static_cast<size_t>(set_by_layer_[p])]) + ")";
    }
    const std::string why = given > caller_params_.size()
                                ? " were given; the caller must not pass the parameters a decorator sets: "
                                : " were given (a parameter without a usable default is missing); a decorator sets ";
    throw ArgumentError(
        sig.function + " takes " + count + " arguments (" + names + ") but " + std::to_string(given) + why + set,
        sig.function, "");
  }
  if (given > caller_params_.size()) {
    throw ArgumentError(
        sig.function + " takes " + count + " arguments (" + names + ") but " + std::to_string(given) + " were given",
        sig.function, "");
  }
  size_t missing_position = given;
  while (has_default_[caller_params_[missing_position]] != 0) ++missing_position;
  const ParamInfo& missing = sig.params[caller_params_[missing_position]];
  const std::string why = missing.default_value && !missing.default_value->representable
                              ? " (its default " + missing.default_value->repr + " has no C++ form: pass it explicitly)"
                              : " and it has no default";
  throw ArgumentError(sig.function + " takes " + count + " arguments (" + names + ") but " + std::to_string(given) +
                          " were given: parameter '" + missing.name + "' is missing" + why,
                      sig.function, missing.name);
}

namespace {

// The Python extension's errors: "<name>: <what Python would say>", about `parameter`.
[[noreturn]] void fail_python(const std::string& function, const std::string& parameter, const std::string& message) {
  throw ArgumentError(function + ": " + message, function, parameter);
}

}  // namespace

void Binder::fail_too_many_positional(const std::string& function, size_t given) const {
  const size_t n = caller_params_.size();
  fail_python(function, "",
              "takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
                  (decorated_ ? " (those no decorator sets)" : "") + " but " + std::to_string(given) + " were given");
}

void Binder::fail_duplicate(const std::string& function, size_t position) const {
  const std::string& name = signature_->params[caller_params_[position]].name;
  fail_python(function, name, "got multiple values for argument '" + name + "'");
}

void Binder::fail_missing(const std::string& function, size_t position) const {
  const std::string& name = signature_->params[caller_params_[position]].name;
  fail_python(function, name, "missing a required argument: '" + name + "'");
}

void Binder::fail_set_by_decorator(const std::string& function, std::string_view name) const {
  const std::string s(name);
  fail_python(function, s,
              "'" + s + "' is set by a @triton.autotune config or a @triton.heuristics value; do not pass it");
}

}  // namespace triton_jit

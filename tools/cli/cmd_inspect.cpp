#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "triton_jit/jit_function.h"

namespace triton_jit_cli {
namespace {

// NAME[: ANNOTATION][ = DEFAULT][  [FLAGS]]
std::string describe(const triton_jit::ParamInfo& p) {
  std::string line = p.name;
  if (!p.annotation.empty()) line += ": " + p.annotation;
  if (p.default_value) line += " = " + p.default_value->repr;
  std::string flags;
  auto flag = [&](const char* f) { flags += (flags.empty() ? "" : ", ") + std::string(f); };
  if (p.do_not_specialize) flag("do_not_specialize");
  if (p.do_not_specialize_on_alignment) flag("do_not_specialize_on_alignment");
  if (p.default_value && !p.default_value->representable) flag("no C++ default");
  if (!flags.empty()) line += "  [" + flags + "]";
  return line;
}

std::string param_names(const triton_jit::StaticSignature& s, const std::vector<int>& indices) {
  std::string names;
  for (int i : indices) {
    if (!names.empty()) names += ", ";
    names += i >= 0 && static_cast<size_t>(i) < s.params.size() ? s.params[static_cast<size_t>(i)].name
                                                                 : "#" + std::to_string(i);
  }
  return names;
}

// One heading line per wrapper, outermost first, as the decorators stand above the `def`; an
// autotuner's configs follow its line, indented, as Python's str(config) prints them. A
// heuristic that runs through Python (not translated) says so: it costs a Python call per new
// input and needs Python where the index has no value for that input.
void print_decorators(const triton_jit::StaticSignature& s) {
  using triton_jit::DecoratorLayer;
  for (const DecoratorLayer& layer : s.decorators) {
    if (layer.kind == DecoratorLayer::Kind::Python) {
      std::cout << layer.python.class_name << ": runs through Python on every call (" << layer.python.reason
                << ")\n";
      continue;
    }
    if (layer.kind == DecoratorLayer::Kind::LibEntry) {
      std::cout << "@libentry() (FlagGems' LibEntry: choices frozen per argument key)\n";
      continue;
    }
    if (layer.kind == DecoratorLayer::Kind::Heuristics) {
      std::string values;
      for (const triton_jit::HeuristicInfo& h : layer.heuristics) {
        values += (values.empty() ? "" : ", ") + h.name;
        if (h.program.empty()) values += " (through Python)";
      }
      std::cout << "@triton.heuristics: " << values << '\n';
      continue;
    }
    const triton_jit::AutotuneInfo& a = layer.autotune;
    if (layer.kind == DecoratorLayer::Kind::LibTuner) {
      std::string strategies;
      for (const std::string& st : layer.libtuner.strategies) {
        strategies += (strategies.empty() ? "" : ", ") + (st.empty() ? std::string("(Python)") : st);
      }
      std::cout << "FlagGems LibTuner (strategies " << strategies << "; policy " << layer.libtuner.policy << "; table "
                << layer.libtuner.config_table << ")\n  ";
    }
    std::cout << "@triton.autotune: key=[" << param_names(s, a.key) << "]";
    if (!a.reset_to_zero.empty()) std::cout << ", reset_to_zero=[" << param_names(s, a.reset_to_zero) << "]";
    if (!a.restore_value.empty()) std::cout << ", restore_value=[" << param_names(s, a.restore_value) << "]";
    if (a.has_early_config_prune || a.has_perf_model) std::cout << ", prune_configs_by";
    if (a.has_pre_hook) std::cout << ", pre_hook";
    if (a.has_post_hook) std::cout << ", post_hook";
    if (a.cache_results) std::cout << ", cache_results";
    std::cout << ", " << a.configs.size() << (a.configs.size() == 1 ? " config" : " configs") << '\n';
    for (const triton_jit::AutotuneConfigInfo& c : a.configs)
      std::cout << "    " << c.repr << (c.has_pre_hook ? "  [pre_hook]" : "") << '\n';
  }
}

nlohmann::ordered_json decorators_json(const triton_jit::StaticSignature& s) {
  using triton_jit::DecoratorLayer;
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const DecoratorLayer& layer : s.decorators) {
    if (layer.kind == DecoratorLayer::Kind::Python) {
      layers.push_back({{"kind", "python"}, {"class", layer.python.class_name}, {"reason", layer.python.reason}});
      continue;
    }
    if (layer.kind == DecoratorLayer::Kind::LibEntry) {
      layers.push_back({{"kind", "libentry"}, {"divisibility", layer.lib_entry.divisibility}});
      continue;
    }
    if (layer.kind == DecoratorLayer::Kind::Heuristics) {
      nlohmann::ordered_json values = nlohmann::ordered_json::array();
      for (const triton_jit::HeuristicInfo& h : layer.heuristics)
        values.push_back({{"name", h.name}, {"translated", !h.program.empty()}, {"not_translated_reason",
                                                                                  h.not_translated_reason}});
      layers.push_back({{"kind", "heuristics"}, {"values", values}});
      continue;
    }
    const triton_jit::AutotuneInfo& a = layer.autotune;
    auto names = [&](const std::vector<int>& indices) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (int i : indices) list.push_back(param_names(s, {i}));
      return list;
    };
    nlohmann::ordered_json configs = nlohmann::ordered_json::array();
    for (const triton_jit::AutotuneConfigInfo& c : a.configs) configs.push_back(c.repr);
    layers.push_back({{"kind", "autotune"},
                      {"key", names(a.key)},
                      {"configs", configs},
                      {"reset_to_zero", names(a.reset_to_zero)},
                      {"restore_value", names(a.restore_value)}});
    if (layer.kind == DecoratorLayer::Kind::LibTuner) {  // FlagGems' LibTuner: an autotuner with more
      layers.back()["kind"] = "libtuner";
      layers.back()["strategies"] = layer.libtuner.strategies;
      layers.back()["policy"] = layer.libtuner.policy;
      layers.back()["config_table"] = layer.libtuner.config_table;
    }
  }
  return layers;
}

nlohmann::ordered_json to_json(const triton_jit::StaticSignature& s) {
  nlohmann::ordered_json params = nlohmann::ordered_json::array();
  for (const triton_jit::ParamInfo& p : s.params) {
    nlohmann::ordered_json d = nullptr;
    if (p.default_value) d = {{"repr", p.default_value->repr}, {"representable", p.default_value->representable}};
    params.push_back({{"name", p.name},
                      {"index", p.index},
                      {"annotation", p.annotation},
                      {"annotation_type", p.annotation_type},
                      {"is_constexpr", p.is_constexpr},
                      {"is_const", p.is_const},
                      {"do_not_specialize", p.do_not_specialize},
                      {"do_not_specialize_on_alignment", p.do_not_specialize_on_alignment},
                      {"default", d}});
  }
  return {{"function", s.function},
          {"file", s.file},
          {"first_line", s.first_line},
          {"params", params},
          {"decorators", decorators_json(s)}};
}

}  // namespace

int run_inspect(const Options& o) {
  const triton_jit::TritonJitFunction& fn = kernel_function(o);
  const triton_jit::StaticSignature& s = fn.signature();
  if (o.json) {
    std::cout << to_json(s).dump(2) << '\n';
  } else {
    print_decorators(s);
    for (const triton_jit::ParamInfo& p : s.params) std::cout << describe(p) << '\n';
  }
  return 0;
}

}  // namespace triton_jit_cli

// Named tuning choices (config_choice.h).
#include "decorators/config_choice.h"

#include <cctype>
#include <cstdlib>
#include <utility>
#include <variant>
#include <vector>

namespace triton_jit::detail {

namespace {

std::string list_configs(const AutotuneInfo& info) {
  std::string out;
  for (size_t c = 0; c < info.configs.size(); ++c) out += "\n  [" + std::to_string(c) + "] " + info.configs[c].repr;
  return out;
}

// A Python literal as its repr: strings in single quotes, the rest as written.
std::string literal_repr(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  text = text.substr(start);
  if (text.size() >= 2 && (text[0] == '"' || text[0] == '\'') && text.back() == text[0]) {
    return "'" + text.substr(1, text.size() - 2) + "'";
  }
  return text;
}

// {"K": V, ...} as (name, value repr) pairs; nullopt when it is not such a dict.
std::optional<std::vector<std::pair<std::string, std::string>>> parse_dict(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t i = 0;
  const auto skip = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  skip();
  if (i >= text.size() || text[i] != '{') return std::nullopt;
  ++i;
  for (;;) {
    skip();
    if (i < text.size() && text[i] == '}') break;
    if (i >= text.size() || (text[i] != '"' && text[i] != '\'')) return std::nullopt;
    const char q = text[i];
    const size_t end = text.find(q, i + 1);
    if (end == std::string::npos) return std::nullopt;
    std::string name = text.substr(i + 1, end - i - 1);
    i = end + 1;
    skip();
    if (i >= text.size() || text[i] != ':') return std::nullopt;
    ++i;
    skip();
    const size_t value_start = i;
    char quote = 0;
    for (; i < text.size(); ++i) {
      if (quote != 0) {
        if (text[i] == quote) quote = 0;
      } else if (text[i] == '"' || text[i] == '\'') {
        quote = text[i];
      } else if (text[i] == ',' || text[i] == '}') {
        break;
      }
    }
    if (i >= text.size() || i == value_start) return std::nullopt;
    out.emplace_back(std::move(name), literal_repr(text.substr(value_start, i - value_start)));
    if (text[i] == ',') ++i;
  }
  ++i;
  skip();
  if (i != text.size()) return std::nullopt;
  return out;
}

// Whether config `c` has `name` = `value` (a kwarg or a launch option); *known: whether it sets
// `name` at all.
bool config_has(const StaticSignature& signature, const AutotuneConfigInfo& c, const std::string& name,
                const std::string& value, bool* known) {
  const auto as_int = [&](int v) { return value == std::to_string(v); };
  *known = true;
  if (name == "num_warps") return as_int(c.num_warps);
  if (name == "num_stages") return as_int(c.num_stages);
  if (name == "num_ctas") return as_int(c.num_ctas);
  for (const auto& [option, v] : c.options.items()) {
    if (option != name) continue;
    if (const auto* i = std::get_if<int64_t>(&v)) return value == std::to_string(*i);
    if (const auto* b = std::get_if<bool>(&v)) return value == (*b ? "True" : "False");
    if (const auto* s = std::get_if<std::string>(&v)) return value == "'" + *s + "'";
    return false;
  }
  if (name == "maxnreg") return value == "None";  // not set: Triton's None
  for (const auto& [param, v] : c.kwargs) {
    if (signature.params[param].name == name) return v.repr == value;
  }
  *known = false;
  return false;
}

}  // namespace

std::optional<size_t> autotune_layer_of(const StaticSignature& signature, int requested, std::string* why) {
  std::vector<size_t> layers;
  for (size_t l = 0; l < signature.decorators.size(); ++l) {
    if (signature.decorators[l].tunes()) layers.push_back(l);
  }
  if (layers.empty()) {
    *why = "it is not under @triton.autotune";
    return std::nullopt;
  }
  if (requested < 0) {
    if (layers.size() == 1) return layers[0];
    *why = "it has " + std::to_string(layers.size()) +
           " autotuners: say which with layer=L (its index among the "
           "decorators, outermost 0)";
    return std::nullopt;
  }
  for (size_t l : layers) {
    if (l == static_cast<size_t>(requested)) return l;
  }
  *why = "decorator layer " + std::to_string(requested) + " is not an autotuner";
  return std::nullopt;
}

std::optional<uint32_t> config_choice(const StaticSignature& signature, const AutotuneInfo& info,
                                      const std::string& choice, std::string* why) {
  char* end = nullptr;
  const long index = std::strtol(choice.c_str(), &end, 10);
  if (!choice.empty() && *end == '\0') {
    if (index >= 0 && static_cast<size_t>(index) < info.configs.size()) return static_cast<uint32_t>(index);
    *why = "config=" + choice + " is not one of its " + std::to_string(info.configs.size()) + " configs (0 to " +
           std::to_string(info.configs.size() - 1) + "):" + list_configs(info);
    return std::nullopt;
  }
  const auto fields = parse_dict(choice);
  if (!fields || fields->empty()) {
    *why = "config=" + choice +
           " is neither a config's index nor a dict of its values ({\"BLOCK\": 64, "
           "\"num_warps\": 4})";
    return std::nullopt;
  }
  std::vector<uint32_t> matches;
  for (const auto& [name, value] : *fields) {
    bool anywhere = false;
    for (const AutotuneConfigInfo& c : info.configs) {
      bool known = false;
      config_has(signature, c, name, value, &known);
      anywhere |= known;
    }
    if (!anywhere) {
      *why = "config=" + choice + " names '" + name + "', which no config sets:" + list_configs(info);
      return std::nullopt;
    }
  }
  for (uint32_t c = 0; c < info.configs.size(); ++c) {
    bool all = true;
    for (const auto& [name, value] : *fields) {
      bool known = false;
      all &= config_has(signature, info.configs[c], name, value, &known);
    }
    if (all) matches.push_back(c);
  }
  if (matches.size() == 1) return matches[0];
  *why = "config=" + choice + (matches.empty() ? " matches none of its configs:" : " matches more than one config:") +
         list_configs(info);
  return std::nullopt;
}

}  // namespace triton_jit::detail

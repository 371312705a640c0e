#include <iostream>
#include <string>

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
  return {{"function", s.function}, {"file", s.file}, {"first_line", s.first_line}, {"params", params}};
}

}  // namespace

int run_inspect(const Options& o) {
  const triton_jit::TritonJitFunction& fn = kernel_function(o);
  const triton_jit::StaticSignature& s = fn.signature();
  if (o.json) {
    std::cout << to_json(s).dump(2) << '\n';
  } else {
    for (const triton_jit::ParamInfo& p : s.params) std::cout << describe(p) << '\n';
  }
  return 0;
}

}  // namespace triton_jit_cli

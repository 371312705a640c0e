#include "triton_jit/signature.h"

namespace triton_jit {

ArgValue DefaultValue::to_arg() const {
  switch (kind) {
    case ArgValue::Kind::Bool: return ArgValue::boolean(bool_value);
    case ArgValue::Kind::Int: return ArgValue::integer(int_value);
    case ArgValue::Kind::UInt: return ArgValue::unsigned_integer(uint_value);
    case ArgValue::Kind::Float: return ArgValue::floating(float_value);
    case ArgValue::Kind::String: return ArgValue::string(string_value);
    case ArgValue::Kind::DType:
      return torch_dtype ? ArgValue::torch_dtype(dtype_value) : ArgValue::triton_dtype(dtype_value);
    default: return ArgValue::none();
  }
}

std::string StaticSignature::to_string() const {
  std::string out;
  for (const ParamInfo& p : params) {
    out += p.name;
    if (!p.annotation.empty()) out += ": " + p.annotation;
    if (p.default_value) out += " = " + p.default_value->repr;
    std::string flags;
    if (p.do_not_specialize) flags += "do_not_specialize";
    if (p.do_not_specialize_on_alignment)
      flags += std::string(flags.empty() ? "" : ", ") + "do_not_specialize_on_alignment";
    if (!flags.empty()) out += "  [" + flags + "]";
    out += '\n';
  }
  return out;
}

int StaticSignature::find(std::string_view name) const {
  // From the back: a grid function asks per launch for constexprs, which come last; the first
  // character settles most mismatches before the characters are compared.
  for (auto it = params.rbegin(); it != params.rend(); ++it) {
    const std::string& n = it->name;
    if (n.size() == name.size() && !name.empty() && n[0] == name[0] && n == name) return it->index;
  }
  return -1;
}

}  // namespace triton_jit

#include "triton_jit/specialization.h"

namespace triton_jit {

std::string Specialization::signature() const {
  std::string out;
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamSpecialization& p = params[i];
    if (i) out += ',';
    if (p.type == "constexpr") {
      out += p.value_repr;
    } else {
      // A descriptor's type ("tensordesc<fp16[64, 64]>") loses its spaces, so that the text stays
      // one word in pack manifests: "tensordesc<fp16[64,64]>".
      for (const char c : p.type) {
        if (c != ' ') out += c;
      }
      if (p.hint == ParamSpecialization::Hint::Divisible16) out += ":16";
      if (p.pointer_range) out += ":S";
    }
  }
  return out;
}

std::string Specialization::triton_repr() const {
  std::string out = "[";
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamSpecialization& p = params[i];
    if (i) out += ", ";
    out += "('" + p.type + "', ";
    if (p.type == "constexpr") {
      out += p.value_repr;
    } else {
      switch (p.hint) {
        case ParamSpecialization::Hint::None: out += "None"; break;
        case ParamSpecialization::Hint::NotAligned: out += p.pointer_range ? "'S'" : "''"; break;
        case ParamSpecialization::Hint::Divisible16: out += p.pointer_range ? "'DS'" : "'D'"; break;
        case ParamSpecialization::Hint::EqualsOne: out += "1"; break;
      }
    }
    out += ")";
  }
  return out + "]";
}

}  // namespace triton_jit

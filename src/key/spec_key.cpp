#include "key/spec_key.h"

#include <cmath>
#include <limits>
#include <string>

#include "key/repr.h"

namespace triton_jit::detail {
namespace {

bool parse_type_name(const std::string& text, TypeKind* kind, DType* dtype, bool* is_const) {
  std::string_view t = text;
  *is_const = false;
  *kind = TypeKind::Scalar;
  if (!t.empty() && t[0] == '*') {
    *kind = TypeKind::Pointer;
    t.remove_prefix(1);
    if (!t.empty() && t[0] == 'k') {
      *is_const = true;
      t.remove_prefix(1);
    }
  }
  return parse_dtype(t, dtype);
}

}  // namespace

ParamRule make_rule(const ParamInfo& p) {
  ParamRule r;
  r.is_constexpr = p.is_constexpr;
  r.specialize = !p.do_not_specialize;
  r.align = !p.do_not_specialize_on_alignment;
  r.is_const = p.is_const;
  if (!p.is_constexpr && !p.annotation_type.empty()) {
    TypeKind kind;
    DType dtype;
    bool is_const;
    if (parse_type_name(p.annotation_type, &kind, &dtype, &is_const)) {
      r.annotated = true;
      r.annotated_kind = kind;
      r.annotated_dtype = dtype;
      r.annotated_const = is_const;
      const std::string& a = p.annotation_type;
      r.annotated_unspecialized = a == "u1" || a.rfind("fp", 0) == 0 || a.rfind("bf", 0) == 0;
    }
  }
  using Hint = ParamSpecialization::Hint;
  auto hint_bits = [](Hint h) { return static_cast<uint16_t>(static_cast<unsigned>(h) << 8); };
  r.mode = r.is_constexpr ? ParamMode::Constexpr : r.annotated ? ParamMode::Annotated : ParamMode::Plain;
  r.hint_divisible = hint_bits(!r.specialize ? Hint::None : r.align ? Hint::Divisible16 : Hint::NotAligned);
  r.hint_other = hint_bits(!r.specialize ? Hint::None : Hint::NotAligned);
  r.pointer_flags = make_code(TypeKind::Pointer, 0, r.is_const, Hint::None);
  return r;
}

ParamCode SpecKey::param(uint32_t i) const {
  uint32_t payload_index = 2 + code_words(num_params);
  for (uint32_t j = 0; j < i; ++j) {
    if (has_payload(ParamCode{code(j), 0}.kind())) ++payload_index;
  }
  ParamCode p{code(i), 0};
  if (has_payload(p.kind())) p.payload = words[payload_index];
  return p;
}

uint64_t hash_string(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string type_string(const ParamCode& code) {
  std::string out;
  if (code.kind() == TypeKind::TensorDesc) {
    // Triton's spelling: "tensordesc<fp16[64, 64]>".
    out = "tensordesc<" + std::string(dtype_name(code.dtype())) + "[";
    const int rank = static_cast<int>(code.payload & 7);
    for (int i = 0; i < rank; ++i) {
      out += (i ? ", " : "") + std::to_string(descriptor_block_dim(code.payload, i));
    }
    return out + "]>";
  }
  if (code.kind() == TypeKind::Pointer) out += code.is_const() ? "*k" : "*";
  out += dtype_name(code.dtype());
  return out;
}

ParamSpecialization describe(const ParamCode& code, const ArgValue& arg) {
  ParamSpecialization p;
  if (code.kind() != TypeKind::Constexpr) {
    p.type = type_string(code);
    p.hint = code.hint();
    p.pointer_range = code.pointer_range();
    return p;
  }
  p.type = "constexpr";
  switch (code.value_kind()) {
    case ArgValue::Kind::None: p.value_repr = "None"; break;
    case ArgValue::Kind::Bool: p.value_repr = (code.payload != 0) ? "True" : "False"; break;
    case ArgValue::Kind::Int: p.value_repr = std::to_string(static_cast<int64_t>(code.payload)); break;
    case ArgValue::Kind::UInt: p.value_repr = std::to_string(code.payload); break;
    case ArgValue::Kind::Float: {
      double v;
      std::memcpy(&v, &code.payload, sizeof v);
      p.value_repr = python_float_repr(v);
      break;
    }
    case ArgValue::Kind::String: p.value_repr = python_str_repr(arg.as_string()); break;
    case ArgValue::Kind::Pointer:
    case ArgValue::Kind::TensorDesc: break;  // rejected by specialize_param
    case ArgValue::Kind::DType: p.value_repr = python_dtype_repr(arg.dtype(), arg.is_torch_dtype()); break;
  }
  return p;
}

}  // namespace triton_jit::detail

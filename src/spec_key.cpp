#include "spec_key.h"

#include <cmath>
#include <limits>
#include <string>

#include "python_repr.h"

namespace triton_jit::detail {
namespace {

using Hint = ParamSpecialization::Hint;

constexpr uint64_t kCanonicalNaN = 0x7ff8000000000000ull;

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

// Integer type by value, as Triton: i32 if it fits, else i64, else u64.
inline DType int_type(const ArgValue& a) {
  if (a.kind() == ArgValue::Kind::UInt) return DType::u64;
  int64_t v = a.as_int();
  return (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) ? DType::i32
                                                                                             : DType::i64;
}

inline bool is_integer_dtype(DType d) {
  switch (d) {
    case DType::u1: case DType::i8: case DType::i16: case DType::i32: case DType::i64:
    case DType::u8: case DType::u16: case DType::u32: case DType::u64:
      return true;
    default:
      return false;
  }
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
  return r;
}

bool specialize_param(const ParamRule& rule, const ArgValue& arg, ParamCode* out, ArgProblem* problem) noexcept {
  using K = ArgValue::Kind;
  const K kind = arg.kind();
  if (rule.is_constexpr) {
    if (kind == K::Pointer) {
      *problem = ArgProblem::PointerForConstexpr;
      return false;
    }
    uint64_t payload = arg.bits();
    if (kind == K::String) {
      payload = hash_string(arg.as_string());
    } else if (kind == K::Float && std::isnan(arg.as_float())) {
      payload = kCanonicalNaN;  // Python prints every NaN alike, so Triton's key does not tell them apart
    } else if (kind == K::None) {
      payload = 0;
    }
    out->code = make_code(TypeKind::Constexpr, static_cast<uint8_t>(kind), false, Hint::None);
    out->payload = payload;
    return true;
  }

  // native_specialize_impl
  TypeKind tkind = TypeKind::Scalar;
  uint8_t sub = 0;
  Hint hint = Hint::None;
  bool constexpr_one = false;
  switch (kind) {
    case K::None:
      tkind = TypeKind::Constexpr;
      sub = static_cast<uint8_t>(K::None);
      break;
    case K::Bool:
      sub = static_cast<uint8_t>(DType::u1);
      break;
    case K::Int:
    case K::UInt: {
      sub = static_cast<uint8_t>(int_type(arg));
      if (rule.specialize) {
        if (kind == K::Int && arg.as_int() == 1) {
          constexpr_one = true;
        } else {
          hint = (rule.align && arg.bits() % 16 == 0) ? Hint::Divisible16 : Hint::NotAligned;
        }
      }
      break;
    }
    case K::Float:
      sub = static_cast<uint8_t>(DType::fp32);
      break;
    case K::Pointer:
      tkind = TypeKind::Pointer;
      sub = static_cast<uint8_t>(arg.dtype());
      if (rule.specialize) hint = (rule.align && arg.address() % 16 == 0) ? Hint::Divisible16 : Hint::NotAligned;
      break;
    case K::String:
      *problem = ArgProblem::StringForRuntime;
      return false;
  }

  if (!rule.annotated) {
    if (constexpr_one) {
      out->code = make_code(TypeKind::Constexpr, static_cast<uint8_t>(K::Int), false, Hint::None);
      out->payload = 1;
    } else {
      bool is_const = tkind == TypeKind::Pointer && rule.is_const;
      out->code = make_code(tkind, sub, is_const, hint);
      out->payload = 0;
    }
    return true;
  }

  // The binder keeps the annotated type and takes only the hint from native_specialize_impl.
  // None keeps Triton's key here; the launch rejects it for a scalar.
  if (kind == K::None) {
  } else if (rule.annotated_kind == TypeKind::Pointer) {
    if (kind != K::Pointer) {
      *problem = ArgProblem::KindForAnnotation;
      return false;
    }
  } else if (is_integer_dtype(rule.annotated_dtype)) {
    if (kind != K::Int && kind != K::UInt && kind != K::Bool) {
      *problem = ArgProblem::KindForAnnotation;
      return false;
    }
  } else if (kind != K::Float && kind != K::Int && kind != K::UInt && kind != K::Bool) {
    *problem = ArgProblem::KindForAnnotation;
    return false;
  }
  Hint annotated_hint = Hint::None;
  if (!rule.annotated_unspecialized) annotated_hint = constexpr_one ? Hint::EqualsOne : hint;
  out->code = make_code(rule.annotated_kind, static_cast<uint8_t>(rule.annotated_dtype), rule.annotated_const,
                        annotated_hint);
  out->payload = 0;
  return true;
}

uint64_t make_header(int num_warps, int num_stages, int num_ctas, int arch, int warp_size) {
  return (static_cast<uint64_t>(num_warps & 0xff)) | (static_cast<uint64_t>(num_stages & 0xff) << 8) |
         (static_cast<uint64_t>(num_ctas & 0xff) << 16) | (static_cast<uint64_t>(arch & 0xffff) << 24) |
         (static_cast<uint64_t>(warp_size & 0xff) << 40);
}

uint64_t hash_words(const uint64_t* words, uint32_t count) {
  uint64_t h = 0x243f6a8885a308d3ull ^ count;
  for (uint32_t i = 0; i < count; ++i) {
    h ^= words[i];
    h *= 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  return h;
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
  if (code.kind() == TypeKind::Pointer) out += code.is_const() ? "*k" : "*";
  out += dtype_name(code.dtype());
  return out;
}

ParamSpecialization describe(const ParamCode& code, const ArgValue& arg) {
  ParamSpecialization p;
  if (code.kind() != TypeKind::Constexpr) {
    p.type = type_string(code);
    p.hint = code.hint();
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
    case ArgValue::Kind::Pointer: break;  // rejected by specialize_param
  }
  return p;
}

}  // namespace triton_jit::detail

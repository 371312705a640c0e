#pragma once

#include <climits>
#include <cstdint>
#include <cstring>
#include <string>

#include "triton_jit/arg.h"
#include "triton_jit/dtype.h"
#include "triton_jit/signature.h"
#include "triton_jit/specialization.h"
#include "triton_jit/tensor_descriptor.h"

namespace triton_jit::detail {

inline constexpr int kMaxParams = 64;

// TensorDesc: a host tensor descriptor, keyed by element type (the code) and block shape (a
// payload word, as constexprs have); a runtime argument, expanded at launch.
enum class TypeKind : uint8_t { TensorDesc = 0, Scalar = 1, Pointer = 2, Constexpr = 3 };

// One parameter's specialization. The 16-bit code packs, from the low bits: kind (2), dtype or
// constexpr value kind (5), const pointer (1), hint (2), HIP's 'S' (1). Constexprs add a 64-bit
// payload (the value's bits; strings: a hash of the characters; dtypes: the dtype and the
// torch-spelling bit); tensor descriptors one too (their block shape).
struct ParamCode {
  uint16_t code = 0;
  uint64_t payload = 0;

  TypeKind kind() const { return static_cast<TypeKind>(code & 3); }
  DType dtype() const { return static_cast<DType>((code >> 2) & 31); }
  ArgValue::Kind value_kind() const { return static_cast<ArgValue::Kind>((code >> 2) & 31); }
  bool is_const() const { return (code >> 7) & 1; }
  ParamSpecialization::Hint hint() const { return static_cast<ParamSpecialization::Hint>((code >> 8) & 3); }
  bool pointer_range() const { return (code >> 10) & 1; }
};

// The code bit of Triton's HIP 'S' flag (tt.pointer_range = 32).
inline constexpr uint16_t kPointerRangeBit = uint16_t{1} << 10;

inline constexpr uint16_t make_code(TypeKind kind, uint8_t sub, bool is_const, ParamSpecialization::Hint hint) {
  return static_cast<uint16_t>(static_cast<unsigned>(kind) | (static_cast<unsigned>(sub) << 2) |
                               (static_cast<unsigned>(is_const) << 7) | (static_cast<unsigned>(hint) << 8));
}

// How the hot path treats a parameter: the two common modes have a short path of their own
// (fast_specialize below); annotated parameters take the general one (specialize_param).
enum class ParamMode : uint8_t { Constexpr, Plain, Annotated };

// What the hot path needs of a parameter, precomputed from its ParamInfo.
struct ParamRule {
  ParamMode mode = ParamMode::Plain;
  // Plain parameters: the hint an integer or pointer gets when divisible by 16 and when not
  // (both None under do_not_specialize; both '' under do_not_specialize_on_alignment).
  uint16_t hint_divisible = 0;
  uint16_t hint_other = 0;
  uint16_t pointer_flags = 0;  // kind Pointer and the const bit, ready to or into a code
  bool is_constexpr = false;
  bool specialize = true;  // !do_not_specialize
  bool align = true;       // !do_not_specialize_on_alignment
  bool is_const = false;
  bool annotated = false;                // annotation names a Triton type
  bool annotated_unspecialized = false;  // u1, fp*, bf*: never specialized
  TypeKind annotated_kind = TypeKind::Scalar;
  DType annotated_dtype = DType::i32;
  bool annotated_const = false;
};

ParamRule make_rule(const ParamInfo& param);

// Why an argument cannot be specialized; the caller turns it into an ArgumentError.
enum class ArgProblem : uint8_t {
  None,
  PointerForConstexpr,     // a device pointer given to a constexpr parameter
  DescriptorForConstexpr,  // a tensor descriptor given to a constexpr parameter
  StringForRuntime,        // a string given to a runtime parameter
  KindForAnnotation,       // a value that the annotated type cannot hold
  DTypeForRuntime,         // a dtype given to a runtime parameter
  NoSuchDType,             // a dtype Python has no object for (torch has no fp8e4b15)
};

uint64_t hash_string(std::string_view s);

// True for the codes that carry a payload word in the key: constexprs and tensor descriptors.
inline bool has_payload(TypeKind kind) { return kind == TypeKind::Constexpr || kind == TypeKind::TensorDesc; }

// A descriptor's block shape as a payload: the rank in the low 3 bits, then the log2 of each
// dimension in 5 bits (block dimensions are powers of two, at most Triton's 2^20 elements).
inline uint64_t descriptor_payload(const TensorDescriptor& d) noexcept {
  uint64_t p = static_cast<uint64_t>(d.rank) & 7;
  for (int i = 0; i < d.rank && i < TensorDescriptor::kMaxRank; ++i) {
    p |= static_cast<uint64_t>(__builtin_ctz(static_cast<unsigned>(d.block_shape[i])) & 31) << (3 + 5 * i);
  }
  return p;
}
inline int64_t descriptor_block_dim(uint64_t payload, int i) { return int64_t{1} << ((payload >> (3 + 5 * i)) & 31); }

// What is wrong with a descriptor, by Triton's TensorDescriptor rules; empty when nothing is.
std::string descriptor_problem(const TensorDescriptor& d);

namespace spec_internal {

inline bool is_integer_dtype(DType d) { return static_cast<uint8_t>(d) <= static_cast<uint8_t>(DType::u64); }

// A dtype constexpr Python has an object for: torch has no fp8e4b15.
inline bool dtype_exists(const ArgValue& arg) {
  return static_cast<int>(arg.dtype()) < kNumDTypes && !(arg.is_torch_dtype() && arg.dtype() == DType::fp8e4b15);
}

inline uint64_t constexpr_payload(const ArgValue& arg) {
  switch (arg.kind()) {
    case ArgValue::Kind::String: return hash_string(arg.as_string());
    case ArgValue::Kind::None: return 0;
    case ArgValue::Kind::Float: {
      double v = arg.as_float();
      // Python prints every NaN alike, so Triton's key does not tell them apart.
      return v != v ? 0x7ff8000000000000ull : arg.bits();
    }
    default: return arg.bits();
  }
}

}  // namespace spec_internal

// Triton's specialization of one argument (native_specialize_impl plus the binder's annotation
// rules). Returns false and sets *problem when the argument does not fit. Inline: it runs once per
// argument on every launch.
inline bool specialize_param(const ParamRule& rule, const ArgValue& arg, ParamCode* out, ArgProblem* problem) noexcept {
  using K = ArgValue::Kind;
  using Hint = ParamSpecialization::Hint;
  const K kind = arg.kind();
  if (rule.is_constexpr) {
    if (kind == K::Pointer) {
      *problem = ArgProblem::PointerForConstexpr;
      return false;
    }
    if (kind == K::TensorDesc) {
      *problem = ArgProblem::DescriptorForConstexpr;
      return false;
    }
    if (kind == K::DType && !spec_internal::dtype_exists(arg)) {
      *problem = ArgProblem::NoSuchDType;
      return false;
    }
    out->code = make_code(TypeKind::Constexpr, static_cast<uint8_t>(kind), false, Hint::None);
    out->payload = spec_internal::constexpr_payload(arg);
    return true;
  }

  TypeKind tkind = TypeKind::Scalar;
  uint8_t sub = 0;
  Hint hint = Hint::None;
  bool constexpr_one = false;
  switch (kind) {
    case K::Pointer:
      tkind = TypeKind::Pointer;
      sub = static_cast<uint8_t>(arg.dtype());
      if (rule.specialize) hint = (rule.align && arg.address() % 16 == 0) ? Hint::Divisible16 : Hint::NotAligned;
      break;
    case K::Int:
    case K::UInt: {
      // Typed by value: i32 if it fits, else i64, else u64.
      const int64_t v = arg.as_int();
      sub = static_cast<uint8_t>(kind == K::UInt                      ? DType::u64
                                 : (v >= INT32_MIN && v <= INT32_MAX) ? DType::i32
                                                                      : DType::i64);
      if (rule.specialize) {
        if (kind == K::Int && v == 1) {
          constexpr_one = true;
        } else {
          hint = (rule.align && arg.bits() % 16 == 0) ? Hint::Divisible16 : Hint::NotAligned;
        }
      }
      break;
    }
    case K::None:
      tkind = TypeKind::Constexpr;
      sub = static_cast<uint8_t>(K::None);
      break;
    case K::Bool: sub = static_cast<uint8_t>(DType::u1); break;
    case K::Float: sub = static_cast<uint8_t>(DType::fp32); break;
    case K::String: *problem = ArgProblem::StringForRuntime; return false;
    case K::TensorDesc:
      // Triton's ('tensordesc<dtype[block]>', None), whatever the annotation says.
      if (rule.annotated) {
        *problem = ArgProblem::KindForAnnotation;
        return false;
      }
      out->code = make_code(TypeKind::TensorDesc, static_cast<uint8_t>(arg.dtype()), false, Hint::None);
      out->payload = descriptor_payload(*arg.as_tensor_descriptor());
      return true;
    case K::DType: *problem = ArgProblem::DTypeForRuntime; return false;
  }

  if (!rule.annotated) {
    if (constexpr_one) {
      out->code = make_code(TypeKind::Constexpr, static_cast<uint8_t>(K::Int), false, Hint::None);
      out->payload = 1;
    } else {
      out->code = make_code(tkind, sub, tkind == TypeKind::Pointer && rule.is_const, hint);
      out->payload = 0;
    }
    return true;
  }

  // The binder keeps the annotated type and takes only the hint from native_specialize_impl.
  // None keeps Triton's key here; the launch rejects it for a scalar.
  if (kind != K::None) {
    const bool fits = rule.annotated_kind == TypeKind::Pointer ? kind == K::Pointer
                      : spec_internal::is_integer_dtype(rule.annotated_dtype)
                          ? (kind == K::Int || kind == K::UInt || kind == K::Bool)
                          : (kind == K::Float || kind == K::Int || kind == K::UInt || kind == K::Bool);
    if (!fits) {
      *problem = ArgProblem::KindForAnnotation;
      return false;
    }
  }
  Hint annotated_hint = Hint::None;
  if (!rule.annotated_unspecialized) annotated_hint = constexpr_one ? Hint::EqualsOne : hint;
  out->code = make_code(rule.annotated_kind, static_cast<uint8_t>(rule.annotated_dtype), rule.annotated_const,
                        annotated_hint);
  out->payload = 0;
  return true;
}

// The common modes' short path: the code of a constexpr or unannotated runtime parameter, and
// for the latter the value packed into `slot` as the kernel expects it. Returns the payload to
// append for a constexpr code. Returns false for the cases it leaves to specialize_param
// (annotated parameters, strings, pointers given to constexprs).
inline bool fast_specialize(const ParamRule& rule, const ArgValue& arg, uint16_t* code, uint64_t* payload,
                            uint64_t* slot) noexcept {
  using K = ArgValue::Kind;
  using Hint = ParamSpecialization::Hint;
  const K kind = arg.kind();
  if (rule.mode == ParamMode::Constexpr) {
    if (kind == K::Pointer || kind == K::TensorDesc) return false;
    if (kind == K::DType && !spec_internal::dtype_exists(arg)) return false;
    *code = make_code(TypeKind::Constexpr, static_cast<uint8_t>(kind), false, Hint::None);
    *payload = spec_internal::constexpr_payload(arg);
    return true;
  }
  if (rule.mode != ParamMode::Plain) return false;
  switch (kind) {
    case K::Pointer: {
      const uint64_t address = arg.address();
      *code = static_cast<uint16_t>(rule.pointer_flags | (static_cast<unsigned>(arg.dtype()) << 2) |
                                    (address % 16 == 0 ? rule.hint_divisible : rule.hint_other));
      *slot = address;
      return true;
    }
    case K::Int: {
      const int64_t v = arg.as_int();
      if (v == 1 && rule.specialize) {
        *code = make_code(TypeKind::Constexpr, static_cast<uint8_t>(K::Int), false, Hint::None);
        *payload = 1;
        return true;
      }
      const DType type = (v >= INT32_MIN && v <= INT32_MAX) ? DType::i32 : DType::i64;
      *code = static_cast<uint16_t>(make_code(TypeKind::Scalar, static_cast<uint8_t>(type), false, Hint::None) |
                                    (v % 16 == 0 ? rule.hint_divisible : rule.hint_other));
      *slot = arg.bits();
      return true;
    }
    case K::UInt:
      *code = static_cast<uint16_t>(make_code(TypeKind::Scalar, static_cast<uint8_t>(DType::u64), false, Hint::None) |
                                    (arg.bits() % 16 == 0 ? rule.hint_divisible : rule.hint_other));
      *slot = arg.bits();
      return true;
    case K::Bool:
      *code = make_code(TypeKind::Scalar, static_cast<uint8_t>(DType::u1), false, Hint::None);
      *slot = arg.bits();
      return true;
    case K::Float: {
      *code = make_code(TypeKind::Scalar, static_cast<uint8_t>(DType::fp32), false, Hint::None);
      const float f = static_cast<float>(arg.as_float());
      std::memcpy(slot, &f, sizeof f);
      return true;
    }
    case K::None:
      *code = make_code(TypeKind::Constexpr, static_cast<uint8_t>(K::None), false, Hint::None);
      *payload = 0;
      return true;
    default: return false;
  }
}

// The cache key of a call, on the stack: [0] header (options, target), [1] extra-options hash,
// then the 16-bit codes four to a word, then one payload word per constexpr, in parameter order.
struct SpecKey {
  uint32_t num_params = 0;
  uint32_t num_words = 0;
  uint64_t hash = 0;
  uint64_t words[2 + kMaxParams / 4 + kMaxParams];

  static constexpr uint32_t code_words(uint32_t n) { return (n + 3) / 4; }
  uint16_t code(uint32_t i) const { return static_cast<uint16_t>(words[2 + i / 4] >> (16 * (i % 4))); }
  // The parameter's code and payload (counts the constexprs before it: not for the hot path).
  ParamCode param(uint32_t i) const;
  bool equals(const uint64_t* other_words, uint32_t other_num_words) const {
    return num_words == other_num_words && std::memcmp(words, other_words, num_words * sizeof(uint64_t)) == 0;
  }
};

inline uint64_t make_header(int num_warps, int num_stages, int num_ctas, int arch, int warp_size) {
  return (static_cast<uint64_t>(num_warps & 0xff)) | (static_cast<uint64_t>(num_stages & 0xff) << 8) |
         (static_cast<uint64_t>(num_ctas & 0xff) << 16) | (static_cast<uint64_t>(arch & 0xffff) << 24) |
         (static_cast<uint64_t>(warp_size & 0xff) << 40);
}
inline int header_num_stages(uint64_t header) { return static_cast<int>((header >> 8) & 0xff); }
inline uint64_t hash_words(const uint64_t* words, uint32_t count) {
  uint64_t h = 0x243f6a8885a308d3ull ^ count;
  for (uint32_t i = 0; i < count; ++i) {
    h ^= words[i];
    h *= 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  return h;
}

// Triton's HIP backend adds 'S' to a specialized pointer whose buffer holds at most 2^31 - 1
// bytes when its knob amd.use_buffer_ops is on (HIPBackend.get_tensor_specialization); an
// annotated or const pointer too, one under do_not_specialize not (its hint is None). Run after
// bind, for HIP targets only: a CUDA key never pays for it.
inline void mark_pointer_ranges(const ParamRule* rules, const ArgValue* args, SpecKey* key) noexcept {
  for (uint32_t i = 0; i < key->num_params; ++i) {
    const uint16_t code = key->code(i);
    if ((code & 3) != static_cast<uint16_t>(TypeKind::Pointer) || !rules[i].specialize || !args[i].within_2gb()) {
      continue;
    }
    key->words[2 + i / 4] |= static_cast<uint64_t>(kPointerRangeBit) << (16 * (i % 4));
  }
  key->hash = hash_words(key->words, key->num_words);
}

// Triton's view of a specialized parameter: type string, hint, constexpr repr.
ParamSpecialization describe(const ParamCode& code, const ArgValue& arg);
// Triton's type string of a non-constexpr code ("*kfp16", "i32").
std::string type_string(const ParamCode& code);

}  // namespace triton_jit::detail

#pragma once

#include <cstdint>
#include <cstring>

#include "triton_jit/arg.h"
#include "triton_jit/dtype.h"
#include "triton_jit/signature.h"
#include "triton_jit/specialization.h"

namespace triton_jit::detail {

inline constexpr int kMaxParams = 64;

enum class TypeKind : uint8_t { Scalar = 1, Pointer = 2, Constexpr = 3 };

// One parameter's specialization in two words. The code word packs, from the low bits:
// kind (8), dtype or constexpr value kind (8), const pointer (1), hint (2).
struct ParamCode {
  uint64_t code = 0;
  uint64_t payload = 0;  // constexpr value bits (strings: hash of the characters)

  TypeKind kind() const { return static_cast<TypeKind>(code & 0xff); }
  DType dtype() const { return static_cast<DType>((code >> 8) & 0xff); }
  ArgValue::Kind value_kind() const { return static_cast<ArgValue::Kind>((code >> 8) & 0xff); }
  bool is_const() const { return (code >> 16) & 1; }
  ParamSpecialization::Hint hint() const { return static_cast<ParamSpecialization::Hint>((code >> 17) & 3); }
};

inline constexpr uint64_t make_code(TypeKind kind, uint8_t sub, bool is_const, ParamSpecialization::Hint hint) {
  return static_cast<uint64_t>(kind) | (static_cast<uint64_t>(sub) << 8) | (static_cast<uint64_t>(is_const) << 16) |
         (static_cast<uint64_t>(hint) << 17);
}

// What the hot path needs of a parameter, precomputed from its ParamInfo.
struct ParamRule {
  bool is_constexpr = false;
  bool specialize = true;   // !do_not_specialize
  bool align = true;        // !do_not_specialize_on_alignment
  bool is_const = false;
  bool annotated = false;   // annotation names a Triton type
  bool annotated_unspecialized = false;  // u1, fp*, bf*: never specialized
  TypeKind annotated_kind = TypeKind::Scalar;
  DType annotated_dtype = DType::i32;
  bool annotated_const = false;
};

ParamRule make_rule(const ParamInfo& param);

// Why an argument cannot be specialized; the caller turns it into an ArgumentError.
enum class ArgProblem : uint8_t {
  None,
  PointerForConstexpr,   // a device pointer given to a constexpr parameter
  StringForRuntime,      // a string given to a runtime parameter
  KindForAnnotation,     // a value that the annotated type cannot hold
};

// Triton's specialization of one argument (native_specialize_impl plus the binder's annotation
// rules). Returns false and sets *problem when the argument does not fit.
bool specialize_param(const ParamRule& rule, const ArgValue& arg, ParamCode* out, ArgProblem* problem) noexcept;

// The cache key of a call: a header (options, target), the extra-options hash, then two words per
// parameter. Lives on the stack.
struct SpecKey {
  uint32_t num_params = 0;
  uint64_t hash = 0;
  uint64_t words[2 + 2 * kMaxParams];

  uint32_t size_words() const { return 2 + 2 * num_params; }
  ParamCode param(int i) const { return ParamCode{words[2 + 2 * i], words[3 + 2 * i]}; }
  bool equals(const uint64_t* other_words) const {
    return std::memcmp(words, other_words, size_words() * sizeof(uint64_t)) == 0;
  }
};

uint64_t make_header(int num_warps, int num_stages, int num_ctas, int arch, int warp_size);
uint64_t hash_words(const uint64_t* words, uint32_t count);
uint64_t hash_string(std::string_view s);

// Triton's view of a specialized parameter: type string, hint, constexpr repr.
ParamSpecialization describe(const ParamCode& code, const ArgValue& arg);
// Triton's type string of a non-constexpr code ("*kfp16", "i32").
std::string type_string(const ParamCode& code);

}  // namespace triton_jit::detail

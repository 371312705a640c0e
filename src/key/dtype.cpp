#include "triton_jit/dtype.h"

#include <utility>

namespace triton_jit {
namespace {

// A table laid out by hand.
// clang-format off
constexpr std::string_view kNames[kNumDTypes] = {
    "u1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp16", "bf16", "fp32", "fp64",
    "fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16",
};
// clang-format on

// The names of triton.language's dtype objects and of torch's, in DType order.
// A table laid out by hand.
// clang-format off
constexpr std::string_view kTritonLanguageNames[kNumDTypes] = {
    "int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16",
    "float32", "float64", "float8e4nv", "float8e5", "float8e4b15", "float8e4b8", "float8e5b16",
};
constexpr std::string_view kTorchNames[kNumDTypes] = {
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16",
    "float32", "float64", "float8_e4m3fn", "float8_e5m2", "", "float8_e4m3fnuz", "float8_e5m2fnuz",
};
// clang-format on

// Aliases Triton's type_canonicalisation_dict accepts, beside the canonical names.
// A table laid out by hand.
// clang-format off
constexpr std::pair<std::string_view, DType> kAliases[] = {
    {"bool", DType::u1},          {"int1", DType::u1},         {"uint1", DType::u1},
    {"i1", DType::u1},            {"int8", DType::i8},         {"int16", DType::i16},
    {"int", DType::i32},          {"int32", DType::i32},       {"int64", DType::i64},
    {"uint8", DType::u8},         {"uint16", DType::u16},      {"uint32", DType::u32},
    {"uint64", DType::u64},       {"half", DType::fp16},       {"float16", DType::fp16},
    {"bfloat16", DType::bf16},    {"float", DType::fp32},      {"float32", DType::fp32},
    {"double", DType::fp64},      {"float64", DType::fp64},    {"float8e4nv", DType::fp8e4nv},
    {"float8_e4m3fn", DType::fp8e4nv}, {"float8e5", DType::fp8e5}, {"float8_e5m2", DType::fp8e5},
    {"float8e4b15", DType::fp8e4b15},  {"float8e4b8", DType::fp8e4b8}, {"float8_e4m3fnuz", DType::fp8e4b8},
    {"float8e5b16", DType::fp8e5b16},  {"float8_e5m2fnuz", DType::fp8e5b16},
};
// clang-format on

}  // namespace

std::string_view dtype_name(DType dtype) {
  auto i = static_cast<int>(dtype);
  return (i >= 0 && i < kNumDTypes) ? kNames[i] : std::string_view("?");
}

std::string_view triton_language_name(DType dtype) {
  auto i = static_cast<int>(dtype);
  return (i >= 0 && i < kNumDTypes) ? kTritonLanguageNames[i] : std::string_view();
}

std::string_view torch_name(DType dtype) {
  auto i = static_cast<int>(dtype);
  return (i >= 0 && i < kNumDTypes) ? kTorchNames[i] : std::string_view();
}

bool parse_dtype(std::string_view name, DType* out) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (kNames[i] == name) {
      *out = static_cast<DType>(i);
      return true;
    }
  }
  for (const auto& [alias, dtype] : kAliases) {
    if (alias == name) {
      *out = dtype;
      return true;
    }
  }
  return false;
}

}  // namespace triton_jit

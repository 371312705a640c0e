#pragma once

#include <cstdint>
#include <string_view>

#include "triton_jit/export.h"

namespace triton_jit {

// Element types of Triton pointers, spelled as Triton spells them in signatures ("*fp16", "*u1").
enum class DType : uint8_t {
  u1,  // bool / int1
  i8,
  i16,
  i32,
  i64,
  u8,
  u16,
  u32,
  u64,
  fp16,
  bf16,
  fp32,
  fp64,
  fp8e4nv,  // float8_e4m3fn
  fp8e5,    // float8_e5m2
  fp8e4b15,
  fp8e4b8,   // float8_e4m3fnuz
  fp8e5b16,  // float8_e5m2fnuz
};

inline constexpr int kNumDTypes = static_cast<int>(DType::fp8e5b16) + 1;

// Bytes per element as stored in memory (a u1 element is a byte, as torch.bool is).
constexpr int dtype_size(DType dtype) {
  switch (dtype) {
    case DType::i16:
    case DType::u16:
    case DType::fp16:
    case DType::bf16: return 2;
    case DType::i32:
    case DType::u32:
    case DType::fp32: return 4;
    case DType::i64:
    case DType::u64:
    case DType::fp64: return 8;
    default: return 1;
  }
}

// Triton's name of the type ("fp16"), as used after '*' in a signature.
TRITON_JIT_API std::string_view dtype_name(DType dtype);

// Parses Triton's names and their aliases ("fp16", "float16", "half", "bool", ...); false if unknown.
TRITON_JIT_API bool parse_dtype(std::string_view name, DType* out);

// The dtype's name in triton.language ("float16" for tl.float16, "int1" for u1), as its Python
// repr prints it: triton.language.float16.
TRITON_JIT_API std::string_view triton_language_name(DType dtype);

// The dtype's name in torch ("float16" for torch.float16, "bool" for u1, "float8_e4m3fn" for
// fp8e4nv), as its Python repr prints it: torch.float16. Empty for fp8e4b15, which torch lacks.
TRITON_JIT_API std::string_view torch_name(DType dtype);

}  // namespace triton_jit

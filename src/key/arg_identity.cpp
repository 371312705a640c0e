#include "key/arg_identity.h"

#include <string_view>

#include "key/repr.h"

namespace triton_jit::detail {

uint64_t string_identity(std::string_view s) noexcept {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h ^ s.size();
}

std::string identity_repr(const ArgValue& a) {
  switch (a.kind()) {
    case ArgValue::Kind::None: return "None";
    case ArgValue::Kind::Bool: return a.as_bool() ? "True" : "False";
    case ArgValue::Kind::Int: return std::to_string(a.as_int());
    case ArgValue::Kind::UInt: return std::to_string(a.as_uint());
    case ArgValue::Kind::Float: return python_float_repr(a.as_float());
    case ArgValue::Kind::String: return python_str_repr(a.as_string());
    case ArgValue::Kind::DType: return python_dtype_repr(a.dtype(), a.is_torch_dtype());
    case ArgValue::Kind::Pointer: return "'" + python_dtype_repr(a.dtype(), true) + "'";
    case ArgValue::Kind::TensorDesc: return "<tensor descriptor of " + python_dtype_repr(a.dtype(), false) + ">";
  }
  return "?";
}

}  // namespace triton_jit::detail

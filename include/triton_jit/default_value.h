#pragma once

#include <cstdint>
#include <string>

#include "triton_jit/arg.h"
#include "triton_jit/export.h"

namespace triton_jit {

// A parameter's default value as Python holds it. Values C++ cannot pass (a tuple or a function,
// say) keep only their repr; omitting such a parameter is an error that says to pass it explicitly.
struct TRITON_JIT_API DefaultValue {
  ArgValue::Kind kind = ArgValue::Kind::None;
  int64_t int_value = 0;
  uint64_t uint_value = 0;
  double float_value = 0;
  bool bool_value = false;
  std::string string_value;
  DType dtype_value = DType::fp32;  // kind DType: tl.float16, or torch.float16 when torch_dtype
  bool torch_dtype = false;
  std::string repr;           // Python's repr of the default
  bool representable = true;  // false: no C++ form (see above)

  ArgValue to_arg() const;  // views string_value: valid while this object lives
};

}  // namespace triton_jit

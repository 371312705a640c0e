#pragma once

#include <string>
#include <string_view>

#include "triton_jit/dtype.h"

namespace triton_jit::detail {

// Python's repr() of a float: the shortest string that reads back to the same double, in
// Python's layout ("1.5", "1e+20", "0.0001", "1e-05", "inf", "nan").
std::string python_float_repr(double value);

// Python's repr() of a str ('abc', "it's", 'a\nb').
std::string python_str_repr(std::string_view value);

// Python's repr() of a dtype: triton.language.float16, or torch.float16 for torch's spelling.
// Empty when Python has no such object (torch has no fp8e4b15).
std::string python_dtype_repr(DType dtype, bool torch);

// Reads a dtype's repr back: "triton.language.float16" (also written "tl.float16") or
// "torch.float16"; false for anything else.
bool parse_python_dtype(std::string_view text, DType* dtype, bool* torch);

}  // namespace triton_jit::detail

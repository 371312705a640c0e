#pragma once

#include <string>
#include <string_view>

namespace triton_jit::detail {

// Python's repr() of a float: the shortest string that reads back to the same double, in
// Python's layout ("1.5", "1e+20", "0.0001", "1e-05", "inf", "nan").
std::string python_float_repr(double value);

// Python's repr() of a str ('abc', "it's", 'a\nb').
std::string python_str_repr(std::string_view value);

}  // namespace triton_jit::detail

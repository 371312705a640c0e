// GridMeta (triton_jit/launch_config.h): a grid function's view of the final arguments, by name.
#include <string>
#include <string_view>

#include "key/arg_identity.h"
#include "triton_jit/errors.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/signature.h"

namespace triton_jit {

const ArgValue& GridMeta::arg(std::string_view name) const {
  const int i = signature_.find(name);
  if (i < 0) {
    throw ArgumentError(
        signature_.function + ": the grid function asked for '" + std::string(name) + "', which is not a parameter",
        signature_.function, std::string(name));
  }
  return args_[i];
}

int64_t GridMeta::operator[](std::string_view name) const {
  const ArgValue& a = arg(name);
  switch (a.kind()) {
    case ArgValue::Kind::Int:
    case ArgValue::Kind::Bool: return a.as_int();
    case ArgValue::Kind::UInt: return static_cast<int64_t>(a.as_uint());
    default:
      throw ArgumentError(signature_.function + ": the grid function asked for the integer value of '" +
                              std::string(name) + "', which is " + detail::identity_repr(a),
                          signature_.function, std::string(name));
  }
}

}  // namespace triton_jit

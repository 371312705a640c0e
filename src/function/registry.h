#pragma once

#include <functional>
#include <string>
#include <utility>

#include "triton_jit/jit_function.h"

namespace triton_jit::detail {

// (canonical path, function name)
using FunctionId = std::pair<std::string, std::string>;

// The registered function, or null.
TritonJitFunction* find_function(const FunctionId& id);
// The function registered under `id`, made with `make` (under the registry's lock) if none is:
// a caller that lost a race gets the winner's. Functions live as long as the process: callers
// keep references, and Python owns parts of them.
TritonJitFunction& register_function(FunctionId id, const std::function<TritonJitFunction*()>& make);
void for_each_function(const std::function<void(const TritonJitFunction&)>& visit);

}  // namespace triton_jit::detail

#pragma once

#include <functional>
#include <string>
#include <string_view>
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
// get() and get_module() once the file is known; `module`: the module it was got by, or empty.
// `path` may be a bridge::module_source for a module a pack alone knows (no file).
TritonJitFunction& get_function(std::string_view path, std::string_view name, const std::string& module);

void for_each_function(const std::function<void(const TritonJitFunction&)>& visit);

}  // namespace triton_jit::detail

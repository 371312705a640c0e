#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "bridge/bridge.h"
#include "triton_jit/errors.h"

// What a compile sends to the bridge and reads back, shared by the in-process compile
// (bridge.cpp) and the worker pool (compile_pool.cpp). Needs the GIL.
namespace triton_jit::bridge {

// Hands the bridge the modules to import before the next kernel import (it skips those done).
void pass_preloads(pybind11::module_& b);

// (type, text) per parameter, as the bridge's `specialization` reads them back into Triton's
// list (literals, and the dtype objects their reprs name).
pybind11::list specialization_items(const Specialization& spec);

// The launch options and `options` as the keyword options of triton.compile.
pybind11::dict options_dict(const Specialization& spec, const CompileOptions* options);

// The bridge's compile result. `spec_text`: the specialization's signature text; `key`: the
// whole kernel key's text.
CompileResult to_compiled(const pybind11::dict& r, const StaticSignature& signature, const std::string& spec_text,
                          const std::string& key);

// (type, message, file, line, traceback), as describe_exception returns it.
CompileError to_compile_error(const pybind11::tuple& d, const StaticSignature& signature, const std::string& spec_text,
                              const std::string& key, const Target& target);

}  // namespace triton_jit::bridge

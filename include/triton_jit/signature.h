#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "triton_jit/arg.h"
#include "triton_jit/decorators.h"
#include "triton_jit/default_value.h"
#include "triton_jit/export.h"

namespace triton_jit {

// What Triton's JITFunction knows of one parameter before any call.
struct ParamInfo {
  std::string name;
  int index = 0;
  bool is_constexpr = false;
  bool is_const = false;  // annotated const: pointers become "*k<dtype>"
  bool do_not_specialize = false;
  bool do_not_specialize_on_alignment = false;
  // Triton's normalized annotation ("i64", "*fp16", "constexpr", "const"), empty if none.
  std::string annotation;
  // The annotation when it names a Triton type (Triton's `annotation_type`), else empty.
  std::string annotation_type;
  std::optional<DefaultValue> default_value;
};

struct TRITON_JIT_API StaticSignature {
  std::string function;  // qualified name, e.g. "add_kernel"
  std::string file;      // canonical path of the .py file
  int first_line = 0;    // line of the `def`
  std::vector<ParamInfo> params;
  // The @triton.heuristics and @triton.autotune wrappers, outermost first; empty for a plain
  // @triton.jit function.
  std::vector<DecoratorLayer> decorators;

  // One parameter a line: "x_ptr", "n: i64  [do_not_specialize]", "BLOCK: constexpr = 1024".
  std::string to_string() const;
  // Index of the parameter with this name, or -1.
  int find(std::string_view name) const;
};

}  // namespace triton_jit

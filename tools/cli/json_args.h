#pragma once

#include <deque>
#include <string>
#include <vector>

#include "triton_jit/arg.h"

namespace triton_jit_cli {

// The arguments of a call, read from the JSON list given to --args:
//   7 -> int, 1.5 / 1e3 -> float, true/false -> bool, null -> None, "s" -> string,
//   {"ptr": "fp16", "addr": 4096} -> device pointer, {"dtype": "fp16"} -> tl.float16,
//   {"torch_dtype": "float16"} -> torch.float16.
// String ArgValues view characters owned by this object: keep it alive while the span is used.
// Throws UsageError with a one-line reason for malformed JSON or an item of no argument form.
class JsonArgs {
 public:
  explicit JsonArgs(const std::string& text);
  JsonArgs(const JsonArgs&) = delete;
  JsonArgs& operator=(const JsonArgs&) = delete;

  triton_jit::ArgSpan span() const noexcept { return {values_.data(), values_.size()}; }
  size_t size() const noexcept { return values_.size(); }

 private:
  std::deque<std::string> strings_;  // a deque: growing it never moves the viewed strings
  std::vector<triton_jit::ArgValue> values_;
};

}  // namespace triton_jit_cli

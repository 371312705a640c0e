#pragma once

#include <deque>
#include <string>
#include <vector>

#include "triton_jit/arg.h"
#include "triton_jit/signature.h"
#include "triton_jit/specialization.h"
#include "triton_jit/tensor_descriptor.h"

namespace triton_jit::detail {

// Arguments a call would pass to land on `spec` (parsed from Triton's signature syntax): aligned
// or unaligned addresses for pointers, integers in the range each integer type implies, the
// constexpr values themselves. Running them through the launch's own key builder gives the key a
// real launch computes, so ahead-of-time work fills the same cache slots launches read.
struct SyntheticArgs {
  std::vector<ArgValue> values;
  std::deque<std::string> strings;           // characters of string constexprs (ArgValue views them)
  std::deque<TensorDescriptor> descriptors;  // tensor descriptors (ArgValue points at them)
};

// Throws ArgumentError when an item has no argument that produces it.
SyntheticArgs synthesize_args(const StaticSignature& signature, const Specialization& spec);

}  // namespace triton_jit::detail

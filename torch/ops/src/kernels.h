#pragma once

#include "triton_jit/torch/tensor_args.h"

namespace triton_jit::ops {

// The @triton.jit function `name` of the operators' kernel file `file` (shipped beside this
// library). Looked up once per call site: keep the reference in a function-local static.
TritonJitFunction& kernel(const char* file, const char* name);

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The dtypes the element-wise and reduction kernels (add, sum) read and write: floating types
// but fp8, bool, and signed and unsigned integers.
bool elementwise_dtype(c10::ScalarType t);

// A dimension checked against the tensor's rank, raising RuntimeError (torch's own check raises
// IndexError) with torch's wording; a 0-dim tensor accepts -1 and 0, as in torch.
void check_dim(const char* op, int64_t dim, int64_t ndim);

}  // namespace triton_jit::ops

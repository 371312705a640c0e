#include "kernels.h"

#include "triton_jit/torch/kernel_files.h"

namespace triton_jit::ops {

TritonJitFunction& kernel(const char* file, const char* name) {
  return TritonJitFunction::get(torch::kernel_file_beside(reinterpret_cast<const void*>(&kernel), file), name);
}

bool elementwise_dtype(c10::ScalarType t) {
  switch (t) {
    case c10::kFloat:
    case c10::kHalf:
    case c10::kBFloat16:
    case c10::kDouble:
    case c10::kBool:
    case c10::kByte:
    case c10::kChar:
    case c10::kShort:
    case c10::kInt:
    case c10::kLong:
    case c10::kUInt16:
    case c10::kUInt32:
    case c10::kUInt64: return true;
    default: return false;
  }
}

void check_dim(const char* op, int64_t dim, int64_t ndim) {
  const int64_t rank = ndim > 0 ? ndim : 1;
  TORCH_CHECK(dim >= -rank && dim < rank, "triton_jit_ops.", op,
              ": dimension out of range (expected to be in range of [", -rank, ", ", rank - 1, "], but got ", dim, ")");
}

}  // namespace triton_jit::ops

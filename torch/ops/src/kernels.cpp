#include "kernels.h"

#include "triton_jit/torch/kernel_files.h"

namespace triton_jit::ops {

TritonJitFunction& kernel(const char* file, const char* name) {
  return TritonJitFunction::get(torch::kernel_file_beside(reinterpret_cast<const void*>(&kernel), file), name);
}

void check_dim(const char* op, int64_t dim, int64_t ndim) {
  const int64_t rank = ndim > 0 ? ndim : 1;
  TORCH_CHECK(dim >= -rank && dim < rank, "triton_jit_ops.", op, ": dimension out of range (expected to be in range of [",
              -rank, ", ", rank - 1, "], but got ", dim, ")");
}

}  // namespace triton_jit::ops

// The operators' schemas. Implementations register per dispatch key in each operator's file.
#include <torch/library.h>

TORCH_LIBRARY(triton_jit_ops, m) {
  m.def("add(Tensor a, Tensor b, *, Scalar alpha=1) -> Tensor");
  m.def("sum(Tensor x, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
  m.def("softmax(Tensor x, int dim) -> Tensor");
  m.def("matmul(Tensor a, Tensor b, bool transpose_a=False, bool transpose_b=False) -> Tensor");
}

#include "triton_jit/torch/tensor_descriptor.h"

#include <c10/util/Exception.h>

#include "triton_jit/torch/tensor_args.h"

namespace triton_jit::torch {

TensorDescriptor from_tensor(const at::Tensor& t, const std::vector<int32_t>& block_shape, Padding padding) {
  TORCH_CHECK(t.defined(), "triton_jit: from_tensor got an undefined tensor");
  TORCH_CHECK(t.is_cuda(), "triton_jit: from_tensor expects a CUDA tensor, got a tensor on ", t.device(),
              "; move it with .cuda() or .to('cuda')");
  const int rank = static_cast<int>(t.dim());
  TORCH_CHECK(rank >= 1 && rank <= TensorDescriptor::kMaxRank, "triton_jit: from_tensor: a tensor of ", rank,
              " dimensions; a tensor descriptor has 1 to 5");
  TORCH_CHECK(static_cast<int>(block_shape.size()) == rank, "triton_jit: from_tensor: a block shape of ",
              block_shape.size(), " dimensions for a tensor of ", rank);
  return TensorDescriptor::make(TypedPtr{t.data_ptr(), dtype_of(t.scalar_type())}, rank, t.sizes().data(),
                                t.strides().data(), block_shape.data(), padding);
}

}  // namespace triton_jit::torch

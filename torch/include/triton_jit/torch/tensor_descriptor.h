#pragma once

// Host tensor descriptors over tensors: the counterpart of Triton's
// TensorDescriptor.from_tensor(t, block_shape, padding).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "triton_jit/tensor_descriptor.h"

namespace triton_jit::torch {

// A descriptor of `t` (a CUDA tensor of 1 to 5 dimensions) with its shape and strides, moved in
// `block_shape` tiles. Throws c10::Error (RuntimeError in Python) for an undefined or non-CUDA
// tensor and triton_jit::ArgumentError for what Triton's TensorDescriptor rejects (unaligned
// data or strides, a non-contiguous innermost dimension, block dimensions that are not powers of
// two). The descriptor refers to the tensor's memory: keep the tensor alive while it is used.
TensorDescriptor from_tensor(const at::Tensor& t, const std::vector<int32_t>& block_shape,
                             Padding padding = Padding::Zero);

}  // namespace triton_jit::torch

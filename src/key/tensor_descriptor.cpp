#include "triton_jit/tensor_descriptor.h"

#include <algorithm>
#include <string>

#include "key/spec_key.h"
#include "triton_jit/errors.h"

namespace triton_jit {
namespace detail {
namespace {

bool is_floating(DType t) {
  switch (t) {
    case DType::fp16:
    case DType::bf16:
    case DType::fp32:
    case DType::fp64:
    case DType::fp8e4nv:
    case DType::fp8e5:
    case DType::fp8e4b15:
    case DType::fp8e4b8:
    case DType::fp8e5b16: return true;
    default: return false;
  }
}

}  // namespace

std::string descriptor_problem(const TensorDescriptor& d) {
  if (d.rank < 1 || d.rank > TensorDescriptor::kMaxRank) {
    return "has rank " + std::to_string(d.rank) + "; a tensor descriptor has 1 to 5 dimensions";
  }
  if (reinterpret_cast<uintptr_t>(d.base.ptr) % 16 != 0) {
    return "has a base pointer that is not 16-byte aligned; TMA needs 16-byte aligned tensors";
  }
  const int64_t elem = dtype_size(d.base.dtype);
  int64_t numel = 1;
  for (int i = 0; i < d.rank; ++i) {
    const std::string dim = "dimension " + std::to_string(i);
    if (d.shape[i] <= 0) return "has shape " + std::to_string(d.shape[i]) + " in " + dim + "; shapes must be positive";
    const int32_t b = d.block_shape[i];
    if (b <= 0 || (b & (b - 1)) != 0) {
      return "has block shape " + std::to_string(b) + " in " + dim + "; block dimensions must be powers of 2";
    }
    numel *= b;
    if (i + 1 < d.rank && (d.strides[i] * elem) % 16 != 0) {
      return "has stride " + std::to_string(d.strides[i]) + " (elements of " + std::to_string(elem) + " bytes) in " +
             dim + "; strides other than the innermost must be multiples of 16 bytes";
    }
  }
  if (numel > (int64_t{1} << 20)) {
    return "has a block of " + std::to_string(numel) + " elements; Triton allows at most 1048576";
  }
  if (d.strides[d.rank - 1] != 1) {
    return "has innermost stride " + std::to_string(d.strides[d.rank - 1]) + "; the last dimension must be contiguous";
  }
  if (d.padding == Padding::Nan && !is_floating(d.base.dtype)) {
    return "asks for NaN padding of " + std::string(dtype_name(d.base.dtype)) +
           " elements; NaN padding needs a floating-point type";
  }
  return {};
}

}  // namespace detail

TensorDescriptor TensorDescriptor::make(TypedPtr base, std::initializer_list<int64_t> shape,
                                        std::initializer_list<int64_t> strides,
                                        std::initializer_list<int32_t> block_shape, Padding padding) {
  if (strides.size() != shape.size() || block_shape.size() != shape.size()) {
    throw ArgumentError("TensorDescriptor: shape, strides and block_shape have " + std::to_string(shape.size()) + ", " +
                            std::to_string(strides.size()) + " and " + std::to_string(block_shape.size()) +
                            " entries; they must have one per dimension",
                        "", "");
  }
  return make(base, static_cast<int>(shape.size()), shape.begin(), strides.begin(), block_shape.begin(), padding);
}

TensorDescriptor TensorDescriptor::make(TypedPtr base, int rank, const int64_t* shape, const int64_t* strides,
                                        const int32_t* block_shape, Padding padding) {
  if (rank < 1 || rank > kMaxRank) {
    throw ArgumentError(
        "TensorDescriptor: rank " + std::to_string(rank) + "; a tensor descriptor has 1 to 5 dimensions", "", "");
  }
  TensorDescriptor d;
  d.base = base;
  d.padding = padding;
  d.rank = rank;
  std::copy(shape, shape + rank, d.shape);
  std::copy(strides, strides + rank, d.strides);
  std::copy(block_shape, block_shape + rank, d.block_shape);
  if (std::string why = detail::descriptor_problem(d); !why.empty()) {
    throw ArgumentError("TensorDescriptor " + why, "", "");
  }
  return d;
}

}  // namespace triton_jit

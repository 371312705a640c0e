#pragma once

#include <cstdint>
#include <initializer_list>

#include "triton_jit/arg.h"
#include "triton_jit/dtype.h"
#include "triton_jit/export.h"

namespace triton_jit {

// What a tensor descriptor's loads read outside the tensor: zeros, or NaN (floating types only).
enum class Padding : uint8_t { Zero, Nan };

// A host-side tensor descriptor, the C++ form of Triton's
// triton.tools.tensor_descriptor.TensorDescriptor(base, shape, strides, block_shape, padding):
// passed where a kernel parameter takes a descriptor (`desc.load([...])`). On Hopper the launch
// encodes it into a CUtensorMap for the TMA engine, as Triton's launcher does; the descriptor must
// outlive the call only (like any argument).
struct TensorDescriptor {
  static constexpr int kMaxRank = 5;

  TypedPtr base;  // device pointer (16-byte aligned) and element type
  int rank = 0;
  int64_t shape[kMaxRank] = {};        // elements per dimension, outermost first
  int64_t strides[kMaxRank] = {};      // in elements; the innermost must be 1
  int32_t block_shape[kMaxRank] = {};  // the tile a load or store moves: powers of two
  Padding padding = Padding::Zero;

  // Checks what Triton's TensorDescriptor checks (rank 1..5, equal lengths, 16-byte aligned base
  // and strides, contiguous innermost dimension, positive shape, block shape of powers of two,
  // NaN padding for floating types only); throws ArgumentError saying what is wrong.
  static TRITON_JIT_API TensorDescriptor make(TypedPtr base, std::initializer_list<int64_t> shape,
                                              std::initializer_list<int64_t> strides,
                                              std::initializer_list<int32_t> block_shape,
                                              Padding padding = Padding::Zero);
  // The same from arrays of `rank` entries each.
  static TRITON_JIT_API TensorDescriptor make(TypedPtr base, int rank, const int64_t* shape, const int64_t* strides,
                                              const int32_t* block_shape, Padding padding = Padding::Zero);
};

template <>
struct ArgConverter<TensorDescriptor> {
  static ArgValue convert(const TensorDescriptor& d) { return ArgValue::tensor_descriptor(&d, d.base.dtype); }
};

}  // namespace triton_jit

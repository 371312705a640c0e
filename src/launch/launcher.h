#pragma once

#include <cuda.h>

#include <cstring>

#include "cuda/device.h"
#include "key/spec_key.h"
#include "launch/table.h"
#include "triton_jit/launch_config.h"

namespace triton_jit::detail {

// Kernel parameters on the stack: one 8-byte slot each (the driver reads each at its own size),
// room for the scratch pointers the launcher appends.
struct PackedParams {
  alignas(8) uint64_t storage[kMaxParams + 2];
  void* pointers[kMaxParams + 2];
  int count = 0;
};

uint16_t to_half_bits(double value);
uint16_t to_bf16_bits(double value);

inline double numeric(const ArgValue& a) {
  switch (a.kind()) {
    case ArgValue::Kind::Float: return a.as_float();
    case ArgValue::Kind::UInt: return static_cast<double>(a.as_uint());
    case ArgValue::Kind::Bool: return a.as_bool() ? 1.0 : 0.0;
    default: return static_cast<double>(a.as_int());
  }
}

// Writes one runtime argument in the kernel's type; false for None given to a scalar.
inline bool pack_value(const ParamCode& code, const ArgValue& a, uint64_t* slot) {
  if (code.kind() == TypeKind::TensorDesc) {
    *slot = a.address();  // the descriptor itself: the launcher expands it for the kernel
    return true;
  }
  if (code.kind() == TypeKind::Pointer) {
    *slot = a.kind() == ArgValue::Kind::Pointer ? a.address() : 0;  // None is a null pointer
    return true;
  }
  if (a.kind() == ArgValue::Kind::None) return false;
  switch (code.dtype()) {
    case DType::fp32: {
      const float f = static_cast<float>(numeric(a));
      std::memcpy(slot, &f, sizeof f);
      return true;
    }
    case DType::fp64: {
      const double v = numeric(a);
      std::memcpy(slot, &v, sizeof v);
      return true;
    }
    case DType::fp16: {
      const uint16_t h = to_half_bits(numeric(a));
      std::memcpy(slot, &h, sizeof h);
      return true;
    }
    case DType::bf16: {
      const uint16_t h = to_bf16_bits(numeric(a));
      std::memcpy(slot, &h, sizeof h);
      return true;
    }
    default:
      // Integers: the low bytes of the two's-complement value (little-endian), as the C casts of
      // Triton's launcher produce; a float given to an integer parameter truncates.
      *slot = a.kind() == ArgValue::Kind::Float ? static_cast<uint64_t>(static_cast<int64_t>(a.as_float())) : a.bits();
      return true;
  }
}

// Launches with tensor-descriptor arguments (launch/descriptors.cpp): expands each descriptor in
// `packed` into the parameters the kernel takes, then launch_expanded. Cold.
[[gnu::noinline]] void launch_with_descriptors(const KernelEntry& entry, CUfunction function,
                                               const LaunchConfig& config, const PackedParams& packed,
                                               const cuda::DeviceInfo& device, const char* function_name);

// The launch of parameters already in the kernel's layout; `storage` has room for two scratch
// pointers after the `n` parameters.
void launch_expanded(const KernelEntry& entry, CUfunction function, const LaunchConfig& config, uint64_t* storage,
                     void** params, int n, const cuda::DeviceInfo& device, const char* function_name);

// Appends the scratch pointers the kernel expects and launches. Allocates nothing unless the
// kernel needs scratch memory, which comes from the scratch allocator.
void launch_kernel(const KernelEntry& entry, CUfunction function, const LaunchConfig& config, PackedParams& params,
                   const cuda::DeviceInfo& device, const char* function_name);

}  // namespace triton_jit::detail

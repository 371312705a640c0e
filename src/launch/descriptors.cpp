// Host tensor descriptors at launch, as Triton's NVIDIA launcher passes them (make_tensordesc_arg
// in triton/backends/nvidia/driver.py): lowered to TMA, a descriptor becomes a CUtensorMap
// (encoded here with cuTensorMapEncodeTiled) followed by its shape (i32) and strides (i64);
// otherwise its base pointer, shape and strides (i64), the flags this Triton passes (NaN padding,
// f32-to-tf32 rounding: LaunchMetadata::tensordesc_scalars), and shape (i32) and strides (i64)
// again.
#include <cstring>
#include <string>

#include "cuda/driver_api.h"
#include "launch/launcher.h"
#include "triton_jit/errors.h"
#include "triton_jit/tensor_descriptor.h"

namespace triton_jit::detail {
namespace {

constexpr int kMaxExpansion = 4 * TensorDescriptor::kMaxRank + 3;  // the larger of the two layouts

// The inputs of one cuTensorMapEncodeTiled call; equal inputs encode equal maps.
struct EncodeInputs {
  uint64_t base = 0;
  uint64_t shape[TensorDescriptor::kMaxRank] = {};    // innermost first, as the driver takes them
  uint64_t strides[TensorDescriptor::kMaxRank] = {};  // bytes, innermost stride left out
  uint32_t box[TensorDescriptor::kMaxRank] = {};
  int32_t rank = 0;
  int32_t elem_type = 0;  // the host's CUtensorMapDataType
  int32_t swizzle = 0;
  int32_t fill = 0;
};

// Encoded maps of this thread, most recent last: a descriptor launched again (the common case:
// built once, launched many times) is not encoded again. No lock, no allocation.
struct EncodeCache {
  static constexpr int kSize = 16;
  EncodeInputs inputs[kSize];
  CUtensorMap maps[kSize];
  int count = 0;
  int next = 0;
};

// Triton's device and host TMA element-type enums differ for 8, 9 and 10 (TMA_DTYPE_DEVICE_TO_HOST).
int host_elem_type(int device_type) {
  switch (device_type) {
    case 8: return 10;
    case 9: return 8;
    case 10: return 9;
    default: return device_type;
  }
}

// Triton 3.4 has no padding option: its launcher passes no flag and encodes zero fill.
bool supports_nan_padding(const LaunchMetadata& launch) {
  for (const std::string& flag : launch.tensordesc_scalars) {
    if (flag == "padding") return true;
  }
  return false;
}

[[noreturn]] void fail_no_nan_padding(const char* function_name, const DescriptorSlot& slot) {
  throw ArgumentError(std::string(function_name) + ": parameter '" + slot.parameter +
                          "': the tensor descriptor asks for NaN padding, which the Triton that compiled this "
                          "kernel does not have (Triton 3.5 and newer do); use Padding::Zero",
                      function_name, slot.parameter);
}

[[noreturn]] void fail_encode(const char* function_name, const DescriptorSlot& slot, const EncodeInputs& in,
                              CUresult r) {
  std::string dims, box;
  for (int i = in.rank - 1; i >= 0; --i) {
    dims += std::to_string(in.shape[i]) + (i ? ", " : "");
    box += std::to_string(in.box[i]) + (i ? ", " : "");
  }
  throw ArgumentError(std::string(function_name) + ": parameter '" + slot.parameter +
                          "': the driver rejected the tensor descriptor (shape [" + dims + "], block [" + box +
                          "], TMA element type " + std::to_string(in.elem_type) + ", swizzle " +
                          std::to_string(in.swizzle) + "): cuTensorMapEncodeTiled returned " + cuda::error_name(r) +
                          " (" + cuda::error_string(r) + ")",
                      function_name, slot.parameter);
}

void encode(const TensorDescriptor& d, const DescriptorMeta& meta, const char* function_name,
            const DescriptorSlot& slot, CUtensorMap* out) {
  if (static_cast<int>(meta.block_size.size()) != d.rank) {
    throw ArgumentError(std::string(function_name) + ": parameter '" + slot.parameter +
                            "': a tensor descriptor of rank " + std::to_string(d.rank) +
                            " for a kernel compiled for rank " + std::to_string(meta.block_size.size()),
                        function_name, slot.parameter);
  }
  EncodeInputs in;
  const int rank = d.rank;
  in.rank = rank;
  in.base = reinterpret_cast<uintptr_t>(d.base.ptr);
  in.elem_type = host_elem_type(meta.elem_type);
  in.swizzle = meta.swizzle;
  in.fill = d.padding == Padding::Nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                      : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  for (int i = 0; i < rank; ++i) {
    int64_t extent = d.shape[i];
    if (meta.fp4_padded && i == rank - 1) extent *= 2;
    in.shape[rank - 1 - i] = static_cast<uint64_t>(extent);
    in.box[rank - 1 - i] = static_cast<uint32_t>(meta.block_size[i]);
  }
  for (int i = 0; i + 1 < rank; ++i) in.strides[rank - 2 - i] = static_cast<uint64_t>(meta.elem_size * d.strides[i]);

  thread_local EncodeCache cache;
  for (int i = 0; i < cache.count; ++i) {
    if (std::memcmp(&cache.inputs[i], &in, sizeof in) == 0) {
      std::memcpy(out, &cache.maps[i], sizeof *out);
      return;
    }
  }
  const uint32_t element_strides[TensorDescriptor::kMaxRank] = {1, 1, 1, 1, 1};
  const CUresult r = cuda::driver().TensorMapEncodeTiled(
      out, static_cast<CUtensorMapDataType>(in.elem_type), static_cast<cuuint32_t>(rank),
      reinterpret_cast<void*>(static_cast<uintptr_t>(in.base)), in.shape, in.strides, in.box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, static_cast<CUtensorMapSwizzle>(in.swizzle), CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
      static_cast<CUtensorMapFloatOOBfill>(in.fill));
  if (r != CUDA_SUCCESS) fail_encode(function_name, slot, in, r);
  cache.inputs[cache.next] = in;
  std::memcpy(&cache.maps[cache.next], out, sizeof *out);
  cache.next = (cache.next + 1) % EncodeCache::kSize;
  if (cache.count < EncodeCache::kSize) ++cache.count;
}

}  // namespace

void launch_with_descriptors(const KernelEntry& entry, CUfunction function, const LaunchConfig& config,
                             const PackedParams& packed, const cuda::DeviceInfo& device, const char* function_name) {
  constexpr int kCapacity = kMaxParams * kMaxExpansion + 2;
  alignas(64) CUtensorMap maps[kMaxParams];
  uint64_t storage[kCapacity];
  void* params[kCapacity];
  const std::vector<DescriptorMeta>& metas = entry.launch().tensordesc_meta;
  const std::vector<DescriptorSlot>& slots = entry.descriptors();
  int n = 0;
  size_t next_desc = 0;
  auto push = [&](uint64_t value) {
    storage[n] = value;
    params[n] = &storage[n];
    ++n;
  };
  for (int i = 0; i < packed.count; ++i) {
    if (next_desc == slots.size() || slots[next_desc].packed_index != i) {
      push(packed.storage[i]);
      continue;
    }
    const DescriptorSlot& slot = slots[next_desc];
    const auto& d = *reinterpret_cast<const TensorDescriptor*>(static_cast<uintptr_t>(packed.storage[i]));
    if (d.padding == Padding::Nan && !supports_nan_padding(entry.launch())) fail_no_nan_padding(function_name, slot);
    if (!metas.empty()) {
      const DescriptorMeta& meta = metas.at(next_desc);
      encode(d, meta, function_name, slot, &maps[next_desc]);
      params[n++] = &maps[next_desc];
      for (int k = 0; k < d.rank; ++k) {
        const int64_t extent = meta.fp4_padded && k == d.rank - 1 ? 2 * d.shape[k] : d.shape[k];
        push(static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(extent))));
      }
      for (int k = 0; k < d.rank; ++k) push(static_cast<uint64_t>(d.strides[k]));
    } else {
      push(reinterpret_cast<uintptr_t>(d.base.ptr));
      for (int k = 0; k < d.rank; ++k) push(static_cast<uint64_t>(d.shape[k]));
      for (int k = 0; k < d.rank; ++k) push(static_cast<uint64_t>(d.strides[k]));
      // The flags this Triton's launcher passes (tensordesc_scalars): round_f32_to_tf32 is never
      // asked for from C++, so it is false.
      for (const std::string& flag : entry.launch().tensordesc_scalars)
        push(flag == "padding" && d.padding == Padding::Nan);
      for (int k = 0; k < d.rank; ++k)
        push(static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(d.shape[k]))));
      for (int k = 0; k < d.rank; ++k) push(static_cast<uint64_t>(d.strides[k]));
    }
    ++next_desc;
  }
  launch_expanded(entry, function, config, storage, params, n, device, function_name);
}

}  // namespace triton_jit::detail

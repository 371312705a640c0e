#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "triton_jit/kernel_info.h"

namespace triton_jit::detail {

// How the compiler lowered one tensor-descriptor parameter to the TMA engine (Triton's
// `tensordesc_meta` entry): what the launcher needs to encode the CUtensorMap.
struct DescriptorMeta {
  int swizzle = 0;    // CUtensorMapSwizzle
  int elem_size = 0;  // bytes
  int elem_type = 0;  // the device's TMA element type (the host enum differs: see the launcher)
  std::vector<int> block_size;
  bool fp4_padded = false;
  bool operator==(const DescriptorMeta& o) const {
    return swizzle == o.swizzle && elem_size == o.elem_size && elem_type == o.elem_type && block_size == o.block_size &&
           fp4_padded == o.fp4_padded;
  }
};

// What only a launch needs of a compiled kernel.
struct LaunchMetadata {
  int cluster_dims[3] = {1, 1, 1};
  int64_t global_scratch_size = 0;  // bytes per program
  int64_t global_scratch_align = 1;
  int64_t profile_scratch_size = 0;
  int64_t profile_scratch_align = 1;
  bool launch_pdl = false;
  bool launch_cooperative_grid = false;
  // Trailing kernel parameters the launcher appends after the user's arguments, in order
  // ("global_scratch", "profile_scratch"); the set depends on the Triton version.
  std::vector<std::string> scratch_params;
  std::string metadata_json;  // every field of Triton's metadata, as JSON
  // One entry per tensor-descriptor parameter when the compiler lowered them to TMA (Hopper);
  // empty when descriptors are passed as base pointer, shape and strides.
  std::vector<DescriptorMeta> tensordesc_meta;
  // The flags Triton's launcher passes after a descriptor's base, shape and strides when the
  // descriptor is not lowered to TMA, in order: none (3.4), "padding" (3.5), "round_f32_to_tf32"
  // too (3.7 and newer). Read from the installed Triton by the bridge.
  std::vector<std::string> tensordesc_scalars;
};

// The fields of a compiled kernel, written once. The bridge's result dict (by name), the index
// and pack record format (in this order: docs/FORMATS.md) and KernelInfo::to_json are all
// generated from this list. X(part, field, kind): part Info is KernelInfo, Launch is
// LaunchMetadata; kind names how the field is encoded.
#define TRITON_JIT_KERNEL_FIELDS(X)              \
  X(Info, name, String)                          \
  X(Info, target, Target)                        \
  X(Info, cubin, Bytes)                          \
  X(Info, num_warps, Int)                        \
  X(Info, num_ctas, Int)                         \
  X(Info, shared, Int)                           \
  X(Launch, cluster_dims, Int3)                  \
  X(Launch, global_scratch_size, Int64)          \
  X(Launch, global_scratch_align, Int64)         \
  X(Launch, profile_scratch_size, Int64)         \
  X(Launch, profile_scratch_align, Int64)        \
  X(Launch, launch_pdl, Bool)                    \
  X(Launch, launch_cooperative_grid, Bool)       \
  X(Launch, scratch_params, StringList)          \
  X(Info, hash, String)                          \
  X(Info, triton_version, String)                \
  X(Launch, metadata_json, Json)                 \
  X(Launch, tensordesc_meta, DescriptorMetaList) \
  X(Launch, tensordesc_scalars, StringList)

// A kernel with all its fields, as the runtime passes it between the bridge, the store and the
// launcher. `info` is what users see; `launch` what only the launcher reads.
struct CompiledKernel {
  KernelInfo info;
  LaunchMetadata launch;

  // The public form, carrying the launch metadata for to_json().
  KernelInfo public_info() const;
};

// The part of a kernel a field-list entry names: TRITON_JIT_KERNEL_PART(kernel, Info).
namespace fields {
using Info = KernelInfo;
using Launch = LaunchMetadata;
}  // namespace fields
inline KernelInfo& part(CompiledKernel& k, const fields::Info*) { return k.info; }
inline LaunchMetadata& part(CompiledKernel& k, const fields::Launch*) { return k.launch; }
inline const KernelInfo& part(const CompiledKernel& k, const fields::Info*) { return k.info; }
inline const LaunchMetadata& part(const CompiledKernel& k, const fields::Launch*) { return k.launch; }
#define TRITON_JIT_KERNEL_PART(kernel, P) \
  ::triton_jit::detail::part(kernel, static_cast<const ::triton_jit::detail::fields::P*>(nullptr))

struct KernelInfoAccess {
  static const LaunchMetadata* launch(const KernelInfo& info) { return info.launch_.get(); }
  static void set_launch(KernelInfo& info, const LaunchMetadata& launch) {
    info.launch_ = std::make_shared<const LaunchMetadata>(launch);
  }
};

}  // namespace triton_jit::detail

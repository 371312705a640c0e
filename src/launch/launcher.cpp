#include "launch/launcher.h"

#include <cmath>
#include <cstring>
#include <string>

#include "cuda/driver_api.h"
#include "launch/scratch_allocator.h"
#include "triton_jit/errors.h"
#include "triton_jit/settings.h"

namespace triton_jit::detail {

// As Triton's launcher packs an fp16 scalar (PyFloat_Pack2): rounded once, to nearest even, from
// the double.
uint16_t to_half_bits(double value) {
  uint64_t x;
  std::memcpy(&x, &value, sizeof x);
  const uint16_t sign = static_cast<uint16_t>((x >> 48) & 0x8000u);
  const int exp = static_cast<int>((x >> 52) & 0x7ffu);
  uint64_t mant = x & ((uint64_t{1} << 52) - 1);
  if (exp == 0x7ff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  const int e = exp - 1023 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
  int shift = 42;
  uint64_t base = 0;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= uint64_t{1} << 52;
    shift = 43 - e;
  } else {
    base = static_cast<uint64_t>(e) << 10;
  }
  uint64_t half = base | (mant >> shift);
  const uint64_t rem = mant & ((uint64_t{1} << shift) - 1);
  const uint64_t mid = uint64_t{1} << (shift - 1);
  if (rem > mid || (rem == mid && (half & 1u))) ++half;  // a carry moves into the exponent (up to inf)
  return static_cast<uint16_t>(sign | half);
}

// As Triton's launcher packs a bf16 scalar: the float's upper 16 bits, truncated.
uint16_t to_bf16_bits(double value) {
  const float f = static_cast<float>(value);
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  return static_cast<uint16_t>(x >> 16);
}

namespace {

[[noreturn, gnu::cold, gnu::noinline]] void throw_grid(const char* fn, const LaunchConfig& c, int num_ctas,
                                                       const cuda::DeviceInfo& d) {
  throw LaunchConfigError(std::string(fn) + ": grid (" + std::to_string(c.grid.x) + ", " + std::to_string(c.grid.y) +
                          ", " + std::to_string(c.grid.z) + ") with num_ctas=" + std::to_string(num_ctas) +
                          " is outside the limits of device " + std::to_string(d.ordinal) +
                          " (x <= " + std::to_string(d.max_grid[0]) + " blocks, y <= " + std::to_string(d.max_grid[1]) +
                          ", z <= " + std::to_string(d.max_grid[2]) + ", none negative)");
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_launch(CUresult r, const char* fn, const KernelEntry& e,
                                                         const LaunchConfig& c) {
  std::string context = std::string("launching ") + fn + " (kernel " + e.info().name + ", grid " +
                        std::to_string(c.grid.x) + "x" + std::to_string(c.grid.y) + "x" + std::to_string(c.grid.z) +
                        ", " + std::to_string(e.info().num_warps) + " warps, " + std::to_string(e.info().shared) +
                        " bytes of shared memory)";
  cuda::throw_cuda_error(r, "cuLaunchKernel", context.c_str());
}

struct ScratchBuffer {
  void* ptr = nullptr;
  size_t bytes = 0;
};

}  // namespace

namespace {

// The launch itself, once the kernel's parameters are in `storage`/`params` (`n` of them, with
// room for the scratch pointers after them). Inlined into both callers.
[[gnu::always_inline]] inline void launch_params(const KernelEntry& entry, CUfunction function,
                                                 const LaunchConfig& config, uint64_t* storage, void** params, int n,
                                                 const cuda::DeviceInfo& device, const char* function_name) {
  const KernelInfo& info = entry.info();
  const LaunchMetadata& launch = entry.launch();
  const int64_t gx = config.grid.x, gy = config.grid.y, gz = config.grid.z;
  if (gx < 0 || gy < 0 || gz < 0 || gx * info.num_ctas > device.max_grid[0] || gy > device.max_grid[1] ||
      gz > device.max_grid[2]) {
    throw_grid(function_name, config, info.num_ctas, device);
  }
  if (gx == 0 || gy == 0 || gz == 0) return;  // an empty grid launches nothing, as in Triton

  ScratchBuffer scratch[2];
  const int num_scratch = static_cast<int>(launch.scratch_params.size());
  if (launch.global_scratch_size > 0 || launch.profile_scratch_size > 0) {
    const int64_t programs = gx * gy * gz * info.num_ctas;
    const int64_t sizes[2] = {launch.global_scratch_size, launch.profile_scratch_size};
    const int64_t aligns[2] = {launch.global_scratch_align, launch.profile_scratch_align};
    ScratchAllocator& allocator = scratch_allocator();
    for (int s = 0; s < num_scratch && s < 2; ++s) {
      if (sizes[s] <= 0) continue;
      scratch[s].bytes = static_cast<size_t>(programs * sizes[s]);
      scratch[s].ptr = allocator.allocate(scratch[s].bytes, static_cast<size_t>(aligns[s]), config.stream);
    }
  }
  for (int s = 0; s < num_scratch; ++s) {
    storage[n] = reinterpret_cast<uint64_t>(s < 2 ? scratch[s].ptr : nullptr);
    params[n] = &storage[n];
    ++n;
  }

  const cuda::DriverApi& d = cuda::driver();
  const unsigned block_x = static_cast<unsigned>(info.num_warps * info.target.warp_size);
  CUresult r;
  if (!entry.needs_launch_ex()) {
    r = d.LaunchKernel(function, static_cast<unsigned>(gx), static_cast<unsigned>(gy), static_cast<unsigned>(gz),
                       block_x, 1, 1, static_cast<unsigned>(info.shared), config.stream, params, nullptr);
  } else {
    CUlaunchAttribute attrs[4];
    unsigned num_attrs = 0;
    if (launch.launch_pdl) {
      attrs[num_attrs].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attrs[num_attrs].value.programmaticStreamSerializationAllowed = 1;
      ++num_attrs;
    }
    if (launch.launch_cooperative_grid) {
      attrs[num_attrs].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      attrs[num_attrs].value.cooperative = 1;
      ++num_attrs;
    }
    if (info.num_ctas != 1) {
      attrs[num_attrs].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attrs[num_attrs].value.clusterDim.x = static_cast<unsigned>(info.num_ctas);
      attrs[num_attrs].value.clusterDim.y = 1;
      attrs[num_attrs].value.clusterDim.z = 1;
      ++num_attrs;
      attrs[num_attrs].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
      attrs[num_attrs].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
      ++num_attrs;
    }
    CUlaunchConfig lc{};
    lc.gridDimX = static_cast<unsigned>(gx * info.num_ctas);
    lc.gridDimY = static_cast<unsigned>(gy);
    lc.gridDimZ = static_cast<unsigned>(gz);
    lc.blockDimX = block_x;
    lc.blockDimY = 1;
    lc.blockDimZ = 1;
    lc.sharedMemBytes = static_cast<unsigned>(info.shared);
    lc.hStream = config.stream;
    lc.attrs = attrs;
    lc.numAttrs = num_attrs;
    r = d.LaunchKernelEx(&lc, function, params, nullptr);
  }

  for (int s = 0; s < 2; ++s) {
    if (scratch[s].ptr != nullptr) scratch_allocator().deallocate(scratch[s].ptr, scratch[s].bytes, config.stream);
  }
  if (r != CUDA_SUCCESS) throw_launch(r, function_name, entry, config);
}

}  // namespace

void launch_expanded(const KernelEntry& entry, CUfunction function, const LaunchConfig& config, uint64_t* storage,
                     void** params, int n, const cuda::DeviceInfo& device, const char* function_name) {
  launch_params(entry, function, config, storage, params, n, device, function_name);
}

void launch_kernel(const KernelEntry& entry, CUfunction function, const LaunchConfig& config, PackedParams& packed,
                   const cuda::DeviceInfo& device, const char* function_name) {
  if (entry.has_descriptors()) [[unlikely]] {
    launch_with_descriptors(entry, function, config, packed, device, function_name);
    return;
  }
  launch_params(entry, function, config, packed.storage, packed.pointers, packed.count, device, function_name);
}

}  // namespace triton_jit::detail

#include "launcher.h"

#include <cmath>
#include <cstring>
#include <string>

#include "cuda/driver_api.h"
#include "runtime_state.h"
#include "triton_jit/errors.h"
#include "triton_jit/runtime.h"

namespace triton_jit::detail {
namespace {

uint16_t to_half_bits(double value) {
  float f = static_cast<float>(value);
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(half);
}

uint16_t to_bf16_bits(double value) {
  float f = static_cast<float>(value);
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);  // round to nearest even
  return static_cast<uint16_t>(x >> 16);
}

double numeric(const ArgValue& a) {
  switch (a.kind()) {
    case ArgValue::Kind::Float: return a.as_float();
    case ArgValue::Kind::UInt: return static_cast<double>(a.as_uint());
    case ArgValue::Kind::Bool: return a.as_bool() ? 1.0 : 0.0;
    default: return static_cast<double>(a.as_int());
  }
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_none_scalar(const char* fn, int index, const ParamCode& code) {
  throw ArgumentError(std::string(fn) + ": parameter #" + std::to_string(index) + " has type " + type_string(code) +
                          " and cannot be None; pass a value",
                      fn, "#" + std::to_string(index));
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_grid(const char* fn, const LaunchConfig& c, int num_ctas,
                                                      const cuda::DeviceInfo& d) {
  throw LaunchConfigError(std::string(fn) + ": grid (" + std::to_string(c.grid.x) + ", " + std::to_string(c.grid.y) +
                          ", " + std::to_string(c.grid.z) + ") with num_ctas=" + std::to_string(num_ctas) +
                          " is outside the limits of device " + std::to_string(d.ordinal) + " (x <= " +
                          std::to_string(d.max_grid[0]) + " blocks, y <= " + std::to_string(d.max_grid[1]) +
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

void launch_kernel(const KernelEntry& entry, CUfunction function, const LaunchConfig& config, const SpecKey& key,
                   const ArgValue* args, const cuda::DeviceInfo& device, const char* function_name) {
  const KernelInfo& info = entry.info();
  const int64_t gx = config.grid.x, gy = config.grid.y, gz = config.grid.z;
  if (gx < 0 || gy < 0 || gz < 0 || gx * info.num_ctas > device.max_grid[0] || gy > device.max_grid[1] ||
      gz > device.max_grid[2]) {
    throw_grid(function_name, config, info.num_ctas, device);
  }
  if (gx == 0 || gy == 0 || gz == 0) return;  // an empty grid launches nothing, as in Triton

  // One 8-byte slot per kernel parameter; the driver reads each at its own size.
  alignas(8) uint64_t storage[kMaxParams + 2];
  void* params[kMaxParams + 2];
  int n = 0;
  for (uint32_t i = 0; i < key.num_params; ++i) {
    const ParamCode code = key.param(static_cast<int>(i));
    if (code.kind() == TypeKind::Constexpr) continue;
    const ArgValue& a = args[i];
    void* slot = &storage[n];
    if (code.kind() == TypeKind::Pointer) {
      storage[n] = a.kind() == ArgValue::Kind::Pointer ? a.address() : 0;  // None is a null pointer
    } else {
      if (a.kind() == ArgValue::Kind::None) throw_none_scalar(function_name, static_cast<int>(i), code);
      switch (code.dtype()) {
        case DType::fp32: {
          const float f = static_cast<float>(numeric(a));
          std::memcpy(slot, &f, sizeof f);
          break;
        }
        case DType::fp64: {
          const double v = numeric(a);
          std::memcpy(slot, &v, sizeof v);
          break;
        }
        case DType::fp16: {
          const uint16_t h = to_half_bits(numeric(a));
          std::memcpy(slot, &h, sizeof h);
          break;
        }
        case DType::bf16: {
          const uint16_t h = to_bf16_bits(numeric(a));
          std::memcpy(slot, &h, sizeof h);
          break;
        }
        default:
          // Integers: the low bytes of the two's-complement value, little-endian, as the
          // launcher's C casts produce; floats given to integer parameters truncate.
          storage[n] = a.kind() == ArgValue::Kind::Float ? static_cast<uint64_t>(static_cast<int64_t>(a.as_float()))
                                                         : a.bits();
          break;
      }
    }
    params[n] = slot;
    ++n;
  }

  ScratchBuffer scratch[2];
  const int num_scratch = static_cast<int>(info.scratch_params.size());
  if (info.global_scratch_size > 0 || info.profile_scratch_size > 0) {
    const int64_t programs = gx * gy * gz * info.num_ctas;
    const int64_t sizes[2] = {info.global_scratch_size, info.profile_scratch_size};
    const int64_t aligns[2] = {info.global_scratch_align, info.profile_scratch_align};
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
    if (info.launch_pdl) {
      attrs[num_attrs].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attrs[num_attrs].value.programmaticStreamSerializationAllowed = 1;
      ++num_attrs;
    }
    if (info.launch_cooperative_grid) {
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

}  // namespace triton_jit::detail

#pragma once

// at::Tensor, std::optional<at::Tensor>, c10::Scalar and c10::ScalarType as kernel arguments, and
// a launch on the tensors' device and torch's current stream there.
//
// The success path is inline and builds no message: a tensor argument costs a few loads and
// compares (defined, CUDA, a table lookup of its dtype) and TensorImpl::mutable_data(), which is
// what at::Tensor::data_ptr() calls. Anything unusual (an undefined or non-CUDA tensor, a dtype
// Triton has no pointer for, tensors on two devices, no tensor at all) goes to a cold,
// out-of-line path that runs the checks in their original order and throws their original
// messages.
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/macros/Macros.h>
#if defined(USE_ROCM)
// A ROCm build of torch (torch.version.hip set; torch/CMakeLists.txt defines USE_ROCM for it): its
// 'cuda' device is an AMD GPU, and what c10/cuda holds on CUDA is HIP's under hipify's names, with
// the stream and guard that report DeviceType::CUDA as its tensors do ("masquerading as CUDA"):
// c10::hip::HIPGuardMasqueradingAsCUDA and c10::hip::getCurrentHIPStreamMasqueradingAsCUDA, which
// both of PyTorch's hipify schemes provide under these names (v2 moved the function into
// c10/hip/HIPStream.h, which the stream header includes). The device count comes from the HIP
// runtime itself: c10's device_count() changed namespace between the two.
#include <ATen/hip/impl/HIPGuardImplMasqueradingAsCUDA.h>
#include <ATen/hip/impl/HIPStreamMasqueradingAsCUDA.h>
#include <hip/hip_runtime_api.h>
#else
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#endif

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include "triton_jit/triton_jit.h"

// The fast paths are inlined into every call site: an out-of-line inline function would be called
// through the PLT from a shared library (-fPIC), and a compiler may decline to inline them.
#if defined(__GNUC__) || defined(__clang__)
#define TRITON_JIT_TORCH_INLINE inline __attribute__((always_inline))
#define TRITON_JIT_TORCH_HIDDEN __attribute__((visibility("hidden")))
#else
#define TRITON_JIT_TORCH_INLINE inline
#define TRITON_JIT_TORCH_HIDDEN
#endif

namespace triton_jit::torch {

// torch's current stream on device `index` as the runtime takes it: a cudaStream_t, or on a ROCm
// build the current hipStream_t (the HIP runtime's stream, given where a CUstream goes).
inline CUstream_st* current_stream(c10::DeviceIndex index) {
#if defined(USE_ROCM)
  return reinterpret_cast<CUstream_st*>(c10::hip::getCurrentHIPStreamMasqueradingAsCUDA(index).stream());
#else
  return c10::cuda::getCurrentCUDAStream(index).stream();
#endif
}

namespace detail {

#if defined(USE_ROCM)
using DeviceGuard = c10::hip::HIPGuardMasqueradingAsCUDA;
inline c10::DeviceIndex visible_devices() {
  // Read once, as c10 caches its count: the visible devices do not change in a process.
  static const c10::DeviceIndex count = [] {
    int n = 0;
    return static_cast<c10::DeviceIndex>(hipGetDeviceCount(&n) == hipSuccess ? n : 0);
  }();
  return count;
}
inline bool current_device_is(c10::DeviceIndex index) {
  int current = -1;
  return hipGetDevice(&current) == hipSuccess && current == index;
}
#else
using DeviceGuard = c10::cuda::CUDAGuard;
inline c10::DeviceIndex visible_devices() { return c10::cuda::device_count(); }
inline bool current_device_is(c10::DeviceIndex index) {
  int current = -1;
  return cudaGetDevice(&current) == cudaSuccess && current == index;
}
#endif

// Triton's element type of a torch dtype as a DType value, or -1 when Triton has no pointer type
// for it (complex, quantized, ...). The one list of the mapping.
constexpr int triton_dtype_code(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float: return static_cast<int>(DType::fp32);
    case c10::ScalarType::Half: return static_cast<int>(DType::fp16);
    case c10::ScalarType::BFloat16: return static_cast<int>(DType::bf16);
    case c10::ScalarType::Double: return static_cast<int>(DType::fp64);
    case c10::ScalarType::Float8_e4m3fn: return static_cast<int>(DType::fp8e4nv);
    case c10::ScalarType::Float8_e5m2: return static_cast<int>(DType::fp8e5);
    case c10::ScalarType::Float8_e4m3fnuz: return static_cast<int>(DType::fp8e4b8);
    case c10::ScalarType::Float8_e5m2fnuz: return static_cast<int>(DType::fp8e5b16);
    case c10::ScalarType::Bool: return static_cast<int>(DType::u1);
    case c10::ScalarType::Char: return static_cast<int>(DType::i8);
    case c10::ScalarType::Short: return static_cast<int>(DType::i16);
    case c10::ScalarType::Int: return static_cast<int>(DType::i32);
    case c10::ScalarType::Long: return static_cast<int>(DType::i64);
    case c10::ScalarType::Byte: return static_cast<int>(DType::u8);
    case c10::ScalarType::UInt16: return static_cast<int>(DType::u16);
    case c10::ScalarType::UInt32: return static_cast<int>(DType::u32);
    case c10::ScalarType::UInt64: return static_cast<int>(DType::u64);
    default: return -1;
  }
}

inline constexpr size_t kNumScalarTypes = static_cast<size_t>(c10::ScalarType::NumOptions);

template <size_t... I>
constexpr std::array<int8_t, sizeof...(I)> make_dtype_table(std::index_sequence<I...>) {
  return {{static_cast<int8_t>(triton_dtype_code(static_cast<c10::ScalarType>(I)))...}};
}

// triton_dtype_code for every ScalarType, indexed by its value: a lookup instead of a switch.
// Hidden: each library has its own copy, read PC-relative, and none exports it.
TRITON_JIT_TORCH_HIDDEN inline constexpr std::array<int8_t, kNumScalarTypes> kDTypeCodes = make_dtype_table(
    std::make_index_sequence<kNumScalarTypes>{});

// The cold paths, with the messages. unsupported_dtype throws; tensor_arg_checked runs the checks
// of a tensor argument in their original order (defined, CUDA, data pointer, dtype) and throws
// the first that fails, or converts a tensor that passes them all.
[[noreturn, gnu::cold, gnu::noinline]] void unsupported_dtype(c10::ScalarType type);
[[gnu::cold, gnu::noinline]] ArgValue tensor_arg_checked(const at::Tensor& t);

}  // namespace detail

// Triton's element type of a torch dtype; throws (c10::Error, a RuntimeError in Python) for
// dtypes Triton has no pointer type for (complex, quantized).
TRITON_JIT_TORCH_INLINE DType dtype_of(c10::ScalarType type) {
  const auto index = static_cast<size_t>(type);
  if (C10_LIKELY(index < detail::kNumScalarTypes)) {
    const int code = detail::kDTypeCodes[index];
    if (C10_LIKELY(code >= 0)) return static_cast<DType>(code);
  }
  detail::unsupported_dtype(type);
}

// The pointer argument of a tensor: defined and on a CUDA device, or a clear error. The pointer
// is data_ptr()'s: the mutable data pointer (a copy-on-write storage is materialized first, as a
// kernel may write through it), the storage offset applied, null for an empty tensor.
TRITON_JIT_TORCH_INLINE ArgValue tensor_arg(const at::Tensor& t) {
  if (C10_LIKELY(t.defined())) {
    c10::TensorImpl* const impl = t.unsafeGetTensorImpl();
    const caffe2::TypeMeta meta = impl->dtype();
    if (C10_LIKELY(impl->is_cuda() && meta.isScalarType())) {
      const int code = detail::kDTypeCodes[static_cast<size_t>(meta.toScalarType())];
      if (C10_LIKELY(code >= 0)) {
        // The extent lets an autotuner zero or restore the tensor while tuning; a view with gaps
        // has none (writing its span would touch elements it does not hold).
        const uint64_t bytes = impl->is_contiguous() ? static_cast<uint64_t>(impl->numel()) * meta.itemsize() : 0;
#if defined(USE_ROCM) || defined(__HIP_PLATFORM_AMD__)
        // A HIP kernel's key has Triton's 'S' flag: the size of the whole storage decides it, as
        // Triton's HIP backend reads untyped_storage().size() (torch on CUDA never pays for it).
        if (impl->has_storage()) {
          return ArgValue::pointer_in_storage(impl->mutable_data(), static_cast<DType>(code), bytes,
                                              static_cast<uint64_t>(impl->unsafe_storage().nbytes()));
        }
#endif
        return ArgValue::pointer(impl->mutable_data(), static_cast<DType>(code), bytes);
      }
    }
  }
  return detail::tensor_arg_checked(t);
}

// The argument of a scalar, with its type kept: integers follow the integer rules, floating
// values become fp32 arguments as Python floats do, booleans are bools.
ArgValue scalar_arg(const c10::Scalar& s);

// The argument of a torch dtype, for a tl.constexpr parameter: torch's spelling (torch.float16),
// as Python passes `x.dtype`. Throws (c10::Error) for dtypes Triton has no type for (complex).
ArgValue dtype_arg(c10::ScalarType type);

namespace detail {

void check_device(const at::Tensor& t, c10::Device device, const char* function);

inline void collect_device(std::optional<c10::Device>& device, const char* function, const at::Tensor& t) {
  if (!t.defined()) return;
  if (!device) {
    TORCH_CHECK(t.is_cuda(), function, ": expected CUDA tensors, got a tensor on ", t.device(),
                "; move it with .cuda() or .to('cuda')");
    device = t.device();
  } else {
    check_device(t, *device, function);
  }
}
inline void collect_device(std::optional<c10::Device>& device, const char* function,
                           const std::optional<at::Tensor>& t) {
  if (t) collect_device(device, function, *t);
}
template <typename T>
void collect_device(std::optional<c10::Device>&, const char*, const T&) {}

// The checked launch: every tensor's device checked with its message, a device guard, torch's
// current stream of that device. launch() takes this path whenever its fast checks have a doubt,
// and for tensors on another device than the current one.
template <typename... Args>
[[gnu::cold, gnu::noinline]] void launch_checked(const TritonJitFunction& fn, LaunchConfig config,
                                                 const Args&... args) {
  std::optional<c10::Device> device;
  (collect_device(device, fn.name().c_str(), args), ...);
  TORCH_CHECK(device.has_value(), fn.name(), ": no tensor argument tells on which device to launch");
  const DeviceGuard guard(*device);
  config.stream = current_stream(device->index());
  fn(config, args...);
}

// What launch() needs to know before converting: the one CUDA device of the tensor arguments.
// No message is built here; any doubt (an undefined or non-CUDA tensor, a second device) sends
// the call to launch_checked, which reports it.
struct DeviceScan {
  c10::DeviceIndex index = -1;
  bool doubt = false;

  TRITON_JIT_TORCH_INLINE void add(const at::Tensor& t) {
    const c10::TensorImpl* const impl = t.unsafeGetTensorImpl();
    if (C10_UNLIKELY(!t.defined() || !impl->is_cuda())) {
      doubt = true;
      return;
    }
    const c10::DeviceIndex i = impl->get_device();
    doubt |= index >= 0 && i != index;
    index = i;
  }
  TRITON_JIT_TORCH_INLINE void add(const std::optional<at::Tensor>& t) {
    if (t && t->defined()) add(*t);
  }
  template <typename T>
  void add(const T&) {}
};

// True when `index` is the device a launch from this thread goes to without switching: the
// current device (cudaGetDevice; hipGetDevice on ROCm), which with a single visible device is
// that device whatever the thread has done (c10 caches the count). kOneDeviceShortcut = false
// always asks cudaGetDevice (what a host with several visible GPUs does; the benchmark times it
// on one).
template <bool kOneDeviceShortcut = true>
TRITON_JIT_TORCH_INLINE bool is_current_device(c10::DeviceIndex index) {
  if (kOneDeviceShortcut && visible_devices() == 1) return index == 0;
  return current_device_is(index);
}

// launch()'s body: scan, then on the current device the stream and the call, else the checked path.
template <bool kOneDeviceShortcut, typename... Args>
TRITON_JIT_TORCH_INLINE void launch_on_tensors_device(const TritonJitFunction& fn, LaunchConfig config,
                                                      const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    launch_checked(fn, config);  // no tensor tells the device: the checked path says so
  } else {
    DeviceScan scan;
    (scan.add(args), ...);
    if (C10_UNLIKELY(scan.doubt || scan.index < 0 || !is_current_device<kOneDeviceShortcut>(scan.index))) {
      launch_checked(fn, config, args...);
      return;
    }
    config.stream = current_stream(scan.index);
    // fn(config, args...) without its out-of-line template call (scan.index >= 0: there are args).
    const ArgValue values[] = {ArgConverter<std::decay_t<const Args>>::convert(args)...};
    fn.launch(config, ArgSpan{values, sizeof...(Args)});
  }
}

}  // namespace detail

// Launches `fn` on the device of its tensor arguments (all must be on that one CUDA device), on
// torch's current stream of that device; no synchronisation is added. When that device is the
// current one (the common case) nothing is switched; otherwise the launch runs under a device
// guard, which restores the current device afterwards.
template <typename... Args>
void launch(const TritonJitFunction& fn, LaunchConfig config, const Args&... args) {
  detail::launch_on_tensors_device<true>(fn, config, args...);
}

}  // namespace triton_jit::torch

namespace triton_jit {

template <>
struct ArgConverter<at::Tensor> {
  TRITON_JIT_TORCH_INLINE static ArgValue convert(const at::Tensor& t) { return torch::tensor_arg(t); }
};

template <>
struct ArgConverter<std::optional<at::Tensor>> {
  TRITON_JIT_TORCH_INLINE static ArgValue convert(const std::optional<at::Tensor>& t) {
    return t && t->defined() ? torch::tensor_arg(*t) : ArgValue::none();
  }
};

template <>
struct ArgConverter<c10::Scalar> {
  static ArgValue convert(const c10::Scalar& s) { return torch::scalar_arg(s); }
};

// at::kHalf, x.scalar_type(): torch.float16 (std::optional<c10::ScalarType> may be None).
template <>
struct ArgConverter<c10::ScalarType> {
  static ArgValue convert(c10::ScalarType type) { return torch::dtype_arg(type); }
};

}  // namespace triton_jit

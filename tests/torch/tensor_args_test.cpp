// The libtorch argument layer (torch/include/triton_jit/torch/tensor_args.h): at::Tensor,
// std::optional<at::Tensor> and c10::Scalar as kernel arguments, and triton_jit::torch::launch.
//
// Without a GPU the success path is still exercised: a "CUDA tensor" here can be a TensorImpl
// whose storage holds a made-up address on a CUDA device (nothing dereferences it; specialize()
// needs no GPU). The error paths (undefined tensor, CPU tensor, tensors on two devices, an
// unsupported dtype, no tensor at all) are checked word for word against the messages the layer
// has always given. Tests that launch for real skip without a CUDA GPU.
#include <ATen/ATen.h>
#include <c10/core/Storage.h>
#include <c10/core/TensorImpl.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "triton_jit/torch/tensor_args.h"

namespace {

using triton_jit::ArgValue;
using triton_jit::DType;
using triton_jit::LaunchConfig;
using triton_jit::TritonJitFunction;

constexpr uintptr_t kFakeAddress = 0x7f0000100000;  // 16-byte aligned, never dereferenced

// A tensor on cuda:`index` whose storage is `address` (no allocation, no GPU): what the layer
// reads of a CUDA tensor (device, dtype, data pointer, storage offset) without a device.
at::Tensor fake_cuda(std::vector<int64_t> sizes, at::ScalarType type, c10::DeviceIndex index = 0,
                     uintptr_t address = kFakeAddress, int64_t storage_offset = 0) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  const int64_t bytes = (numel + storage_offset) * static_cast<int64_t>(c10::elementSize(type));
  c10::Storage storage(c10::Storage::use_byte_size_t(), bytes,
                       c10::DataPtr(reinterpret_cast<void*>(address), c10::Device(c10::kCUDA, index)),
                       /*allocator=*/nullptr, /*resizable=*/false);
  at::Tensor t = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CUDA), c10::scalarTypeToTypeMeta(type));
  t.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  t.unsafeGetTensorImpl()->set_storage_offset(storage_offset);
  return t;
}

// The message of the c10::Error `fn` throws (without backtrace); "" when it throws nothing.
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  } catch (const std::exception& e) {
    return std::string("not a c10::Error: ") + e.what();
  }
  return "";
}

bool has_cuda() { return torch::cuda::is_available(); }

#define REQUIRE_CUDA()                                                 \
  do {                                                                 \
    if (!has_cuda()) GTEST_SKIP() << "no CUDA GPU: the test launches"; \
  } while (0)

TritonJitFunction& add_kernel() {
  static TritonJitFunction& fn = TritonJitFunction::get(std::string(TRITON_JIT_TEST_KERNELS_DIR) + "/add.py",
                                                        "add_kernel");
  return fn;
}

LaunchConfig one_program() {
  LaunchConfig config;
  config.grid = triton_jit::Grid(1);
  return config;
}

// --- the success path, without a GPU ------------------------------------------------------------

TEST(TorchTensorArgs, EveryDtypeBecomesItsTritonPointer) {
  const std::vector<std::pair<at::ScalarType, DType>> table = {
      {at::kFloat, DType::fp32},
      {at::kHalf, DType::fp16},
      {at::kBFloat16, DType::bf16},
      {at::kDouble, DType::fp64},
      {at::ScalarType::Float8_e4m3fn, DType::fp8e4nv},
      {at::ScalarType::Float8_e5m2, DType::fp8e5},
      {at::ScalarType::Float8_e4m3fnuz, DType::fp8e4b8},
      {at::ScalarType::Float8_e5m2fnuz, DType::fp8e5b16},
      {at::kBool, DType::u1},
      {at::kChar, DType::i8},
      {at::kShort, DType::i16},
      {at::kInt, DType::i32},
      {at::kLong, DType::i64},
      {at::kByte, DType::u8},
      {at::ScalarType::UInt16, DType::u16},
      {at::ScalarType::UInt32, DType::u32},
      {at::ScalarType::UInt64, DType::u64},
  };
  for (const auto& [type, dtype] : table) {
    const at::Tensor t = fake_cuda({4, 8}, type);
    const ArgValue a = triton_jit::to_arg(t);
    EXPECT_EQ(a.kind(), ArgValue::Kind::Pointer) << type;
    EXPECT_EQ(a.address(), kFakeAddress) << type;
    EXPECT_EQ(a.dtype(), dtype) << type;
    EXPECT_EQ(triton_jit::torch::dtype_of(type), dtype) << type;
    EXPECT_EQ(triton_jit::torch::tensor_arg(t).address(), kFakeAddress) << type;
  }
}

TEST(TorchTensorArgs, PointerIsTheTensorsDataPointer) {
  // A view starting 3 elements into its storage: the pointer is data_ptr(), offset included.
  const at::Tensor view = fake_cuda({5}, at::kHalf, 0, kFakeAddress, 3);
  EXPECT_EQ(triton_jit::to_arg(view).address(), reinterpret_cast<uintptr_t>(view.data_ptr()));
  EXPECT_EQ(triton_jit::to_arg(view).address(), kFakeAddress + 3 * 2);
  // An empty tensor's data_ptr() is null, whatever its storage: so is its argument.
  const at::Tensor empty = fake_cuda({0, 4}, at::kFloat);
  EXPECT_EQ(empty.data_ptr(), nullptr);
  EXPECT_EQ(triton_jit::to_arg(empty).kind(), ArgValue::Kind::Pointer);
  EXPECT_EQ(triton_jit::to_arg(empty).address(), 0u);
  // Another device's tensor converts the same way (the device matters to launch() only).
  EXPECT_EQ(triton_jit::to_arg(fake_cuda({2}, at::kInt, 3)).dtype(), DType::i32);
}

TEST(TorchTensorArgs, OptionalTensorAndScalar) {
  EXPECT_EQ(triton_jit::to_arg(std::optional<at::Tensor>()).kind(), ArgValue::Kind::None);
  EXPECT_EQ(triton_jit::to_arg(std::optional<at::Tensor>(at::Tensor())).kind(), ArgValue::Kind::None);
  const ArgValue a = triton_jit::to_arg(std::optional<at::Tensor>(fake_cuda({3}, at::kBFloat16)));
  EXPECT_EQ(a.kind(), ArgValue::Kind::Pointer);
  EXPECT_EQ(a.dtype(), DType::bf16);
  EXPECT_EQ(triton_jit::to_arg(c10::Scalar(true)).kind(), ArgValue::Kind::Bool);
  EXPECT_EQ(triton_jit::to_arg(c10::Scalar(int64_t{7})).as_int(), 7);
  EXPECT_EQ(triton_jit::to_arg(c10::Scalar(2.5)).as_float(), 2.5);
}

TEST(TorchTensorArgs, SpecializeSeesDtypeAndAlignment) {
  const LaunchConfig config = one_program();
  const at::Tensor x = fake_cuda({4096}, at::kFloat), y = fake_cuda({4096}, at::kFloat, 0, kFakeAddress + 0x10000);
  const at::Tensor out = fake_cuda({4096}, at::kFloat, 0, kFakeAddress + 0x20000);
  EXPECT_EQ(add_kernel().specialize(config, x, y, out, int32_t{4096}, 1024).signature(),
            "*fp32:16,*fp32:16,*fp32:16,i32:16,1024");
  // One element into its storage: 4-byte aligned only.
  const at::Tensor shifted = fake_cuda({4095}, at::kFloat, 0, kFakeAddress, 1);
  const at::Tensor h = fake_cuda({4096}, at::kHalf, 0, kFakeAddress + 0x30000);
  EXPECT_EQ(add_kernel().specialize(config, shifted, h, out, int32_t{4095}, 1024).signature(),
            "*fp32,*fp16:16,*fp32:16,i32,1024");
}

// --- errors of a conversion: the same messages as ever ---------------------------------------

const char* const kUndefined = "triton_jit: an undefined tensor was passed as a kernel argument";

TEST(TorchTensorArgsErrors, UndefinedTensor) {
  EXPECT_EQ(error_of([] { triton_jit::to_arg(at::Tensor()); }), kUndefined);
  EXPECT_EQ(error_of([] { triton_jit::torch::tensor_arg(at::Tensor()); }), kUndefined);
  const at::Tensor x = fake_cuda({16}, at::kFloat);
  EXPECT_EQ(error_of([&] { add_kernel().specialize(one_program(), x, at::Tensor(), x, 16, 1024); }), kUndefined);
}

TEST(TorchTensorArgsErrors, CpuAndMetaTensors) {
  const at::Tensor cpu = at::ones({16});
  const std::string want =
      "triton_jit: expected a CUDA tensor, got a tensor on cpu; move it with .cuda() or .to('cuda')";
  EXPECT_EQ(error_of([&] { triton_jit::to_arg(cpu); }), want);
  EXPECT_EQ(error_of([&] { triton_jit::to_arg(std::optional<at::Tensor>(cpu)); }), want);
  const at::Tensor x = fake_cuda({16}, at::kFloat);
  EXPECT_EQ(error_of([&] { add_kernel().specialize(one_program(), x, x, cpu, 16, 1024); }), want);
  EXPECT_EQ(error_of([] { triton_jit::to_arg(at::empty({4}, at::TensorOptions().device(at::kMeta))); }),
            "triton_jit: expected a CUDA tensor, got a tensor on meta; move it with .cuda() or .to('cuda')");
}

TEST(TorchTensorArgsErrors, UnsupportedDtype) {
  EXPECT_EQ(error_of([] { triton_jit::to_arg(fake_cuda({4}, at::kComplexFloat)); }),
            "triton_jit: tensors of dtype ComplexFloat cannot be passed to a Triton kernel");
  EXPECT_EQ(error_of([] { triton_jit::to_arg(fake_cuda({4}, at::kQInt8)); }),
            "triton_jit: tensors of dtype QInt8 cannot be passed to a Triton kernel");
  EXPECT_EQ(error_of([] { triton_jit::torch::dtype_of(at::kComplexDouble); }),
            "triton_jit: tensors of dtype ComplexDouble cannot be passed to a Triton kernel");
  // A CPU tensor of such a dtype: the device is what is wrong first.
  EXPECT_EQ(error_of([] { triton_jit::to_arg(at::zeros({4}, at::kComplexFloat)); }),
            "triton_jit: expected a CUDA tensor, got a tensor on cpu; move it with .cuda() or .to('cuda')");
}

TEST(TorchTensorArgsErrors, ComplexScalar) {
  EXPECT_EQ(error_of([] { triton_jit::to_arg(c10::Scalar(c10::complex<double>(1, 2))); }),
            "triton_jit: complex scalars cannot be passed to a Triton kernel");
}

// --- errors of triton_jit::torch::launch, found before anything is launched --------------------

TEST(TorchLaunchErrors, CpuTensor) {
  const at::Tensor cpu = at::ones({16});
  const std::string want =
      "add_kernel: expected CUDA tensors, got a tensor on cpu; move it with .cuda() or .to('cuda')";
  EXPECT_EQ(error_of([&] { triton_jit::torch::launch(add_kernel(), one_program(), cpu, cpu, cpu, 16, 1024); }), want);
  // Undefined tensors (and empty optionals) do not tell the device: the CPU tensor after them does.
  EXPECT_EQ(error_of([&] {
              triton_jit::torch::launch(add_kernel(), one_program(), at::Tensor(), std::optional<at::Tensor>(), cpu, 16,
                                        1024);
            }),
            want);
}

TEST(TorchLaunchErrors, TensorsOnTwoDevices) {
  const at::Tensor d0 = fake_cuda({16}, at::kFloat, 0), d1 = fake_cuda({16}, at::kFloat, 1);
  EXPECT_EQ(error_of([&] { triton_jit::torch::launch(add_kernel(), one_program(), d0, d0, d1, 16, 1024); }),
            "add_kernel: expected all tensors on cuda:0, but one is on cuda:1; move them to one device");
  EXPECT_EQ(error_of([&] {
              triton_jit::torch::launch(add_kernel(), one_program(), d1, std::optional<at::Tensor>(d0), d1, 16, 1024);
            }),
            "add_kernel: expected all tensors on cuda:1, but one is on cuda:0; move them to one device");
  // A CPU tensor after a CUDA one is a device mismatch.
  EXPECT_EQ(error_of([&] { triton_jit::torch::launch(add_kernel(), one_program(), d0, at::ones({16}), d0, 16, 1024); }),
            "add_kernel: expected all tensors on cuda:0, but one is on cpu; move them to one device");
  // The device mismatch is reported before a bad dtype or an undefined tensor.
  const at::Tensor c0 = fake_cuda({16}, at::kComplexFloat, 0);
  EXPECT_EQ(error_of([&] { triton_jit::torch::launch(add_kernel(), one_program(), c0, at::Tensor(), d1, 16, 1024); }),
            "add_kernel: expected all tensors on cuda:0, but one is on cuda:1; move them to one device");
}

TEST(TorchLaunchErrors, NoTensorArgument) {
  const std::string want = "add_kernel: no tensor argument tells on which device to launch";
  EXPECT_EQ(error_of([] { triton_jit::torch::launch(add_kernel(), one_program()); }), want);
  EXPECT_EQ(error_of([] {
              triton_jit::torch::launch(add_kernel(), one_program(), triton_jit::TypedPtr{nullptr, DType::fp32},
                                        nullptr, nullptr, 16, 1024);
            }),
            want);
  EXPECT_EQ(error_of([] {
              triton_jit::torch::launch(add_kernel(), one_program(), at::Tensor(), std::optional<at::Tensor>(),
                                        at::Tensor(), 16, 1024);
            }),
            want);
}

// --- with a GPU ---------------------------------------------------------------------------------

at::TensorOptions cuda(at::ScalarType t = at::kFloat, int index = 0) {
  return at::TensorOptions().device(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(index))).dtype(t);
}

TEST(TorchLaunchCuda, LaunchComputesOnTheCurrentStream) {
  REQUIRE_CUDA();
  const int64_t n = 3000;
  const at::Tensor x = at::randn({n}, cuda()), y = at::randn({n}, cuda());
  at::Tensor out = at::zeros({n}, cuda());
  LaunchConfig config;
  config.grid = triton_jit::Grid((n + 1023) / 1024);
  triton_jit::torch::launch(add_kernel(), config, x, y, out, n, 1024);
  EXPECT_TRUE(at::equal(out, x + y));
  // fn(config, tensors...) with the stream set by hand: the same kernel, the same result.
  at::Tensor out2 = at::zeros({n}, cuda());
  // torch's current stream as the layer takes it (a hipStream_t on a ROCm build): the current device's.
  config.stream = triton_jit::torch::current_stream(-1);
  EXPECT_EQ(config.stream, c10::cuda::getCurrentCUDAStream().stream());
  add_kernel()(config, x, y, out2, n, 1024);
  EXPECT_TRUE(at::equal(out2, x + y));
}

TEST(TorchLaunchCuda, LaunchFromAThreadWithoutACurrentContext) {
  REQUIRE_CUDA();
  const int64_t n = 1024;
  const at::Tensor x = at::randn({n}, cuda()), y = at::randn({n}, cuda());
  at::Tensor out = at::zeros({n}, cuda());
  std::string error;
  std::thread([&] {
    try {
      triton_jit::torch::launch(add_kernel(), one_program(), x, y, out, n, 1024);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }).join();
  EXPECT_EQ(error, "");
  EXPECT_TRUE(at::equal(out, x + y));
}

TEST(TorchLaunchCuda, ErrorsFoundWhileConverting) {
  REQUIRE_CUDA();
  const at::Tensor x = at::randn({16}, cuda());
  EXPECT_EQ(error_of([&] { triton_jit::torch::launch(add_kernel(), one_program(), x, at::Tensor(), x, 16, 1024); }),
            kUndefined);
  const at::Tensor c = at::zeros({16}, cuda(at::kComplexFloat));
  EXPECT_EQ(error_of([&] { triton_jit::torch::launch(add_kernel(), one_program(), x, c, x, 16, 1024); }),
            "triton_jit: tensors of dtype ComplexFloat cannot be passed to a Triton kernel");
  // Still launching afterwards.
  at::Tensor out = at::zeros({16}, cuda());
  triton_jit::torch::launch(add_kernel(), one_program(), x, x, out, 16, 1024);
  EXPECT_TRUE(at::equal(out, x * 2));
}

TEST(TorchLaunchCuda, TensorsOnAnotherDeviceThanTheCurrentOne) {
  REQUIRE_CUDA();
  if (torch::cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA GPUs";
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  const int64_t n = 2048;
  const at::Tensor x = at::randn({n}, cuda(at::kFloat, 1)), y = at::randn({n}, cuda(at::kFloat, 1));
  at::Tensor out = at::zeros({n}, cuda(at::kFloat, 1));
  LaunchConfig config;
  config.grid = triton_jit::Grid(2);
  triton_jit::torch::launch(add_kernel(), config, x, y, out, n, 1024);
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 0) << "the device guard restores the current device";
  EXPECT_TRUE(at::equal(out, x + y));
  // And on the current device again.
  const at::Tensor x0 = at::randn({n}, cuda(at::kFloat, 0));
  at::Tensor out0 = at::zeros({n}, cuda(at::kFloat, 0));
  triton_jit::torch::launch(add_kernel(), config, x0, x0, out0, n, 1024);
  EXPECT_TRUE(at::equal(out0, x0 * 2));
}

}  // namespace

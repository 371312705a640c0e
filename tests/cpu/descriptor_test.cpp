// Host tensor descriptors without a GPU: the key Triton's own binder computes, validation, the
// signature text (prepare, packs), and what reaches the driver through a fake one: the
// CUtensorMap encode (arguments, per-thread reuse, errors) and the parameters the compiled kernel
// reads, for a kernel lowered to TMA (sm_90) and one that takes base, shape and strides (sm_80).
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bridge/interpreter.h"
#include "fake_driver.h"
#include "support/launch_metadata.h"
#include "test_util.h"
#include "triton_jit/prepare.h"
#include "triton_jit/tensor_descriptor.h"

namespace py = pybind11;
using triton_jit::ArgumentError;
using triton_jit::DType;
using triton_jit::Padding;
using triton_jit::TensorDescriptor;
using triton_jit::TritonJitFunction;
using triton_jit::TypedPtr;

namespace {

TritonJitFunction& copy2d() { return TritonJitFunction::get(test::kernel("descriptors.py"), "copy2d_kernel"); }
TritonJitFunction& rows3d() { return TritonJitFunction::get(test::kernel("descriptors.py"), "rows3d_kernel"); }

TypedPtr at(uintptr_t address, DType dtype) { return TypedPtr{reinterpret_cast<const void*>(address), dtype}; }

// Triton's binder on the same descriptors (tests/support/triton_reference.py).
std::string triton_repr_of(const char* function, const std::vector<py::object>& args) {
  triton_jit::bridge::GilGuard gil;
  py::module_ sys = py::module_::import("sys");
  sys.attr("path").attr("insert")(0, TRITON_JIT_TEST_SUPPORT_DIR);
  py::module_ ref = py::module_::import("triton_reference");
  py::object fn = triton_jit::bridge::bridge().attr("load_function")(test::kernel("descriptors.py"),
                                                                     function)[py::int_(0)];
  py::tuple t(args.size());
  for (size_t i = 0; i < args.size(); ++i) t[i] = args[i];
  py::list calls;
  calls.append(py::make_tuple(t, py::dict()));
  return ref.attr("triton_specialization")(fn, calls)[py::int_(0)].cast<std::string>();
}

py::object py_descriptor(const TensorDescriptor& d) {
  py::module_ ref = py::module_::import("triton_reference");
  py::list shape, strides, block;
  for (int i = 0; i < d.rank; ++i) {
    shape.append(d.shape[i]);
    strides.append(d.strides[i]);
    block.append(d.block_shape[i]);
  }
  return ref.attr("make_descriptor")(reinterpret_cast<uintptr_t>(d.base.ptr),
                                     std::string(triton_jit::dtype_name(d.base.dtype)), shape, strides, block,
                                     d.padding == Padding::Nan ? "nan" : "zero");
}

TEST(Descriptors, KeyMatchesTritonsBinder) {
  triton_jit::triton_version();  // starts the interpreter
  const TensorDescriptor a = TensorDescriptor::make(at(0x10000, DType::fp16), {100, 200}, {208, 1}, {64, 64});
  const TensorDescriptor b = TensorDescriptor::make(at(0x20000, DType::bf16), {33, 40}, {40, 1}, {32, 16},
                                                    Padding::Nan);
  const auto spec = copy2d().specialize(test::config(), a, b, 2.0f, 64, 64);
  EXPECT_EQ(spec.triton_repr(),
            "[('tensordesc<fp16[64, 64]>', None), ('tensordesc<bf16[32, 16]>', None), ('fp32', None), "
            "('constexpr', 64), ('constexpr', 64)]");
  {
    triton_jit::bridge::GilGuard gil;
    py::module_::import("sys").attr("path").attr("insert")(0, TRITON_JIT_TEST_SUPPORT_DIR);
    std::vector<py::object> args{py_descriptor(a), py_descriptor(b), py::float_(2.0), py::int_(64), py::int_(64)};
    EXPECT_EQ(spec.triton_repr(), triton_repr_of("copy2d_kernel", args));
  }
  const TensorDescriptor c = TensorDescriptor::make(at(0x30000, DType::fp32), {10, 8, 16}, {128, 16, 1}, {2, 8, 16});
  const auto spec3 = rows3d().specialize(test::config(), c, reinterpret_cast<float*>(0x40000), 10, 2, 8, 16);
  triton_jit::bridge::GilGuard gil;
  std::vector<py::object> args{
      py_descriptor(c), py::module_::import("triton_reference").attr("make_pointer")(0x40000, "fp32"),
      py::int_(10),     py::int_(2),
      py::int_(8),      py::int_(16)};
  EXPECT_EQ(spec3.triton_repr(), triton_repr_of("rows3d_kernel", args));
  EXPECT_EQ(spec3.signature(), "tensordesc<fp32[2,8,16]>,*fp32:16,i32,2,8,16");
}

TEST(Descriptors, BlockShapeAndDtypeAreKeyedPaddingAndShapeAreNot) {
  const auto key = [](const TensorDescriptor& d) {
    return copy2d().specialize(test::config(), d, d, 1.0f, 64, 64).signature();
  };
  const auto base = TensorDescriptor::make(at(0x10000, DType::fp16), {100, 200}, {208, 1}, {64, 64});
  auto other_shape = TensorDescriptor::make(at(0x20000, DType::fp16), {7, 8}, {8, 1}, {64, 64}, Padding::Nan);
  EXPECT_EQ(key(base), key(other_shape));
  EXPECT_EQ(key(base), "tensordesc<fp16[64,64]>,tensordesc<fp16[64,64]>,fp32,64,64");
  EXPECT_NE(key(base), key(TensorDescriptor::make(at(0x10000, DType::fp16), {100, 200}, {208, 1}, {32, 64})));
  EXPECT_NE(key(base), key(TensorDescriptor::make(at(0x10000, DType::bf16), {100, 200}, {208, 1}, {64, 64})));
}

TEST(Descriptors, InvalidDescriptorsAreRejectedWithTheParameterNamed) {
  const TensorDescriptor good = TensorDescriptor::make(at(0x10000, DType::fp16), {100, 200}, {208, 1}, {64, 64});
  auto expect_error = [&](TensorDescriptor bad, const std::string& what) {
    try {
      copy2d().specialize(test::config(), good, bad, 1.0f, 64, 64);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const ArgumentError& e) {
      EXPECT_EQ(e.parameter(), "out_desc");
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  TensorDescriptor d = good;
  d.base.ptr = reinterpret_cast<const void*>(0x10008);
  expect_error(d, "not 16-byte aligned");
  d = good;
  d.strides[0] = 201;  // 402 bytes
  expect_error(d, "multiples of 16 bytes");
  d = good;
  d.strides[1] = 2;
  expect_error(d, "must be contiguous");
  d = good;
  d.block_shape[1] = 48;
  expect_error(d, "powers of 2");
  d = good;
  d.shape[0] = 0;
  expect_error(d, "must be positive");
  d = good;
  d.base.dtype = DType::i16;
  d.padding = Padding::Nan;
  expect_error(d, "NaN padding");
  d = good;
  d.rank = 6;
  expect_error(d, "1 to 5 dimensions");
  // A descriptor is a runtime value: a constexpr parameter cannot take one.
  try {
    copy2d().specialize(test::config(), good, good, 1.0f, good, 64);
    ADD_FAILURE() << "a descriptor was accepted for a constexpr";
  } catch (const ArgumentError& e) {
    EXPECT_EQ(e.parameter(), "BM");
    EXPECT_NE(std::string(e.what()).find("tensor descriptor"), std::string::npos) << e.what();
  }
  EXPECT_THROW(TensorDescriptor::make(at(0x10000, DType::fp16), {100, 200}, {208}, {64, 64}), ArgumentError);
}

// prepare() with the signature text compiles the kernel a launch with descriptors then finds.
TEST(Descriptors, SignatureTextPreparesTheKernelALaunchUses) {
  triton_jit::KernelRequest r{&copy2d(), "tensordesc<fp16[32, 32]>,tensordesc<fp16[32,32]>,fp32,32,32"};
  triton_jit::PrepareOptions o;
  o.jobs = 1;
  o.progress = triton_jit::Progress::Never;
  o.load = false;
  triton_jit::prepare({r}, o);
  const auto d = TensorDescriptor::make(at(0x10000, DType::fp16), {100, 200}, {208, 1}, {32, 32});
  const triton_jit::Stats before = copy2d().stats();
  copy2d().compile(test::config(), d, d, 1.0f, 32, 32);
  EXPECT_EQ(copy2d().stats().misses, before.misses) << "prepare() filled another key than the call's";
}

class DescriptorLaunch : public testing::Test {
 protected:
  void SetUp() override { fake::install(); }
  void TearDown() override {
    fake::state().cc_major = 9;
    fake::state().cc_minor = 0;
    fake::uninstall();
  }
};

// Lowered to TMA on sm_90: each descriptor is a CUtensorMap (128 bytes), its shape (i32) and its
// strides (i64); the map is encoded as Triton's fill_tma_descriptor encodes it.
TEST_F(DescriptorLaunch, TmaDescriptorsBecomeTensorMapsShapesAndStrides) {
  const auto in = TensorDescriptor::make(at(0x100000, DType::fp16), {100, 200}, {208, 1}, {64, 64});
  const auto out = TensorDescriptor::make(at(0x200000, DType::fp16), {100, 200}, {200, 1}, {64, 64});
  copy2d()(test::config(2), in, out, 0.5f, 64, 64);
  ASSERT_EQ(fake::state().launches.size(), 1u);
  const fake::Launch l = fake::state().launches.back();
  // map, 2 x i32, 2 x i64; map, 2 x i32, 2 x i64; scale; then the scratch pointers.
  const std::vector<size_t> sizes = l.sizes();
  ASSERT_GE(sizes.size(), 11u);
  EXPECT_EQ(std::vector<size_t>(sizes.begin(), sizes.begin() + 11),
            (std::vector<size_t>{128, 4, 4, 8, 8, 128, 4, 4, 8, 8, 4}));
  EXPECT_EQ(l.u64(1), 100u);
  EXPECT_EQ(l.u64(2), 200u);
  EXPECT_EQ(l.u64(3), 208u);
  EXPECT_EQ(l.u64(4), 1u);
  EXPECT_EQ(l.u64(8), 200u);
  ASSERT_EQ(fake::state().encodes.size(), 2u);
  const fake::EncodeCall& e = fake::state().encodes[0];
  EXPECT_EQ(l.u64(0), 0u);  // the fake writes the call's index first, then the base
  EXPECT_EQ(l.as<uint64_t>(0), 0u);
  EXPECT_EQ(e.base, 0x100000u);
  EXPECT_EQ(e.rank, 2u);
  EXPECT_EQ(e.dims, (std::vector<uint64_t>{200, 100}));  // innermost first
  EXPECT_EQ(e.strides, (std::vector<uint64_t>{416}));    // bytes
  EXPECT_EQ(e.box, (std::vector<uint32_t>{64, 64}));
  EXPECT_EQ(e.element_strides, (std::vector<uint32_t>{1, 1}));
  EXPECT_EQ(e.data_type, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  EXPECT_EQ(e.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(e.interleave, CU_TENSOR_MAP_INTERLEAVE_NONE);
  EXPECT_EQ(e.l2_promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(e.fill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT_EQ(fake::state().encodes[1].fill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  uint64_t second_map[2];
  std::memcpy(second_map, l.params[5].data(), sizeof second_map);
  EXPECT_EQ(second_map[0], 1u);
  EXPECT_EQ(second_map[1], 0x200000u);

  // The same descriptors again: this thread's maps are reused, not encoded again.
  copy2d()(test::config(2), in, out, 0.5f, 64, 64);
  EXPECT_EQ(fake::state().encodes.size(), 2u);
  // Another base: a new encode.
  auto moved = in;
  moved.base.ptr = reinterpret_cast<const void*>(0x300000);
  copy2d()(test::config(2), moved, out, 0.5f, 64, 64);
  EXPECT_EQ(fake::state().encodes.size(), 3u);
}

// NaN padding becomes the NaN fill of the map where Triton has the padding option (3.5 and
// newer); with Triton 3.4, which has none, it is an error rather than a silent zero fill.
TEST_F(DescriptorLaunch, NanPaddingIsTheMapsNanFill) {
  // Addresses no other test uses: this thread keeps the maps of descriptors it encoded before, so
  // `out` as the previous test had it would not be encoded again when the binary runs whole.
  const auto in = TensorDescriptor::make(at(0x900000, DType::fp16), {100, 200}, {208, 1}, {64, 64}, Padding::Nan);
  const auto out = TensorDescriptor::make(at(0xa00000, DType::fp16), {100, 200}, {200, 1}, {64, 64});
  const auto& flags =
      triton_jit::test::launch_metadata(copy2d().compile(test::config(2), in, out, 0.5f, 64, 64)).tensordesc_scalars;
  if (std::find(flags.begin(), flags.end(), "padding") == flags.end()) {
    EXPECT_THROW(copy2d()(test::config(2), in, out, 0.5f, 64, 64), ArgumentError);
    return;
  }
  copy2d()(test::config(2), in, out, 0.5f, 64, 64);
  ASSERT_EQ(fake::state().encodes.size(), 2u);
  EXPECT_EQ(fake::state().encodes[0].fill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  EXPECT_EQ(fake::state().encodes[1].fill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

TEST_F(DescriptorLaunch, EncodeFailureNamesTheParameterAndTheDriversReason) {
  const auto in = TensorDescriptor::make(at(0x500000, DType::fp16), {100, 200}, {208, 1}, {64, 64});
  fake::state().encode_result = CUDA_ERROR_INVALID_VALUE;
  try {
    copy2d()(test::config(1), in, in, 1.0f, 64, 64);
    ADD_FAILURE() << "no error";
  } catch (const ArgumentError& e) {
    EXPECT_EQ(e.parameter(), "in_desc");
    EXPECT_NE(std::string(e.what()).find("cuTensorMapEncodeTiled returned"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fake::state().launches.empty());
}

// Not lowered to TMA (sm_80): base pointer, shape and strides (i64), the flags of this Triton (i1),
// shape (i32) and strides (i64), as Triton's launcher passes them.
TEST_F(DescriptorLaunch, WithoutTmaDescriptorsArePassedAsPointerShapeAndStrides) {
  fake::state().cc_major = 8;
  fake::reinstall();
  const auto in = TensorDescriptor::make(at(0x100000, DType::fp32), {10, 8, 16}, {128, 16, 1}, {2, 8, 16});
  rows3d()(test::config(5), in, reinterpret_cast<float*>(0x700000), 10, 2, 8, 16);
  ASSERT_EQ(fake::state().launches.size(), 1u);
  const fake::Launch l = fake::state().launches.back();
  EXPECT_TRUE(fake::state().encodes.empty());
  // The flags between the two copies of shape and strides depend on the Triton version (none in
  // 3.4, padding from 3.5, round_f32_to_tf32 too from 3.7): what the bridge read from Triton.
  const std::vector<std::string>& flags = triton_jit::test::launch_metadata(
                                              rows3d().compile(test::config(5), in, reinterpret_cast<float*>(0x700000),
                                                               10, 2, 8, 16))
                                              .tensordesc_scalars;
  std::vector<size_t> expected_sizes{8, 8, 8, 8, 8, 8, 8};
  std::vector<uint64_t> expected{0x100000, 10, 8, 16, 128, 16, 1};
  for (const std::string& flag : flags) {
    expected_sizes.push_back(1);
    expected.push_back(0);  // zero padding, no tf32 rounding: "padding" and "round_f32_to_tf32" are 0
  }
  for (size_t s : {4, 4, 4, 8, 8, 8, 8}) expected_sizes.push_back(s);
  for (uint64_t v : {10, 8, 16, 128, 16, 1, 0x700000}) expected.push_back(v);
  const std::vector<size_t> sizes = l.sizes();
  ASSERT_GE(sizes.size(), expected_sizes.size());
  EXPECT_EQ(std::vector<size_t>(sizes.begin(), sizes.begin() + expected_sizes.size()), expected_sizes);
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(l.u64(i), expected[i]) << "parameter " << i;
}

}  // namespace

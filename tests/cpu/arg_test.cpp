// to_arg and ArgValue: how each C++ argument type becomes what Python would see (arg.h); the
// plain value types of launch_config.h.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "triton_jit/triton_jit.h"

using triton_jit::ArgValue;
using triton_jit::DType;
using triton_jit::to_arg;
using K = ArgValue::Kind;

namespace {

template <typename T>
DType pointee(uintptr_t a = 0x1000) {
  const ArgValue v = to_arg(reinterpret_cast<T*>(a));
  EXPECT_EQ(v.kind(), K::Pointer);
  EXPECT_EQ(v.address(), a);
  return v.dtype();
}

TEST(ToArg, PointersByElementType) {
  EXPECT_EQ(pointee<float>(), DType::fp32);
  EXPECT_EQ(pointee<const float>(), DType::fp32);
  EXPECT_EQ(pointee<double>(), DType::fp64);
  EXPECT_EQ(pointee<bool>(), DType::u1);
  EXPECT_EQ(pointee<int8_t>(), DType::i8);
  EXPECT_EQ(pointee<const int16_t>(), DType::i16);
  EXPECT_EQ(pointee<int32_t>(), DType::i32);
  EXPECT_EQ(pointee<int64_t>(), DType::i64);
  EXPECT_EQ(pointee<long long>(), DType::i64);
  EXPECT_EQ(pointee<uint8_t>(), DType::u8);
  EXPECT_EQ(pointee<uint16_t>(), DType::u16);
  EXPECT_EQ(pointee<uint32_t>(), DType::u32);
  EXPECT_EQ(pointee<uint64_t>(), DType::u64);
  EXPECT_EQ(pointee<unsigned long long>(), DType::u64);
  const ArgValue t = to_arg(triton_jit::TypedPtr{reinterpret_cast<void*>(uintptr_t{0x2002}), DType::bf16});
  EXPECT_EQ(t.kind(), K::Pointer);
  EXPECT_EQ(t.dtype(), DType::bf16);
  EXPECT_EQ(t.address(), 0x2002u);
  EXPECT_EQ(ArgValue::pointer_address(0xffffffffffff0000ull, DType::fp8e5).address(), 0xffffffffffff0000ull);
}

TEST(ToArg, Integers) {
  EXPECT_EQ(to_arg(int8_t{-1}).kind(), K::Int);
  EXPECT_EQ(to_arg(int8_t{-1}).as_int(), -1);
  EXPECT_EQ(to_arg(int16_t{-300}).as_int(), -300);
  EXPECT_EQ(to_arg(std::numeric_limits<int64_t>::min()).as_int(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(to_arg(uint8_t{255}).kind(), K::Int);
  EXPECT_EQ(to_arg(uint8_t{255}).as_int(), 255);
  EXPECT_EQ(to_arg(uint32_t{4294967295u}).as_int(), 4294967295);
  // Unsigned values are Int while they fit int64: the same value means the same whatever its type.
  EXPECT_EQ(to_arg(uint64_t{9223372036854775807ull}).kind(), K::Int);
  EXPECT_EQ(to_arg(uint64_t{9223372036854775808ull}).kind(), K::UInt);
  EXPECT_EQ(to_arg(std::numeric_limits<uint64_t>::max()).as_uint(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(to_arg(true).kind(), K::Bool);
  EXPECT_TRUE(to_arg(true).as_bool());
  EXPECT_FALSE(to_arg(false).as_bool());
}

TEST(ToArg, FloatsStringsAndNone) {
  EXPECT_EQ(to_arg(0.5f).kind(), K::Float);
  EXPECT_EQ(to_arg(0.1f).as_float(), static_cast<double>(0.1f));
  EXPECT_EQ(to_arg(-0.0).as_float(), 0.0);
  EXPECT_TRUE(std::signbit(to_arg(-0.0).as_float()));
  EXPECT_EQ(to_arg(nullptr).kind(), K::None);
  EXPECT_EQ(to_arg(std::nullopt).kind(), K::None);
  EXPECT_EQ(to_arg(std::optional<int>{}).kind(), K::None);
  EXPECT_EQ(to_arg(std::optional<int>{3}).as_int(), 3);
  EXPECT_EQ(to_arg(std::optional<float*>{reinterpret_cast<float*>(uintptr_t{64})}).dtype(), DType::fp32);
  EXPECT_EQ(to_arg("lit").kind(), K::String);
  EXPECT_EQ(to_arg("lit").as_string(), "lit");
  const std::string s("with\0nul", 8);
  EXPECT_EQ(to_arg(s).as_string().size(), 8u);
  const char* c = "cstr";
  EXPECT_EQ(to_arg(c).as_string(), "cstr");
  EXPECT_EQ(to_arg(std::string_view("view")).as_string(), "view");
  const ArgValue a = ArgValue::integer(7);
  EXPECT_EQ(to_arg(a).as_int(), 7);
  EXPECT_EQ(ArgValue().kind(), K::None);
}

TEST(ToArg, DTypesInBothSpellings) {
  // A DType is Triton's dtype (tl.float16); TorchDType is torch's spelling (torch.float16).
  const ArgValue tl = to_arg(DType::fp16);
  EXPECT_EQ(tl.kind(), K::DType);
  EXPECT_EQ(tl.dtype(), DType::fp16);
  EXPECT_FALSE(tl.is_torch_dtype());
  const ArgValue torch = to_arg(triton_jit::TorchDType{DType::fp16});
  EXPECT_EQ(torch.kind(), K::DType);
  EXPECT_EQ(torch.dtype(), DType::fp16);
  EXPECT_TRUE(torch.is_torch_dtype());
  EXPECT_NE(tl.bits(), torch.bits());                            // the spelling is part of the value, hence of the key
  constexpr ArgValue bf16 = ArgValue::torch_dtype(DType::bf16);  // constexpr, like the other factories
  EXPECT_EQ(bf16.dtype(), DType::bf16);
  EXPECT_TRUE(bf16.is_torch_dtype());
  EXPECT_EQ(to_arg(std::optional<DType>{}).kind(), K::None);
  EXPECT_EQ(to_arg(std::optional<DType>{DType::i64}).dtype(), DType::i64);
  // The kinds that existed before keep their values (they are part of the key's codes).
  EXPECT_EQ(static_cast<int>(K::String), 6);
  EXPECT_GT(static_cast<int>(K::DType), static_cast<int>(K::String));
  static_assert(sizeof(ArgValue) == 16 && std::is_trivially_copyable_v<ArgValue>);
}

TEST(CompileOptions, SortedAndHashedByContent) {
  triton_jit::CompileOptions a{{"maxnreg", 128}, {"enable_fp_fusion", false}};
  triton_jit::CompileOptions b;
  b.set("enable_fp_fusion", false).set("maxnreg", int64_t{128});
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_NE(a.hash(), 0u);
  ASSERT_EQ(a.items().size(), 2u);
  EXPECT_EQ(a.items()[0].first, "enable_fp_fusion");
  EXPECT_TRUE(std::holds_alternative<bool>(a.items()[0].second));
  EXPECT_TRUE(std::holds_alternative<int64_t>(a.items()[1].second));
  b.set("maxnreg", int64_t{64});
  EXPECT_EQ(b.items().size(), 2u);
  EXPECT_NE(a.hash(), b.hash());
  const triton_jit::CompileOptions s{{"name", "text"}, {"ratio", 0.5}};
  EXPECT_TRUE(std::holds_alternative<std::string>(s.items()[0].second));
  EXPECT_TRUE(std::holds_alternative<double>(s.items()[1].second));
  EXPECT_TRUE(triton_jit::CompileOptions().empty());
  EXPECT_EQ(triton_jit::CompileOptions().hash(), 0u);
}

TEST(Grid, IntegerConversions) {
  const triton_jit::Grid g(size_t{3}, 2u, int64_t{5});
  EXPECT_EQ(g.x, 3);
  EXPECT_EQ(g.y, 2);
  EXPECT_EQ(g.z, 5);
  const triton_jit::Grid h(7);
  EXPECT_EQ(h.y, 1);
  EXPECT_EQ(h.z, 1);
  const triton_jit::LaunchConfig c{{4, 2}, 8};
  EXPECT_EQ(c.grid.x, 4);
  EXPECT_EQ(c.num_warps, 8);
  EXPECT_EQ(c.num_stages, triton_jit::kTargetDefaultNumStages);  // the target's: 3 on CUDA, 2 on HIP
  EXPECT_EQ(triton_jit::target_num_stages(c.num_stages, triton_jit::Target::parse("cuda:90")), 3);
  EXPECT_EQ(triton_jit::target_num_stages(0, triton_jit::Target::parse("hip:gfx942")), 0);
  EXPECT_EQ(c.num_ctas, 1);
  EXPECT_EQ(c.stream, nullptr);
}

}  // namespace

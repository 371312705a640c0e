// TritonJitFunction::specialize and Specialization::signature()/triton_repr(): the key a call
// maps to, in Triton's own notations, for hand-checked calls (the parity test covers the rest).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "test_util.h"

using triton_jit::ArgValue;
using triton_jit::DType;
using triton_jit::ParamSpecialization;
using triton_jit::TritonJitFunction;
using triton_jit::TypedPtr;

namespace {

std::string signature_of(TritonJitFunction& fn, const std::vector<ArgValue>& args,
                         const triton_jit::LaunchConfig& c = test::config()) {
  return fn.specialize(c, test::span(args)).signature();
}

TEST(Specialization, SignatureOfAlignedHalfPointers) {
  const TypedPtr p{reinterpret_cast<const void*>(uintptr_t{0x10000}), DType::fp16};
  EXPECT_EQ(signature_of(test::add_kernel(), test::args(p, p, p, 1000, 1024)), "*fp16:16,*fp16:16,*fp16:16,i32,1024");
  EXPECT_EQ(signature_of(test::add_kernel(), test::args(p, p, p, 98432, 1024)),
            "*fp16:16,*fp16:16,*fp16:16,i32:16,1024");
}

TEST(Specialization, TritonReprAndLaunchOptions) {
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x20000});
  const float* misaligned = reinterpret_cast<const float*>(uintptr_t{0x20004});
  const auto s = test::add_kernel().specialize(test::config(7, 8, 2, 1),
                                               test::span(test::args(x, misaligned, x, 4096, 256)));
  EXPECT_EQ(s.triton_repr(), "[('*fp32', 'D'), ('*fp32', ''), ('*fp32', 'D'), ('i32', 'D'), ('constexpr', 256)]");
  EXPECT_EQ(s.signature(), "*fp32:16,*fp32,*fp32:16,i32:16,256");
  EXPECT_EQ(s.num_warps, 8);
  EXPECT_EQ(s.num_stages, 2);
  EXPECT_EQ(s.num_ctas, 1);
  EXPECT_EQ(s.target, "cuda:90");  // no GPU and no explicit target
  ASSERT_EQ(s.params.size(), 5u);
  EXPECT_EQ(s.params[1].type, "*fp32");
  EXPECT_EQ(s.params[1].hint, ParamSpecialization::Hint::NotAligned);
  EXPECT_EQ(s.params[4].type, "constexpr");
  EXPECT_EQ(s.params[4].value_repr, "256");
}

TEST(Specialization, IntegerOneBecomesConstexpr) {
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x20000});
  const auto s = test::add_kernel().specialize(test::config(), test::span(test::args(x, x, x, 1, 64)));
  EXPECT_EQ(s.signature(), "*fp32:16,*fp32:16,*fp32:16,1,64");
  EXPECT_EQ(s.params[3].type, "constexpr");
  EXPECT_EQ(s.params[3].value_repr, "1");
}

TEST(Specialization, IntegerWidthsByValue) {
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x20000});
  EXPECT_EQ(signature_of(test::add_kernel(), test::args(x, x, x, int64_t{2147483647}, 64)),
            "*fp32:16,*fp32:16,*fp32:16,i32,64");
  EXPECT_EQ(signature_of(test::add_kernel(), test::args(x, x, x, int64_t{2147483648}, 64)),
            "*fp32:16,*fp32:16,*fp32:16,i64:16,64");
  EXPECT_EQ(signature_of(test::add_kernel(), test::args(x, x, x, int64_t{-2147483649}, 64)),
            "*fp32:16,*fp32:16,*fp32:16,i64,64");
  EXPECT_EQ(signature_of(test::add_kernel(), test::args(x, x, x, uint64_t{1} << 63, 64)),
            "*fp32:16,*fp32:16,*fp32:16,u64:16,64");
  // An unsigned value that fits int64 means the same as the signed one.
  EXPECT_EQ(signature_of(test::add_kernel(), test::args(x, x, x, uint32_t{4000000001u}, 64)),
            "*fp32:16,*fp32:16,*fp32:16,i64,64");
  EXPECT_EQ(signature_of(test::add_kernel(), test::args(x, x, x, -32, 64)), "*fp32:16,*fp32:16,*fp32:16,i32:16,64");
}

TEST(Specialization, ScalarKindsAndNone) {
  // bool -> u1, float -> fp32, None -> constexpr None, nullptr_t/nullopt -> None
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x20000});
  EXPECT_EQ(signature_of(test::add_kernel(), test::args(x, true, 2.5f, nullptr, 64)), "*fp32:16,u1,fp32,None,64");
  EXPECT_EQ(signature_of(test::add_kernel(), test::args(x, std::optional<int>{}, std::nullopt, 0.0, 64)),
            "*fp32:16,None,None,fp32,64");
}

TEST(Specialization, PointerElementTypes) {
  const uintptr_t a = 0x40000;
  EXPECT_EQ(signature_of(test::add_kernel(),
                         test::args(reinterpret_cast<const double*>(a), reinterpret_cast<const int8_t*>(a),
                                    reinterpret_cast<const uint64_t*>(a), 16, 64)),
            "*fp64:16,*i8:16,*u64:16,i32:16,64");
  EXPECT_EQ(signature_of(test::add_kernel(),
                         test::args(reinterpret_cast<const bool*>(a), TypedPtr{reinterpret_cast<void*>(a), DType::bf16},
                                    TypedPtr{reinterpret_cast<void*>(a + 8), DType::fp8e4nv}, 16, 64)),
            "*u1:16,*bf16:16,*fp8e4nv,i32:16,64");
}

TEST(Specialization, ConstexprValues) {
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x20000});
  auto& fn = TritonJitFunction::get(test::kernel("defaults.py"), "defaults_kernel");
  // Every default taken: BLOCK=128, MODE='fast', EXTRA=None, ALPHA=1.5, FLAG=True, scale=2, one=1.
  EXPECT_EQ(signature_of(fn, test::args(x, 100)), "*fp32:16,i32,128,'fast',None,1.5,True,i32,1");
  EXPECT_EQ(fn.specialize(test::config(), test::span(test::args(x, 100))).triton_repr(),
            "[('*fp32', 'D'), ('i32', ''), ('constexpr', 128), ('constexpr', 'fast'), ('constexpr', None), "
            "('constexpr', 1.5), ('constexpr', True), ('i32', ''), ('constexpr', 1)]");
  EXPECT_EQ(signature_of(fn, test::args(x, 100, 64, "it's", 1e20, -0.0, false, 32, 3)),
            "*fp32:16,i32,64,\"it's\",1e+20,-0.0,False,i32:16,i32");
  EXPECT_EQ(signature_of(fn, test::args(x, 100, 64, "a\\b", 1e-5, 1e16, true)),
            "*fp32:16,i32,64,'a\\\\b',1e-05,1e+16,True,i32,1");
  EXPECT_EQ(signature_of(fn, test::args(x, 100, uint64_t{18446744073709551615ull}, std::string("x"), 0.1, 1e15, 2)),
            "*fp32:16,i32,18446744073709551615,'x',0.1,1000000000000000.0,2,i32,1");
}

TEST(Specialization, AnnotatedTypesWin) {
  auto& fn = TritonJitFunction::get(test::kernel("annotated.py"), "annotated_kernel");
  const uintptr_t a = 0x40000;
  // out_ptr: "*fp16" given a float*: the annotation's type; n: i64 given 1: i64 with hint 1;
  // scale: fp32 given an int; flag: u1 given an int; src_ptr: const -> *k; kptr: "*kfp32".
  const auto s = fn.specialize(test::config(), test::span(test::args(reinterpret_cast<const float*>(a), 1, 3, 7,
                                                                     reinterpret_cast<const int16_t*>(a + 2),
                                                                     reinterpret_cast<const float*>(a), 32, 64)));
  EXPECT_EQ(s.triton_repr(), "[('*fp16', 'D'), ('i64', 1), ('fp32', None), ('u1', None), ('*ki16', ''), "
                             "('*kfp32', 'D'), ('u64', 'D'), ('constexpr', 64)]");
  EXPECT_EQ(s.params[1].hint, ParamSpecialization::Hint::EqualsOne);
  EXPECT_EQ(s.signature(), "*fp16:16,i64,fp32,u1,*ki16,*kfp32:16,u64:16,64");
}

TEST(Specialization, DoNotSpecialize) {
  auto& fn = TritonJitFunction::get(test::kernel("do_not_specialize.py"), "dns_kernel");
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x20000});
  // b, c: do_not_specialize (no hint, 1 stays a runtime i32); d, e: not on alignment ('' not 'D').
  const auto s = fn.specialize(test::config(), test::span(test::args(x, 1, 32, 32, x, 32, 16)));
  EXPECT_EQ(s.triton_repr(), "[('*fp32', 'D'), ('i32', None), ('i32', None), ('i32', ''), ('*fp32', ''), "
                             "('i32', 'D'), ('constexpr', 16)]");
  EXPECT_EQ(s.signature(), "*fp32:16,i32,i32,i32,*fp32,i32:16,16");
  // d is still specialized on 1.
  EXPECT_EQ(fn.specialize(test::config(), test::span(test::args(x, 1, 1, 1, x, 1, 16))).signature(),
            "*fp32:16,i32,i32,1,*fp32,1,16");
}

TEST(Specialization, NeedsNoCompile) {
  const auto before = test::add_kernel().stats();
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x20000});
  test::add_kernel().specialize(test::config(), test::span(test::args(x, x, x, 12345, 1u << 16)));
  const auto after = test::add_kernel().stats();
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_EQ(after.misses, before.misses);
  EXPECT_EQ(after.hits, before.hits);
}

}  // namespace

namespace {

// The variadic forms convert the arguments as a call does and agree with the ArgSpan forms.
TEST(Specialization, VariadicFormsMatchTheSpanForms) {
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x20000});
  const TypedPtr h{reinterpret_cast<const void*>(uintptr_t{0x30008}), DType::fp16};
  const auto config = test::config(4, 8, 2, 1);
  const auto by_span = test::add_kernel().specialize(config, test::span(test::args(x, h, x, 4096, 256)));
  const auto variadic = test::add_kernel().specialize(config, x, h, x, 4096, 256);
  EXPECT_EQ(variadic.triton_repr(), by_span.triton_repr());
  EXPECT_EQ(variadic.signature(), "*fp32:16,*fp16,*fp32:16,i32:16,256");
  EXPECT_EQ(variadic.num_warps, 8);
  // Both forms of compile() find the same kernel.
  const triton_jit::KernelInfo& a = test::add_kernel().compile(config, x, x, x, 4096, 256);
  const triton_jit::KernelInfo& b = test::add_kernel().compile(config, test::span(test::args(x, x, x, 4096, 256)));
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(a.name, "add_kernel");
}

TritonJitFunction& scale() { return TritonJitFunction::get(test::kernel("dtype_constexpr.py"), "scale_kernel"); }

TEST(Specialization, DTypeConstexprsInBothSpellings) {
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x20000});
  // A DType is Triton's dtype; OUT_DTYPE keeps its default, tl.float32.
  const auto tl = scale().specialize(test::config(), x, 100, DType::fp16);
  EXPECT_EQ(tl.signature(), "*fp32:16,i32,triton.language.float16,triton.language.float32,128");
  EXPECT_EQ(tl.triton_repr(), "[('*fp32', 'D'), ('i32', ''), ('constexpr', triton.language.float16), "
                              "('constexpr', triton.language.float32), ('constexpr', 128)]");
  ASSERT_EQ(tl.params.size(), 5u);
  EXPECT_EQ(tl.params[2].type, "constexpr");
  EXPECT_EQ(tl.params[2].value_repr, "triton.language.float16");
  // TorchDType is torch's spelling: another key, as in Triton.
  const auto torch = scale().specialize(test::config(), x, 100, triton_jit::TorchDType{DType::fp16}, DType::bf16);
  EXPECT_EQ(torch.signature(), "*fp32:16,i32,torch.float16,triton.language.bfloat16,128");
  EXPECT_EQ(torch.triton_repr(),
            "[('*fp32', 'D'), ('i32', ''), ('constexpr', torch.float16), ('constexpr', triton.language.bfloat16), "
            "('constexpr', 128)]");
  const auto by_span = scale().specialize(
      test::config(), test::span({test::ptr(0x20000), ArgValue::integer(100), ArgValue::torch_dtype(DType::fp16),
                                  ArgValue::triton_dtype(DType::bf16)}));
  EXPECT_EQ(by_span.triton_repr(), torch.triton_repr());
}

TEST(Specialization, EveryDTypeHasTritonsRepr) {
  // Python's repr of each triton.language dtype and torch dtype (checked against Python by the
  // parity test); torch has no fp8e4b15.
  // A table laid out by hand.
  // clang-format off
  const char* const kExpected[triton_jit::kNumDTypes][2] = {
      {"int1", "bool"},           {"int8", "int8"},           {"int16", "int16"},     {"int32", "int32"},
      {"int64", "int64"},         {"uint8", "uint8"},         {"uint16", "uint16"},   {"uint32", "uint32"},
      {"uint64", "uint64"},       {"float16", "float16"},     {"bfloat16", "bfloat16"}, {"float32", "float32"},
      {"float64", "float64"},     {"float8e4nv", "float8_e4m3fn"}, {"float8e5", "float8_e5m2"},
      {"float8e4b15", nullptr},   {"float8e4b8", "float8_e4m3fnuz"}, {"float8e5b16", "float8_e5m2fnuz"},
  };
  // clang-format on
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x20000});
  for (int i = 0; i < triton_jit::kNumDTypes; ++i) {
    const auto d = static_cast<DType>(i);
    SCOPED_TRACE(std::string(triton_jit::dtype_name(d)));
    EXPECT_EQ(triton_jit::triton_language_name(d), kExpected[i][0]);
    EXPECT_EQ(scale().specialize(test::config(), x, 100, d).params[2].value_repr,
              "triton.language." + std::string(kExpected[i][0]));
    if (kExpected[i][1] == nullptr) {
      EXPECT_TRUE(triton_jit::torch_name(d).empty());
      continue;
    }
    EXPECT_EQ(triton_jit::torch_name(d), kExpected[i][1]);
    EXPECT_EQ(scale().specialize(test::config(), x, 100, triton_jit::TorchDType{d}).params[2].value_repr,
              "torch." + std::string(kExpected[i][1]));
  }
}

}  // namespace

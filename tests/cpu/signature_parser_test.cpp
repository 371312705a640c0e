// detail::parse_signature: Triton's signature syntax ("*fp16:16,i32,1024") read back into the
// Specialization a call would have.
#include <gtest/gtest.h>

#include "key/signature_parser.h"
#include "key/synthetic_args.h"
#include "test_util.h"
#include "triton_jit/errors.h"

using triton_jit::ParamSpecialization;
using triton_jit::TritonJitFunction;
using triton_jit::detail::parse_signature;

namespace {

const triton_jit::StaticSignature& sig(const char* file, const char* fn) {
  return TritonJitFunction::get(test::kernel(file), fn).signature();
}

TEST(SignatureParser, SameAsTheCallsSpecialization) {
  const auto& add = TritonJitFunction::get(test::kernel("add.py"), "add_kernel");
  const auto args = test::args(test::ptr(0x1000), test::ptr(0x1004), test::ptr(0x1000), 4096, 1024);
  const auto from_call = add.specialize(test::config(), test::span(args));
  const auto parsed = parse_signature(add.signature(), "*fp32:16, *fp32, *fp32:16, i32:16, 1024");
  EXPECT_EQ(parsed.triton_repr(), from_call.triton_repr());
  EXPECT_EQ(parsed.signature(), from_call.signature());
}

TEST(SignatureParser, FloatsAndBoolsAreNeverSpecialized) {
  // Triton's binder gives ('fp32', None) and ('u1', None), annotated or not; '' would reach
  // Triton's attributes and compile a kernel under another hash than the JIT's.
  const auto& generic = TritonJitFunction::get(test::kernel("generic.py"), "generic_kernel");
  const auto args = test::args(test::ptr(0x1000), 0.5, true, 7, 2.0f, false, test::ptr(0x1008), 32, 1, 2, 3);
  const auto from_call = generic.specialize(test::config(), test::span(args));
  const auto parsed = parse_signature(generic.signature(), "*fp32:16,fp32,u1,i32,fp32,u1,*fp32,i32:16,1,2,3");
  EXPECT_EQ(parsed.triton_repr(), from_call.triton_repr());
  EXPECT_EQ(parsed.params[1].hint, ParamSpecialization::Hint::None);
  const auto& scalars = TritonJitFunction::get(test::kernel("scalars.py"), "scalars_kernel");
  const auto scalar_args = test::args(test::ptr(0x1000), 1.0, 1.0, 1.0, 1.0, 5, true, 3, 64);
  const auto annotated = parse_signature(scalars.signature(), "*fp32:16,fp16,bf16,fp32,fp64,i64,u1,i8,64");
  EXPECT_EQ(annotated.triton_repr(), scalars.specialize(test::config(), test::span(scalar_args)).triton_repr());
  EXPECT_EQ(annotated.params[1].hint, ParamSpecialization::Hint::None);
}

TEST(SignatureParser, ConstexprLiterals) {
  const auto& s = sig("defaults.py", "defaults_kernel");
  auto p = parse_signature(s, "*kfp16:16,i64,64,'a,b',None,1e20,False,u64:16,1");
  EXPECT_EQ(p.signature(), "*kfp16:16,i64,64,'a,b',None,1e+20,False,u64:16,1");
  EXPECT_EQ(p.params[0].type, "*kfp16");
  EXPECT_EQ(p.params[0].hint, ParamSpecialization::Hint::Divisible16);
  EXPECT_EQ(p.params[1].hint, ParamSpecialization::Hint::NotAligned);
  EXPECT_EQ(p.params[3].value_repr, "'a,b'");
  EXPECT_EQ(p.params[8].type, "constexpr");
  p = parse_signature(s, "*fp32,i32,-3,\"it's\",True,0.5,True,i32,18446744073709551615");
  EXPECT_EQ(p.params[2].value_repr, "-3");
  EXPECT_EQ(p.params[3].value_repr, "\"it's\"");
  EXPECT_EQ(p.params[5].value_repr, "0.5");
  EXPECT_EQ(p.params[8].value_repr, "18446744073709551615");
}

TEST(SignatureParser, DoNotSpecializeKeepsNoHint) {
  const auto& s = sig("do_not_specialize.py", "dns_kernel");
  const auto p = parse_signature(s, "*fp32:16,i32,i32,i32,*fp32,i32:16,16");
  EXPECT_EQ(p.triton_repr(), "[('*fp32', 'D'), ('i32', None), ('i32', None), ('i32', ''), ('*fp32', ''), "
                             "('i32', 'D'), ('constexpr', 16)]");
}

TEST(SignatureParser, Errors) {
  const auto& s = sig("add.py", "add_kernel");
  try {
    parse_signature(s, "*fp32:16,*fp99,*fp32:16,i32,1024");
    ADD_FAILURE() << "no error";
  } catch (const triton_jit::ArgumentError& e) {
    EXPECT_EQ(e.parameter(), "y_ptr");
    EXPECT_TRUE(test::contains(e.what(), "*fp99")) << e.what();
  }
  EXPECT_THROW(parse_signature(s, "*fp32:16,*fp32:16,*fp32:16,i32,1024,1"), triton_jit::ArgumentError);
  EXPECT_THROW(parse_signature(s, ""), triton_jit::ArgumentError);
  EXPECT_THROW(parse_signature(s, "*fp32:16,*fp32:16,*fp32:16,i32,'unterminated"), triton_jit::ArgumentError);
}

TEST(SignatureParser, DTypeConstexprs) {
  const auto& fn = TritonJitFunction::get(test::kernel("dtype_constexpr.py"), "scale_kernel");
  // Every dtype in both spellings reads back into the specialization a call has, and the
  // synthetic arguments prepare and packs use make that call.
  for (int i = 0; i < triton_jit::kNumDTypes; ++i) {
    const auto d = static_cast<triton_jit::DType>(i);
    for (const bool torch : {false, true}) {
      if (torch && triton_jit::torch_name(d).empty()) continue;
      const triton_jit::ArgValue dtype = torch ? triton_jit::ArgValue::torch_dtype(d)
                                               : triton_jit::ArgValue::triton_dtype(d);
      const auto from_call = fn.specialize(test::config(), test::ptr(0x1000), 7, dtype, triton_jit::DType::fp32, 64);
      SCOPED_TRACE(from_call.signature());
      const auto parsed = parse_signature(fn.signature(), from_call.signature());
      EXPECT_EQ(parsed.triton_repr(), from_call.triton_repr());
      EXPECT_EQ(parsed.signature(), from_call.signature());
      const auto synthetic = triton_jit::detail::synthesize_args(fn.signature(), parsed);
      EXPECT_EQ(fn.specialize(test::config(), triton_jit::ArgSpan{synthetic.values.data(), synthetic.values.size()})
                    .signature(),
                from_call.signature());
    }
  }
  // tl. abbreviates triton.language.; spaces are ignored.
  const auto p = parse_signature(fn.signature(), "*fp32:16, i32, tl.float8e4nv, torch.float8_e5m2fnuz, 64");
  EXPECT_EQ(p.signature(), "*fp32:16,i32,triton.language.float8e4nv,torch.float8_e5m2fnuz,64");
  EXPECT_EQ(p.params[2].type, "constexpr");
  EXPECT_EQ(p.params[3].value_repr, "torch.float8_e5m2fnuz");
}

TEST(SignatureParser, DTypeErrors) {
  const auto& fn = TritonJitFunction::get(test::kernel("dtype_constexpr.py"), "scale_kernel");
  // Not dtypes C++ can pass: unknown names, torch's missing fp8e4b15, Triton's names under torch.,
  // bare names (those are pointer element types).
  for (const char* bad : {"triton.language.float17", "torch.float8e4b15", "torch.fp16", "triton.language.float8_e5m2",
                          "torch.complex64", "fp16", "float16", "triton.language.", "torch."}) {
    SCOPED_TRACE(bad);
    try {
      parse_signature(fn.signature(), std::string("*fp32:16,i32,") + bad + ",tl.float32,64");
      ADD_FAILURE() << "no error";
    } catch (const triton_jit::ArgumentError& e) {
      EXPECT_EQ(e.parameter(), "X_dtype");
      EXPECT_TRUE(test::contains(e.what(), bad)) << e.what();
      EXPECT_TRUE(test::contains(e.what(), "torch.float16")) << e.what();  // the forms that work
    }
  }
}

}  // namespace

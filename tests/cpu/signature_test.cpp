// StaticSignature: what TritonJitFunction::get reads of a kernel before any call. The expected
// values are written out from the kernel sources in tests/kernels and Triton's KernelParam rules.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

using triton_jit::ArgValue;
using triton_jit::ParamInfo;
using triton_jit::StaticSignature;
using triton_jit::TritonJitFunction;

namespace {

std::vector<std::string> names(const StaticSignature& s) {
  std::vector<std::string> out;
  for (const ParamInfo& p : s.params) out.push_back(p.name);
  return out;
}

TEST(StaticSignature, AddKernelParameters) {
  const std::string path = test::kernel("add.py");
  auto& fn = TritonJitFunction::get(path, "add_kernel");
  const StaticSignature& s = fn.signature();
  EXPECT_EQ(s.function, "add_kernel");
  EXPECT_EQ(s.file, test::canonical(path));
  EXPECT_EQ(fn.path(), test::canonical(path));
  EXPECT_EQ(fn.name(), "add_kernel");
  EXPECT_EQ(names(s), (std::vector<std::string>{"x_ptr", "y_ptr", "out_ptr", "n_elements", "BLOCK_SIZE"}));
  for (size_t i = 0; i < s.params.size(); ++i) {
    const ParamInfo& p = s.params[i];
    SCOPED_TRACE(p.name);
    EXPECT_EQ(p.index, static_cast<int>(i));
    EXPECT_EQ(p.is_constexpr, p.name == "BLOCK_SIZE");
    EXPECT_EQ(p.annotation, p.name == "BLOCK_SIZE" ? "constexpr" : "");
    EXPECT_EQ(p.annotation_type, "");
    EXPECT_FALSE(p.is_const);
    EXPECT_FALSE(p.do_not_specialize);
    EXPECT_FALSE(p.do_not_specialize_on_alignment);
    EXPECT_FALSE(p.default_value.has_value());
  }
  EXPECT_EQ(s.find("n_elements"), 3);
  EXPECT_EQ(s.find("BLOCK_SIZE"), 4);
  EXPECT_EQ(s.find("nope"), -1);
}

TEST(StaticSignature, SameObjectForSameFunction) {
  auto& a = TritonJitFunction::get(test::kernel("add.py"), "add_kernel");
  // A different spelling of the same file resolves to the same function object.
  auto& b = TritonJitFunction::get(std::string(TRITON_JIT_TEST_KERNELS_DIR) + "/../kernels/./add.py", "add_kernel");
  EXPECT_EQ(&a, &b);
  auto& c = TritonJitFunction::get(test::kernel("mixed_module.py"), "real_kernel");
  auto& d = TritonJitFunction::get(test::kernel("mixed_module.py"), "other_kernel");
  EXPECT_NE(&c, &d);
  EXPECT_EQ(d.signature().params.size(), 1u);
}

// Triton's starting_line_number is the line of the first decorator; signature.h documents the
// line of the `def` (a bug found by this test).
TEST(StaticSignature, FirstLineIsTheDefLine) {
  const std::string add = test::kernel("add.py");
  EXPECT_EQ(TritonJitFunction::get(add, "add_kernel").signature().first_line, test::line_of(add, "def add_kernel"));
  const std::string wrapped = test::kernel("wrapped.py");
  EXPECT_EQ(TritonJitFunction::get(wrapped, "stacked_kernel").signature().first_line,
            test::line_of(wrapped, "def stacked_kernel"));
}

TEST(StaticSignature, Annotations) {
  auto& fn = TritonJitFunction::get(test::kernel("annotated.py"), "annotated_kernel");
  const StaticSignature& s = fn.signature();
  ASSERT_EQ(names(s), (std::vector<std::string>{"out_ptr", "n", "scale", "flag", "src_ptr", "kptr", "count", "BLOCK"}));
  struct Expected {
    const char* annotation;
    const char* annotation_type;
    bool is_const;
    bool is_constexpr;
  };
  // out_ptr: "*fp16", n: tl.int64, scale: tl.float32, flag: "u1", src_ptr: tl.const, kptr: "*kfp32",
  // count: "u64", BLOCK: tl.constexpr
  const Expected expected[] = {
      {"*fp16", "*fp16", false, false}, {"i64", "i64", false, false},   {"fp32", "fp32", false, false},
      {"u1", "u1", false, false},       {"const", "", true, false},     {"*kfp32", "*kfp32", true, false},
      {"u64", "u64", false, false},     {"constexpr", "", false, true},
  };
  for (size_t i = 0; i < s.params.size(); ++i) {
    SCOPED_TRACE(s.params[i].name);
    EXPECT_EQ(s.params[i].annotation, expected[i].annotation);
    EXPECT_EQ(s.params[i].annotation_type, expected[i].annotation_type);
    EXPECT_EQ(s.params[i].is_const, expected[i].is_const);
    EXPECT_EQ(s.params[i].is_constexpr, expected[i].is_constexpr);
  }
}

TEST(StaticSignature, DoNotSpecializeByIndexAndName) {
  // @triton.jit(do_not_specialize=[1, "c"], do_not_specialize_on_alignment=["d", 4])
  auto& fn = TritonJitFunction::get(test::kernel("do_not_specialize.py"), "dns_kernel");
  const StaticSignature& s = fn.signature();
  ASSERT_EQ(names(s), (std::vector<std::string>{"a", "b", "c", "d", "e", "f", "BLOCK"}));
  const bool dns[] = {false, true, true, false, false, false, false};
  const bool dnsa[] = {false, false, false, true, true, false, false};
  for (size_t i = 0; i < s.params.size(); ++i) {
    SCOPED_TRACE(s.params[i].name);
    EXPECT_EQ(s.params[i].do_not_specialize, dns[i]);
    EXPECT_EQ(s.params[i].do_not_specialize_on_alignment, dnsa[i]);
  }
}

TEST(StaticSignature, Defaults) {
  auto& fn = TritonJitFunction::get(test::kernel("defaults.py"), "defaults_kernel");
  const StaticSignature& s = fn.signature();
  ASSERT_EQ(names(s),
            (std::vector<std::string>{"x_ptr", "n", "BLOCK", "MODE", "EXTRA", "ALPHA", "FLAG", "scale", "one"}));
  EXPECT_FALSE(s.params[0].default_value);
  EXPECT_FALSE(s.params[1].default_value);
  for (size_t i = 2; i < s.params.size(); ++i) {
    SCOPED_TRACE(s.params[i].name);
    ASSERT_TRUE(s.params[i].default_value);
    EXPECT_TRUE(s.params[i].default_value->representable);
  }
  const auto& block = *s.params[2].default_value;
  EXPECT_EQ(block.kind, ArgValue::Kind::Int);
  EXPECT_EQ(block.int_value, 128);
  EXPECT_EQ(block.repr, "128");
  EXPECT_EQ(block.to_arg().as_int(), 128);

  const auto& mode = *s.params[3].default_value;
  EXPECT_EQ(mode.kind, ArgValue::Kind::String);
  EXPECT_EQ(mode.string_value, "fast");
  EXPECT_EQ(mode.repr, "'fast'");
  EXPECT_EQ(mode.to_arg().kind(), ArgValue::Kind::String);
  EXPECT_EQ(mode.to_arg().as_string(), "fast");

  const auto& extra = *s.params[4].default_value;
  EXPECT_EQ(extra.kind, ArgValue::Kind::None);
  EXPECT_EQ(extra.repr, "None");
  EXPECT_EQ(extra.to_arg().kind(), ArgValue::Kind::None);

  const auto& alpha = *s.params[5].default_value;
  EXPECT_EQ(alpha.kind, ArgValue::Kind::Float);
  EXPECT_EQ(alpha.float_value, 1.5);
  EXPECT_EQ(alpha.repr, "1.5");
  EXPECT_EQ(alpha.to_arg().as_float(), 1.5);

  const auto& flag = *s.params[6].default_value;
  EXPECT_EQ(flag.kind, ArgValue::Kind::Bool);
  EXPECT_TRUE(flag.bool_value);
  EXPECT_EQ(flag.repr, "True");
  EXPECT_TRUE(flag.to_arg().as_bool());

  EXPECT_EQ(s.params[7].default_value->kind, ArgValue::Kind::Int);
  EXPECT_EQ(s.params[7].default_value->int_value, 2);
  EXPECT_FALSE(s.params[7].is_constexpr);
  EXPECT_EQ(s.params[8].default_value->int_value, 1);
  EXPECT_EQ(s.params[8].default_value->repr, "1");
}

TEST(StaticSignature, DTypeDefault) {
  auto& fn = TritonJitFunction::get(test::kernel("dtype_default.py"), "cast_kernel");
  const ParamInfo& p = fn.signature().params.at(2);
  EXPECT_EQ(p.name, "DTYPE");
  ASSERT_TRUE(p.default_value);
  EXPECT_TRUE(p.default_value->representable);
  EXPECT_EQ(p.default_value->kind, ArgValue::Kind::DType);
  EXPECT_EQ(p.default_value->dtype_value, triton_jit::DType::fp16);
  EXPECT_FALSE(p.default_value->torch_dtype);
  EXPECT_EQ(p.default_value->repr, "triton.language.float16");
  const ArgValue a = p.default_value->to_arg();
  EXPECT_EQ(a.kind(), ArgValue::Kind::DType);
  EXPECT_EQ(a.dtype(), triton_jit::DType::fp16);
  EXPECT_FALSE(a.is_torch_dtype());
}

TEST(StaticSignature, UnrepresentableDefaultKeepsItsRepr) {
  auto& tuple = TritonJitFunction::get(test::kernel("dtype_default.py"), "tuple_default_kernel");
  const ParamInfo& p = tuple.signature().params.at(2);
  EXPECT_EQ(p.name, "SHAPE");
  ASSERT_TRUE(p.default_value);
  EXPECT_FALSE(p.default_value->representable);
  EXPECT_EQ(p.default_value->repr, "(16, 16)");
  // A tl.dtype C++ has no DType for (a pointer type) has no C++ form either.
  auto& pointer = TritonJitFunction::get(test::kernel("dtype_default.py"), "pointer_type_default_kernel");
  const ParamInfo& q = pointer.signature().params.at(2);
  ASSERT_TRUE(q.default_value);
  EXPECT_FALSE(q.default_value->representable);
  EXPECT_EQ(q.default_value->repr, "pointer<fp16>");
}

// The @triton.jit function's parameters, and the wrappers outermost first, as Triton holds them.
TEST(StaticSignature, AutotuneAndHeuristicsAreReadLayerByLayer) {
  const std::string path = test::kernel("wrapped.py");
  EXPECT_EQ(names(TritonJitFunction::get(path, "autotuned_kernel").signature()),
            (std::vector<std::string>{"x_ptr", "n", "BLOCK"}));
  EXPECT_EQ(names(TritonJitFunction::get(path, "heuristic_kernel").signature()),
            (std::vector<std::string>{"x_ptr", "n", "EVEN"}));
  const StaticSignature& stacked = TritonJitFunction::get(path, "stacked_kernel").signature();
  EXPECT_EQ(stacked.function, "stacked_kernel");
  EXPECT_EQ(names(stacked), (std::vector<std::string>{"x_ptr", "n", "EVEN", "BLOCK"}));
  EXPECT_TRUE(stacked.params[2].is_constexpr);
  EXPECT_TRUE(stacked.params[3].is_constexpr);
  ASSERT_EQ(stacked.decorators.size(), 2u);
  EXPECT_EQ(stacked.decorators[0].kind, triton_jit::DecoratorLayer::Kind::Autotune);
  ASSERT_EQ(stacked.decorators[0].autotune.configs.size(), 1u);
  EXPECT_EQ(stacked.decorators[0].autotune.key, (std::vector<int>{1}));
  const auto& config = stacked.decorators[0].autotune.configs[0];
  ASSERT_EQ(config.kwargs.size(), 1u);
  EXPECT_EQ(config.kwargs[0].first, 3);
  EXPECT_EQ(config.kwargs[0].second.int_value, 32);
  EXPECT_EQ(config.repr.rfind("BLOCK: 32, num_warps: 4, num_ctas: 1, num_stages: 3", 0), 0u)
      << config.repr << " (Python's str of the config, which newer Tritons extend)";
  EXPECT_EQ(stacked.decorators[1].kind, triton_jit::DecoratorLayer::Kind::Heuristics);
  ASSERT_EQ(stacked.decorators[1].heuristics.size(), 1u);
  EXPECT_EQ(stacked.decorators[1].heuristics[0].name, "EVEN");
  EXPECT_EQ(stacked.decorators[1].heuristics[0].param, 2);
  EXPECT_FALSE(stacked.decorators[1].heuristics[0].program.empty()) << "a translatable lambda";
  const auto& autotuned = TritonJitFunction::get(path, "autotuned_kernel").signature().decorators;
  ASSERT_EQ(autotuned.size(), 1u);
  EXPECT_EQ(autotuned[0].autotune.configs.at(1).num_warps, 8);
}

TEST(StaticSignature, ToString) {
  EXPECT_EQ(TritonJitFunction::get(test::kernel("add.py"), "add_kernel").signature().to_string(),
            "x_ptr\ny_ptr\nout_ptr\nn_elements\nBLOCK_SIZE: constexpr\n");
  EXPECT_EQ(TritonJitFunction::get(test::kernel("defaults.py"), "defaults_kernel").signature().to_string(),
            "x_ptr\n"
            "n\n"
            "BLOCK: constexpr = 128\n"
            "MODE: constexpr = 'fast'\n"
            "EXTRA: constexpr = None\n"
            "ALPHA: constexpr = 1.5\n"
            "FLAG: constexpr = True\n"
            "scale = 2\n"
            "one = 1\n");
  EXPECT_EQ(TritonJitFunction::get(test::kernel("annotated.py"), "annotated_kernel").signature().to_string(),
            "out_ptr: *fp16\nn: i64\nscale: fp32\nflag: u1\nsrc_ptr: const\nkptr: *kfp32\ncount: u64\n"
            "BLOCK: constexpr\n");
  EXPECT_EQ(TritonJitFunction::get(test::kernel("do_not_specialize.py"), "dns_kernel").signature().to_string(),
            "a\n"
            "b  [do_not_specialize]\n"
            "c  [do_not_specialize]\n"
            "d  [do_not_specialize_on_alignment]\n"
            "e  [do_not_specialize_on_alignment]\n"
            "f\n"
            "BLOCK: constexpr\n");
}

}  // namespace

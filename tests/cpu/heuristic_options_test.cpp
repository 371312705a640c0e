// @triton.heuristics values that set launch options (num_warps, num_stages, num_ctas), as FlagGems'
// softmax does, against Triton's own wrappers: tests/support/heuristic_options_reference.py runs
// Heuristics.run (and Autotuner.run) on the same arguments and reads the launch options as
// JITFunction.run does (the backend's parse_options). Kernels: tests/kernels/heuristic_options.py.
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "../support/child_process.h"
#include "../support/python_reference.h"
#include "bridge/interpreter.h"
#include "fake_driver.h"
#include "store/binary_io.h"
#include "store/records.h"
#include "test_util.h"
#include "triton_jit/errors.h"
#include "triton_jit/triton_jit.h"

namespace py = pybind11;
using triton_jit::ArgSpan;
using triton_jit::ArgValue;
using triton_jit::DType;
using triton_jit::Grid;
using triton_jit::LaunchConfig;
using triton_jit::TritonJitFunction;

namespace {

namespace fs = std::filesystem;

constexpr const char* kFile = "heuristic_options.py";
constexpr uint64_t kBase = 0x7f0000100000ull;

py::module_& options_reference() { return triton_jit::test::support_module("heuristic_options_reference"); }

// tests/kernels/heuristic_options.py imported by Python on its own (the runtime has its own copy).
py::object python_kernel(const char* name) {
  options_reference();
  return triton_jit::test::file_module(test::canonical(test::kernel(kFile)), "heuristic_options_reference_kernels")
      .attr(name);
}

TritonJitFunction& kernel(const char* name) {
  options_reference();
  return TritonJitFunction::get(test::canonical(test::kernel(kFile)), name);
}

const char* reference_dtype(DType d) {
  switch (d) {
    case DType::fp16: return "float16";
    case DType::bf16: return "bfloat16";
    default: return "float32";
  }
}

py::object to_python(const ArgValue& a) {
  switch (a.kind()) {
    case ArgValue::Kind::Int: return py::int_(a.as_int());
    case ArgValue::Kind::Pointer:
      return py::module_::import("triton_reference")
          .attr("make_tensor")(py::int_(a.address()), std::string(reference_dtype(a.dtype())));
    default: ADD_FAILURE() << "no Python form in this test"; return py::none();
  }
}

// Triton's launch of obj.run(*args): the specialization and launch options, or the error it raises.
struct Theirs {
  bool error = false;
  std::string specialization;  // or the error's type
  int num_warps = 0, num_stages = 0, num_ctas = 0;
  std::string message;
};

Theirs triton_launch(const char* function, const std::vector<ArgValue>& args, int pick = 0) {
  triton_jit::bridge::GilGuard gil;
  py::object fn = python_kernel(function);
  py::list py_args;
  for (const ArgValue& a : args) py_args.append(to_python(a));
  py::tuple r = options_reference().attr("triton_launch")(fn, py_args, pick);
  Theirs out;
  if (r[0].cast<std::string>() == "error") {
    out.error = true;
    out.specialization = r[1].cast<std::string>();
    out.message = r[2].cast<std::string>();
    return out;
  }
  out.specialization = r[0].cast<std::string>();
  out.num_warps = r[1].cast<int>();
  out.num_stages = r[2].cast<int>();
  out.num_ctas = r[3].cast<int>();
  return out;
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "missing \"" << part << "\" in:\n" << text;
}

std::vector<ArgValue> rows_args(std::mt19937_64& rng, int64_t m, int64_t n) {
  const DType dtypes[] = {DType::fp32, DType::fp16, DType::bf16};
  const DType d = dtypes[rng() % 3];
  return {ArgValue::pointer_address(kBase + (rng() % 64) * 0x10000, d),
          ArgValue::pointer_address(kBase + (rng() % 64) * 0x10000 + (rng() % 2) * 4, d), ArgValue::integer(m),
          ArgValue::integer(n)};
}

int64_t random_n(std::mt19937_64& rng) {
  const int64_t choices[] = {1, 16, 100, 1000, 2047, 2048, 2049, 3000, 4096, 5000, 32768, 32769, 100000};
  return rng() % 3 == 0 ? static_cast<int64_t>(rng() % 70000) + 1 : choices[rng() % 13];
}

}  // namespace

// FlagGems' softmax_kernel_inner heuristics (its own Python functions, run through Python and
// memoized): TILE_N, ONE_TILE_PER_CTA and num_warps give the key and the launch options Triton's
// Heuristics.run gives, over random calls; the caller's own num_warps is overridden, as in Triton.
TEST(HeuristicOptions, FlagGemsSoftmaxHeuristicsSetNumWarpsAsTritonDoes) {
  auto& fn = kernel("softmax_inner_kernel");
  ASSERT_EQ(fn.signature().decorators.size(), 1u);
  const auto& values = fn.signature().decorators[0].heuristics;
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[2].name, "num_warps");
  EXPECT_EQ(values[2].param, -1);
  EXPECT_EQ(values[2].option, triton_jit::HeuristicOption::NumWarps);
  std::mt19937_64 rng(2207);
  for (int c = 0; c < 60; ++c) {
    const auto args = rows_args(rng, static_cast<int64_t>(rng() % 300) + 1, random_n(rng));
    LaunchConfig config;
    config.num_warps = rng() % 2 ? 2 : 4;  // a caller's kernel[grid](..., num_warps=2): the heuristic wins
    const auto ours = fn.specialize(config, ArgSpan{args.data(), args.size()});
    const Theirs theirs = triton_launch("softmax_inner_kernel", args);
    ASSERT_FALSE(theirs.error) << theirs.message;
    EXPECT_EQ(ours.triton_repr(), theirs.specialization) << "call " << c << " N=" << args[3].as_int();
    EXPECT_EQ(ours.num_warps, theirs.num_warps) << "call " << c << " N=" << args[3].as_int();
    EXPECT_EQ(ours.num_stages, theirs.num_stages);
    EXPECT_EQ(ours.num_ctas, theirs.num_ctas);
  }
  // Memoized by what each reads: far fewer Python calls than calls.
  EXPECT_LT(fn.stats().heuristic_python_calls, 3u * 60u);
}

// The same heuristics as lambdas are translated programs: evaluated in C++ (no Python call), and
// the layer's memo replays num_warps and num_stages with the constexprs.
TEST(HeuristicOptions, TranslatedHeuristicsSetLaunchOptionsWithoutPython) {
  auto& fn = kernel("softmax_lambda_kernel");
  for (const auto& h : fn.signature().decorators[0].heuristics) {
    EXPECT_FALSE(h.program.empty()) << h.name << ": " << h.not_translated_reason;
  }
  std::mt19937_64 rng(31);
  for (int c = 0; c < 80; ++c) {
    const auto args = rows_args(rng, rng() % 2 ? 8 : 100, random_n(rng));
    for (int again = 0; again < 2; ++again) {  // the second: the layer's memo
      const auto ours = fn.specialize(LaunchConfig{}, ArgSpan{args.data(), args.size()});
      const Theirs theirs = triton_launch("softmax_lambda_kernel", args);
      ASSERT_FALSE(theirs.error) << theirs.message;
      EXPECT_EQ(ours.triton_repr(), theirs.specialization) << "call " << c;
      EXPECT_EQ(ours.num_warps, theirs.num_warps) << "call " << c << " N=" << args[3].as_int();
      EXPECT_EQ(ours.num_stages, theirs.num_stages) << "call " << c << " M=" << args[2].as_int();
    }
  }
  EXPECT_EQ(fn.stats().heuristic_python_calls, 0u);
}

// None is Triton's default (JITFunction.run drops a None keyword), a bool is Python's int.
TEST(HeuristicOptions, NoneIsTheDefaultAndABoolIsAnInt) {
  auto& fn = kernel("none_and_bool_kernel");
  for (int64_t n : {10, 999, 1000, 5000}) {
    const std::vector<ArgValue> args = {ArgValue::pointer_address(kBase, DType::fp32), ArgValue::integer(n)};
    LaunchConfig config;
    config.num_warps = 8;  // overridden by the heuristic's None: Triton's default, 4
    const auto ours = fn.specialize(config, ArgSpan{args.data(), args.size()});
    const Theirs theirs = triton_launch("none_and_bool_kernel", args);
    ASSERT_FALSE(theirs.error) << theirs.message;
    EXPECT_EQ(ours.triton_repr(), theirs.specialization);
    EXPECT_EQ(ours.num_warps, theirs.num_warps) << "n=" << n;
    EXPECT_EQ(ours.num_ctas, theirs.num_ctas) << "n=" << n;
  }
}

// Values Triton refuses (num_warps=3 fails CUDAOptions' assertion, 4.0 its `&`) are an
// ArgumentError naming the function, the heuristic and the value, translated or through Python.
TEST(HeuristicOptions, InvalidValuesAreRefusedAsTritonRefusesThem) {
  auto& fn = kernel("bad_warps_kernel");
  for (int64_t n : {10, 500, 5000}) {
    const std::vector<ArgValue> args = {ArgValue::pointer_address(kBase, DType::fp32), ArgValue::integer(n)};
    const Theirs theirs = triton_launch("bad_warps_kernel", args);
    std::string ours_error;
    try {
      fn.specialize(LaunchConfig{}, ArgSpan{args.data(), args.size()});
    } catch (const triton_jit::ArgumentError& e) {
      ours_error = e.what();
    }
    EXPECT_EQ(theirs.error, !ours_error.empty()) << "n=" << n << ": " << ours_error << " / " << theirs.message;
    if (n == 500) {
      expect_contains(ours_error, "bad_warps_kernel: the @triton.heuristics value 'num_warps' returned 3");
      expect_contains(ours_error, "num_warps must be a power of two");
    }
    if (n == 5000) expect_contains(ours_error, "'num_warps' returned 4.0");
  }
  auto& python = kernel("python_bad_warps_kernel");
  const std::vector<ArgValue> args = {ArgValue::pointer_address(kBase, DType::fp32), ArgValue::integer(50)};
  EXPECT_TRUE(triton_launch("python_bad_warps_kernel", args).error);
  try {
    python.specialize(LaunchConfig{}, ArgSpan{args.data(), args.size()});
    ADD_FAILURE() << "expected an ArgumentError";
  } catch (const triton_jit::ArgumentError& e) {
    expect_contains(e.what(), "python_bad_warps_kernel: the @triton.heuristics value 'num_warps' returned 6");
    EXPECT_EQ(e.parameter(), "num_warps");
  }
  // The memoized value is checked again on the memo's answer.
  EXPECT_THROW(python.specialize(LaunchConfig{}, ArgSpan{args.data(), args.size()}), triton_jit::ArgumentError);
}

// Triton's args hold a launch option an earlier heuristic set; the runtime's hold parameters only,
// and a heuristic that reads one is an ArgumentError saying so (never another value than Triton's).
TEST(HeuristicOptions, ReadingALaunchOptionIsAClearError) {
  const std::vector<ArgValue> args = {ArgValue::pointer_address(kBase, DType::fp32), ArgValue::integer(10)};
  const Theirs theirs = triton_launch("reads_num_warps_kernel", args);
  ASSERT_FALSE(theirs.error) << theirs.message;
  EXPECT_EQ(theirs.specialization, "[('*fp32', 'D'), ('i32', ''), ('constexpr', 256)]");
  auto& fn = kernel("reads_num_warps_kernel");
  try {
    fn.specialize(LaunchConfig{}, ArgSpan{args.data(), args.size()});
    ADD_FAILURE() << "expected an ArgumentError";
  } catch (const triton_jit::ArgumentError& e) {
    expect_contains(e.what(), "the runtime passes a heuristic the function's parameters only, not the launch option "
                              "num_warps");
  }
}

// Refused at load where Triton's own call fails or the runtime would run otherwise than Triton.
TEST(HeuristicOptions, HeuristicsAboveAnAutotunerAndOtherCompileOptionsAreRefused) {
  const std::vector<ArgValue> args = {ArgValue::pointer_address(kBase, DType::fp32), ArgValue::integer(10)};
  const Theirs theirs = triton_launch("heuristics_above_autotune_kernel", args);
  ASSERT_TRUE(theirs.error);
  expect_contains(theirs.message, "multiple values for keyword argument 'num_warps'");
  try {
    kernel("heuristics_above_autotune_kernel");
    ADD_FAILURE() << "expected an ArgumentError";
  } catch (const triton_jit::ArgumentError& e) {
    expect_contains(e.what(), "sets the launch option 'num_warps' above the autotuner Autotuner");
  }
  try {
    kernel("maxnreg_kernel");
    ADD_FAILURE() << "expected an ArgumentError";
  } catch (const triton_jit::ArgumentError& e) {
    expect_contains(e.what(), "sets 'maxnreg', a compile option the runtime does not take from a heuristic");
  }
}

// The index and packs store a launch-option heuristic in the record a parameter's takes, with the
// parameter index -1 (records written before keep their bytes: tests/golden); -1 under another
// name, or below -1, is a damaged record.
TEST(HeuristicOptions, RecordsKeepTheLaunchOption) {
  using triton_jit::detail::BinaryReader;
  using triton_jit::detail::BinaryWriter;
  triton_jit::StaticSignature s = kernel("softmax_lambda_kernel").signature();
  BinaryWriter w;
  triton_jit::detail::write_signature(w, s);
  BinaryReader r(w.bytes());
  const triton_jit::StaticSignature back = triton_jit::detail::read_signature(r);
  ASSERT_EQ(back.decorators.size(), 1u);
  const auto& h = back.decorators[0].heuristics;
  ASSERT_EQ(h.size(), 4u);
  EXPECT_EQ(h[2].name, "num_warps");
  EXPECT_EQ(h[2].param, -1);
  EXPECT_EQ(h[2].option, triton_jit::HeuristicOption::NumWarps);
  EXPECT_EQ(h[3].option, triton_jit::HeuristicOption::NumStages);
  EXPECT_EQ(h[0].option, triton_jit::HeuristicOption::None);
  EXPECT_EQ(h[0].param, 4);
  EXPECT_EQ(h[2].program, s.decorators[0].heuristics[2].program);
  for (const char* bad : {"TILE_M", "maxnreg"}) {
    triton_jit::StaticSignature damaged = s;
    damaged.decorators[0].heuristics[2].name = bad;
    BinaryWriter wd;
    triton_jit::detail::write_signature(wd, damaged);
    BinaryReader rd(wd.bytes());
    EXPECT_THROW(triton_jit::detail::read_signature(rd), triton_jit::detail::FormatError) << bad;
  }
}

namespace {

class HeuristicOptionsLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("triton_jit_heuristic_options_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    triton_jit::set_index_dir((root_ / "index").string());
    fake::install();
    fake::state().launch_ms = 1.0;  // every config times alike: the tuner keeps the first
    fake::state().write_limit = uint64_t{1} << 20;
  }
  void TearDown() override {
    fake::uninstall();
    triton_jit::set_index_dir(std::nullopt);
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  fs::path root_;
};

}  // namespace

// Under an autotuner (FlagGems' softmax backward kernels): Autotuner.run passes the chosen
// config's num_warps and num_stages, and the heuristic below it overrides num_warps (reading the
// config's TILE_M); the launch has the heuristic's warps and the config's stages.
TEST_F(HeuristicOptionsLaunch, HeuristicUnderAnAutotunerOverridesTheConfigsNumWarps) {
  auto& fn = kernel("tuned_rows_kernel");
  std::mt19937_64 rng(5);
  for (int64_t n : {100, 3000, 5000}) {
    auto args = rows_args(rng, 64, n);
    args[0] = ArgValue::pointer_address(kBase, DType::fp32);
    args[1] = ArgValue::pointer_address(kBase + 0x100000, DType::fp32);
    const size_t before = fake::state().launches.size();
    fn.launch(LaunchConfig{Grid(64)}, ArgSpan{args.data(), args.size()});
    ASSERT_GT(fake::state().launches.size(), before);
    const fake::Launch& launch = fake::state().launches.back();
    const auto ours = fn.specialize(LaunchConfig{Grid(64)}, ArgSpan{args.data(), args.size()});
    const Theirs theirs = triton_launch("tuned_rows_kernel", args, 0);
    ASSERT_FALSE(theirs.error) << theirs.message;
    EXPECT_EQ(ours.triton_repr(), theirs.specialization) << "n=" << n;
    EXPECT_EQ(ours.num_warps, theirs.num_warps) << "n=" << n;
    EXPECT_EQ(ours.num_stages, theirs.num_stages) << "n=" << n;
    EXPECT_EQ(static_cast<int>(launch.block[0] / 32), theirs.num_warps) << "n=" << n;
    EXPECT_NE(theirs.num_warps, 2) << "the heuristic, not the config's 2";
  }
}

// Across processes: the values FlagGems' softmax heuristics gave through Python (num_warps among
// them) are stored in the index; a process that cannot run Python launches with them.
TEST(HeuristicOptionsStore, MemoizedLaunchOptionIsReadBackWithoutPython) {
  const fs::path root = fs::temp_directory_path() /
                        ("triton_jit_heuristic_options_store_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  test_support::write_unimportable_triton(root / "no_triton");
  const auto probe = [&](const std::string& env, const std::string& args) {
    return test_support::run_child("env TRITON_JIT_TEST_KEEP_INDEX_DIR=1 TRITON_JIT_INDEX_DIR='" +
                                   (root / "index").string() + "' " + env + " '" DECORATED_PROBE_PATH "' '" +
                                   test::canonical(test::kernel(kFile)) + "' softmax_inner_kernel " + args);
  };
  const std::string without_python = "TRITON_JIT_OFFLINE=1 PYTHONPATH='" + (root / "no_triton").string() + "'";
  const auto first = probe("", "p:fp32 p:fp32 i:8 i:3000");
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_EQ(first["num_warps"], "16") << first.output;  // TILE_N 4096
  const auto warm = probe(without_python, "p:fp32 p:fp32 i:8 i:3000");
  ASSERT_EQ(warm.status, 0) << warm.output;
  EXPECT_EQ(warm["spec"], first["spec"]);
  EXPECT_EQ(warm["num_warps"], "16");
  EXPECT_EQ(warm["python_used"], "0");
  const auto unseen = probe(without_python, "p:fp32 p:fp32 i:8 i:100000");
  EXPECT_EQ(unseen.status, 3) << unseen.output;
  expect_contains(unseen.output, "MissingKernelError");
  std::error_code ec;
  fs::remove_all(root, ec);
}

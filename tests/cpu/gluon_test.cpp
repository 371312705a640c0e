// Gluon kernels (@gluon.jit, tests/kernels/gluon_kernels.py) load, compile for explicit targets and
// persist like any kernel: an elementwise kernel and a row reduction over blocked layouts compile
// for sm_90 and sm_80 without a GPU, and a process without Python launches a Gluon kernel from the
// index or from a pack (store_probe, on the fake driver). Where the Triton the runtime uses cannot
// compile Gluon for a target (3.4), loading one is a clear error. The key and the compiled
// kernel against Triton's own JIT: spec_key_parity_test.cpp (GluonParity, CompileParity.Gluon*).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "../support/child_process.h"
#include "test_util.h"
#include "triton_jit/triton_jit.h"

namespace fs = std::filesystem;
using triton_jit::ArgValue;
using triton_jit::DType;
using triton_jit::TritonJitFunction;

namespace {

// Whether the runtime's Triton compiles Gluon for a given target: 3.5 and newer (versions.py,
// GLUON_MIN_VERSION).
bool triton_compiles_gluon() {
  int major = 0, minor = 0;
  std::sscanf(triton_jit::triton_version().c_str(), "%d.%d", &major, &minor);
  return major > 3 || (major == 3 && minor >= 5);
}

std::string gluon_file() { return test::canonical(test::kernel("gluon_kernels.py")); }

std::string no_gluon_here() {
  return "Triton " + triton_jit::triton_version() +
         " cannot compile Gluon for a target; Gluon.LoadsFromTriton35AndIsRefusedBefore checks its error";
}

TEST(Gluon, LoadsFromTriton35AndIsRefusedBefore) {
  if (!triton_compiles_gluon()) {
    try {
      TritonJitFunction::get(gluon_file(), "scale_add_kernel");
      FAIL() << "Triton " << triton_jit::triton_version() << " loaded a Gluon kernel it cannot compile";
    } catch (const triton_jit::KernelLookupError& e) {
      const std::string m = e.what();
      EXPECT_TRUE(test::contains(m, "'scale_add_kernel'")) << m;
      EXPECT_TRUE(test::contains(m, "is a @gluon.jit function")) << m;
      EXPECT_TRUE(
          test::contains(m, "Gluon kernels need Triton 3.5 or newer (installed: " + triton_jit::triton_version() + ")"))
          << m;
    }
    return;
  }
  auto& fn = TritonJitFunction::get(gluon_file(), "scale_add_kernel");
  const auto& params = fn.signature().params;
  ASSERT_EQ(params.size(), 8u);
  EXPECT_EQ(params[0].name, "x_ptr");
  EXPECT_FALSE(params[4].is_constexpr);
  EXPECT_TRUE(params[5].is_constexpr);  // BLOCK: gl.constexpr
  EXPECT_TRUE(params[7].is_constexpr);
  EXPECT_TRUE(fn.signature().decorators.empty());
}

TEST(Gluon, ElementwiseAndReductionCompileForExplicitTargets) {
  if (!triton_compiles_gluon()) GTEST_SKIP() << no_gluon_here();
  auto& scale_add = TritonJitFunction::get(gluon_file(), "scale_add_kernel");
  auto& row_sum = TritonJitFunction::get(gluon_file(), "row_sum_kernel");
  // The signatures of these calls, as a launch builds them:
  const std::vector<ArgValue> add_args = {test::ptr(0x1000),       test::ptr(0x2000),       test::ptr(0x3000),
                                          ArgValue::integer(5000), ArgValue::floating(0.5), ArgValue::integer(1024),
                                          ArgValue::integer(8),    ArgValue::integer(4)};
  const std::string add_signature = scale_add.specialize(test::config(), test::span(add_args)).signature();
  EXPECT_EQ(add_signature, "*fp32:16,*fp32:16,*fp32:16,i32,fp32,1024,8,4");
  const std::vector<ArgValue> sum_args = {
      test::ptr(0x1000, DType::fp16), test::ptr(0x2000),     ArgValue::integer(300), ArgValue::integer(1024),
      ArgValue::integer(1024),        ArgValue::integer(16), ArgValue::integer(64),  ArgValue::integer(4)};
  const std::string sum_signature = row_sum.specialize(test::config(), test::span(sum_args)).signature();
  EXPECT_EQ(sum_signature, "*fp16:16,*fp32:16,i32,i32:16,i32:16,16,64,4");
  for (const char* target : {"cuda:90", "cuda:80"}) {
    SCOPED_TRACE(target);
    for (const auto& [fn, signature, name] : {std::tuple{&scale_add, add_signature, "scale_add_kernel"},
                                              std::tuple{&row_sum, sum_signature, "row_sum_kernel"}}) {
      SCOPED_TRACE(name);
      triton_jit::CompileRequest request{signature};
      request.target = triton_jit::Target::parse(target);
      const triton_jit::KernelInfo k = fn->compile(request);
      EXPECT_EQ(k.name, name);
      EXPECT_EQ(k.target.str(), target);
      EXPECT_EQ(k.num_warps, 4);
      ASSERT_GE(k.cubin.size(), 4u);
      EXPECT_EQ(k.cubin.substr(0, 4), "\x7f"
                                      "ELF");
    }
  }
  // A launch's compile (the default target without a device: cuda:90) is the same kernel.
  triton_jit::CompileRequest request{add_signature};
  request.target = triton_jit::Target::parse("cuda:90");
  EXPECT_EQ(scale_add.compile(test::config(), test::span(add_args)).hash, scale_add.compile(request).hash);
}

// A scratch folder holding a copy of gluon_kernels.py, an index, and a `triton` that fails to
// import, as in store_test.cpp.
class GluonStore : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("triton_jit_gluon_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    fs::copy_file(test::kernel("gluon_kernels.py"), root_ / "src" / "gluon_kernels.py");
    test_support::write_unimportable_triton(root_ / "no_triton");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  std::string kernel_file() const { return (root_ / "src" / "gluon_kernels.py").string(); }
  std::string no_python() const { return "PYTHONPATH='" + (root_ / "no_triton").string() + "'"; }
  // store_probe launches gluon_add(x, y, out, 1000, BLOCK) on the fake driver with the index `index`.
  test_support::ChildRun probe(const std::string& env, const std::string& index, const std::string& args = "") const {
    return test_support::run_child("env TRITON_JIT_TEST_KEEP_INDEX_DIR=1 TRITON_JIT_INDEX_DIR='" +
                                   (root_ / index).string() + "' " + env + " '" STORE_PROBE_PATH "' '" + kernel_file() +
                                   "' gluon_add --block 512 " + args);
  }
  fs::path root_;
};

TEST_F(GluonStore, AProcessWithoutPythonLaunchesItFromTheIndexAndFromAPack) {
  if (!triton_compiles_gluon()) GTEST_SKIP() << no_gluon_here();
  const auto compiled = probe("", "index");
  ASSERT_EQ(compiled.status, 0) << compiled.output;
  EXPECT_EQ(compiled["compiles"], "1");
  EXPECT_EQ(compiled["kernel"], "gluon_add");

  const auto warm = probe(no_python(), "index");
  ASSERT_EQ(warm.status, 0) << warm.output;
  EXPECT_EQ(warm["index_hits"], "1");
  EXPECT_EQ(warm["compiles"], "0");
  EXPECT_EQ(warm["python_used"], "0");
  EXPECT_EQ(warm["cubin_sha256"], compiled["cubin_sha256"]);

  std::ofstream(root_ / "manifest.txt") << "src/gluon_kernels.py:gluon_add *fp32:16,*fp32:16,*fp32:16,i32,512 "
                                           "num_warps=4 target=cuda:90\n";
  const std::string pack = (root_ / "gluon.tjp").string();
  triton_jit::PrepareOptions quiet;
  quiet.progress = triton_jit::Progress::Never;
  EXPECT_EQ(triton_jit::build_pack((root_ / "manifest.txt").string(), pack, quiet).kernels, 1u);
  const auto packed = probe(no_python(), "empty_index", "--pack '" + pack + "'");
  ASSERT_EQ(packed.status, 0) << packed.output;
  EXPECT_EQ(packed["pack_hits"], "1");
  EXPECT_EQ(packed["compiles"], "0");
  EXPECT_EQ(packed["python_used"], "0");
  EXPECT_EQ(packed["cubin_sha256"], compiled["cubin_sha256"]);
}

}  // namespace

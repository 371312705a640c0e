// Runtime settings: the compile log (one line per compile, silent by default and on hits) and the
// explicit target. Keys (BLOCK values) are this file's own, so each compile here is a real miss.
#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

using triton_jit::LogLevel;
using triton_jit::Target;
using triton_jit::TritonJitFunction;

namespace {

std::vector<triton_jit::ArgValue> add_args(int block) {
  return {test::ptr(0x100000), test::ptr(0x200000), test::ptr(0x300000), triton_jit::to_arg(1000),
          triton_jit::to_arg(block)};
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class LogTest : public ::testing::Test {
 protected:
  void TearDown() override { triton_jit::set_log_level(LogLevel::Off); }
};

TEST_F(LogTest, SilentByDefault) {
  EXPECT_EQ(triton_jit::log_level(), LogLevel::Off);  // TRITON_JIT_LOG is unset in the tests
  ::testing::internal::CaptureStderr();
  test::add_kernel().compile(test::config(), test::span(add_args(2048)));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST_F(LogTest, InfoLogsOneLinePerCompileAndNothingOnHits) {
  triton_jit::set_log_level(LogLevel::Info);
  const auto args = add_args(4096);
  ::testing::internal::CaptureStderr();
  test::add_kernel().compile(test::config(), test::span(args));
  test::add_kernel().compile(test::config(), test::span(args));  // a hit: no line
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "\n"), 1) << log;
  EXPECT_EQ(count(log, "[triton_jit] compiled add_kernel [*fp32:16,*fp32:16,*fp32:16,i32,4096] num_warps=4 "
                       "num_stages=3 num_ctas=1 for cuda:"),
            1)
      << log;
  EXPECT_NE(log.find(" ms\n"), std::string::npos) << log;
}

class TargetTest : public ::testing::Test {
 protected:
  void TearDown() override { triton_jit::set_target(std::nullopt); }
};

TEST_F(TargetTest, ExplicitTargetIsCompiledForAndKeyedSeparately) {
  const auto args = add_args(8192);
  triton_jit::set_target(Target::parse("cuda:80"));
  const triton_jit::KernelInfo& k80 = test::add_kernel().compile(test::config(), test::span(args));
  EXPECT_EQ(k80.target.arch, 80);
  EXPECT_EQ(test::add_kernel().specialize(test::config(), test::span(args)).target, "cuda:80");
  triton_jit::set_target(Target::parse("cuda:90"));
  const triton_jit::KernelInfo& k90 = test::add_kernel().compile(test::config(), test::span(args));
  EXPECT_EQ(k90.target.arch, 90);
  EXPECT_NE(&k80, &k90);
  EXPECT_NE(k80.cubin, k90.cubin);
}

TEST(TargetParse, RejectsMalformedTargets) {
  EXPECT_EQ(Target::parse("cuda:90:32").warp_size, 32);
  for (const char* bad : {"cuda", "cuda:", "cuda:ninety", "cuda:90x", "hip:90", ":90", "cuda:0"}) {
    EXPECT_THROW(Target::parse(bad), triton_jit::Error) << bad;
  }
}

// A warp size the hardware does not have was recorded as given (cuda:90:33), and a launch
// would size its blocks by it.
TEST(TargetParse, RejectsWarpSizesTheBackendDoesNotCompile) {
  for (const char* bad : {"cuda:90:33", "cuda:80:64", "cuda:90:16", "hip:gfx942:32", "hip:gfx1100:64"}) {
    try {
      Target::parse(bad);
      ADD_FAILURE() << bad << " parsed";
    } catch (const triton_jit::Error& e) {
      EXPECT_NE(std::string(e.what()).find("warp size"), std::string::npos) << e.what();
    }
  }
  try {
    Target::parse("cuda:90:33");
  } catch (const triton_jit::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "invalid target 'cuda:90:33': CUDA's warp size is 32, got 33 (write cuda:90 or cuda:90:32)");
  }
  EXPECT_EQ(Target::parse("hip:gfx942:64").warp_size, 64);
  EXPECT_EQ(Target::parse("hip:gfx1100:32").warp_size, 32);
}

}  // namespace

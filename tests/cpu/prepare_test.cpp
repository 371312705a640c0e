// prepare(): parallel compiles in worker processes, the progress bar, and launches during CUDA
// graph capture (fake driver) that must never compile.
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "bridge/interpreter.h"
#include "fake_driver.h"
#include "test_util.h"
#include "triton_jit/triton_jit.h"

namespace {

using triton_jit::Grid;

// Whether the Python the compile workers run has torch: a torch-spelled dtype needs it.
bool torch_importable() {
  triton_jit::bridge::GilGuard gil;
  triton_jit::bridge::bridge();
  return !pybind11::module_::import("importlib.util").attr("find_spec")("torch").is_none();
}
using triton_jit::LaunchConfig;

const float* const kX = reinterpret_cast<const float*>(0x10000);
const float* const kY = reinterpret_cast<const float*>(0x20000);
float* const kOut = reinterpret_cast<float*>(0x30000);

class PrepareTest : public ::testing::Test {
 protected:
  void SetUp() override { fake::install(); }
  void TearDown() override { fake::uninstall(); }

  // A kernel file of its own per test, so no other test's kernels are in memory.
  const triton_jit::TritonJitFunction& function(const std::string& file) {
    return triton_jit::TritonJitFunction::get(test::kernel(file), file == "add.py" ? "add_kernel" : "dns_kernel");
  }
  std::vector<triton_jit::KernelRequest> add_requests(const triton_jit::TritonJitFunction& fn,
                                                      std::vector<int> blocks) {
    std::vector<triton_jit::KernelRequest> out;
    for (int b : blocks) out.push_back(triton_jit::request(fn, LaunchConfig{Grid(1)}, kX, kY, kOut, 1000, b));
    return out;
  }
};

TEST_F(PrepareTest, CompilesInParallelProcessesThenLaunchesOnlyHit) {
  const auto& fn = function("add.py");
  triton_jit::PrepareOptions options;
  options.jobs = 2;
  options.progress = triton_jit::Progress::Never;
  ::testing::internal::CaptureStderr();
  const triton_jit::PrepareReport r = triton_jit::prepare(add_requests(fn, {32, 64, 128, 256, 64}), options);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // quiet
  EXPECT_EQ(r.requested, 4u);                               // the repeated 64 counts once
  EXPECT_EQ(r.compiled, 4u);
  EXPECT_EQ(r.workers, 2);
  EXPECT_EQ(fn.stats().compiles, 4u);
  EXPECT_EQ(fake::state().module_loads, 4);  // loaded ahead, too

  const auto before = fn.stats();
  for (int b : {32, 64, 128, 256}) fn(LaunchConfig{Grid(8)}, kX, kY, kOut, 1000, b);
  EXPECT_EQ(fn.stats().misses, before.misses);
  EXPECT_EQ(fn.stats().hits, before.hits + 4);
  EXPECT_EQ(fake::state().module_loads, 4);
  ASSERT_EQ(fake::state().launches.size(), 4u);
  EXPECT_EQ(fake::state().launches[3].grid[0], 8u);

  // Asking again finds everything in memory.
  const triton_jit::PrepareReport again = triton_jit::prepare(add_requests(fn, {32, 256}), options);
  EXPECT_EQ(again.in_memory, 2u);
  EXPECT_EQ(again.compiled, 0u);
  EXPECT_EQ(again.workers, 0);
}

TEST_F(PrepareTest, DrawsAProgressBarWhenAsked) {
  const auto& fn = function("add.py");
  triton_jit::PrepareOptions options;
  options.jobs = 1;
  options.progress = triton_jit::Progress::Always;
  ::testing::internal::CaptureStderr();
  const triton_jit::PrepareReport r = triton_jit::prepare(add_requests(fn, {512, 1024}), options);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.compiled, 2u);
  EXPECT_EQ(r.workers, 1);
  EXPECT_NE(err.find("[triton_jit] prepare [------------------------]   0/2"), std::string::npos) << err;
  EXPECT_NE(err.find("[triton_jit] prepare [########################]   2/2"), std::string::npos) << err;
  EXPECT_NE(err.find("add_kernel"), std::string::npos) << err;
}

TEST_F(PrepareTest, DTypeConstexprsFromSignatureTextAndFromCalls) {
  const auto& fn = triton_jit::TritonJitFunction::get(test::kernel("dtype_constexpr.py"), "scale_kernel");
  std::vector<triton_jit::KernelRequest> requests;
  // Triton's signature syntax (tl. abbreviates triton.language.), and the key of a call.
  requests.push_back({&fn, "*fp32:16,i32,tl.float16,triton.language.float32,128"});
  requests.push_back(triton_jit::request(fn, LaunchConfig{Grid(1)}, kX, 100, triton_jit::DType::bf16));
  const bool torch = torch_importable();
  if (torch) requests.push_back({&fn, "*fp32:16,i32,torch.float16,triton.language.float32,128"});
  triton_jit::PrepareOptions options;
  options.jobs = 2;
  options.progress = triton_jit::Progress::Never;
  const triton_jit::PrepareReport r = triton_jit::prepare(requests, options);
  EXPECT_EQ(r.compiled, requests.size());
  // Launches of those keys only hit.
  const auto before = fn.stats();
  fn(LaunchConfig{Grid(2)}, kX, 100, triton_jit::DType::fp16);
  fn(LaunchConfig{Grid(2)}, kX, 100, triton_jit::DType::bf16, triton_jit::DType::fp32);
  if (torch) fn(LaunchConfig{Grid(2)}, kX, 100, triton_jit::TorchDType{triton_jit::DType::fp16});
  EXPECT_EQ(fn.stats().misses, before.misses);
  EXPECT_EQ(fn.stats().hits, before.hits + (torch ? 3 : 2));
  EXPECT_EQ(fake::state().launches.size(), torch ? 3u : 2u);
  // A dtype for a runtime parameter is no call's key.
  EXPECT_THROW(triton_jit::prepare({{&fn, "*fp32:16,triton.language.int32,tl.float16,tl.float32,128"}}, options),
               triton_jit::ArgumentError);
}

TEST_F(PrepareTest, ASignatureNoCallProducesIsRejected) {
  const auto& fn = function("do_not_specialize.py");
  triton_jit::KernelRequest r;
  r.function = &fn;
  // b is do_not_specialize: a call never marks it divisible by 16.
  r.signature = "*fp32:16,i32:16,i32,i32,*fp32:16,i32,64";
  try {
    triton_jit::prepare({r});
    FAIL() << "accepted";
  } catch (const triton_jit::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("no call specializes as"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("*fp32:16,i32,"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fn.stats().compiles, 0u);
  r.signature = "*fp32:16,i32";
  EXPECT_THROW(triton_jit::prepare({r}), triton_jit::ArgumentError);
}

TEST_F(PrepareTest, ALaunchDuringCaptureNeverCompilesAndSaysToPrepare) {
  const auto& fn = function("add.py");
  const uint64_t compiles = fn.stats().compiles;  // earlier tests in this process compiled other keys
  fake::state().capture_status = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  try {
    fn(LaunchConfig{Grid(1)}, kX, kY, kOut, 1000, 2048);
    FAIL() << "launched an unprepared kernel during capture";
  } catch (const triton_jit::MissingKernelError& e) {
    EXPECT_NE(std::string(e.what()).find("captured into a CUDA graph"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("triton_jit::prepare()"), std::string::npos) << e.what();
    EXPECT_NE(e.manifest_line().find("add_kernel *fp32:16,*fp32:16,*fp32:16,i32,2048"), std::string::npos)
        << e.manifest_line();
  }
  EXPECT_EQ(fn.stats().compiles, compiles);
  EXPECT_TRUE(fake::state().launches.empty());
  EXPECT_TRUE(fake::state().allocs.empty());

  fake::state().capture_status = CU_STREAM_CAPTURE_STATUS_NONE;
  triton_jit::PrepareOptions options;
  options.progress = triton_jit::Progress::Never;
  triton_jit::prepare(add_requests(fn, {2048}), options);
  fake::state().capture_status = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  fn(LaunchConfig{Grid(1)}, kX, kY, kOut, 1000, 2048);
  EXPECT_EQ(fake::state().launches.size(), 1u);
}

}  // namespace

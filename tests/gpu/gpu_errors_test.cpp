// Errors that need a device: a grid over the device's limits (LaunchConfigError) and a binary
// built for another architecture (ArchitectureMismatchError). The runtime stays usable after both.
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_util.h"

namespace {

using namespace gpu_test;

class GpuErrors : public GpuTest {};
using triton_jit::LaunchConfig;
using triton_jit::TritonJitFunction;

// Launches add_kernel correctly and checks it: the runtime still works after an error.
void expect_add_works(TritonJitFunction& add, const std::string& what) {
  const int n = 5003;
  std::vector<float> x(n), y(n);
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<int> dist(-100, 100);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(dist(rng));
    y[i] = static_cast<float>(dist(rng));
  }
  DeviceBuffer<float> dx(n), dy(n), dout(n);
  dx.upload(x);
  dy.upload(y);
  dout.poison();
  add(LaunchConfig{{cdiv(n, 1024)}, 4}, dx.get(), dy.get(), dout.get(), n, 1024);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> out = dout.download();
  Mismatches bad(what);
  for (int i = 0; i < n; ++i) {
    if (!(out[i] == x[i] + y[i])) bad.add(i, fmt(out[i]) + ", want " + fmt(x[i] + y[i]));
  }
  EXPECT_EQ(bad.count(), 0u) << bad.report(n);
}

TEST_F(GpuErrors, GridOverDeviceLimitsIsLaunchConfigError) {
  auto& add = TritonJitFunction::get(add_kernel_path(), "add_kernel");
  DeviceBuffer<float> buf(1024);
  const int max_x = device_attribute(cudaDevAttrMaxGridDimX);
  const int max_y = device_attribute(cudaDevAttrMaxGridDimY);
  const int max_z = device_attribute(cudaDevAttrMaxGridDimZ);
  const triton_jit::Grid bad_grids[] = {
      triton_jit::Grid(int64_t{max_x} + 1),
      triton_jit::Grid(1, int64_t{max_y} + 1),
      triton_jit::Grid(1, 1, int64_t{max_z} + 1),
      triton_jit::Grid(int64_t{1} << 40),
      triton_jit::Grid(-1),
  };
  for (const triton_jit::Grid& g : bad_grids) {
    const std::string where = "grid (" + std::to_string(g.x) + ", " + std::to_string(g.y) + ", " + std::to_string(g.z) +
                              ")";
    SCOPED_TRACE(where);
    LaunchConfig config;
    config.grid = g;
    try {
      add(config, buf.get(), buf.get(), buf.get(), 1024, 1024);
      ADD_FAILURE() << where << " launched without an error";
    } catch (const triton_jit::LaunchConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("grid"), std::string::npos) << e.what();
    }
  }
  // With num_ctas=2 the driver's grid is twice the programs: half the limit is already over it.
  if (device_arch() >= 90) {
    LaunchConfig config;
    config.grid = triton_jit::Grid(int64_t{max_x} / 2 + 1);
    config.num_ctas = 2;
    EXPECT_THROW(add(config, buf.get(), buf.get(), buf.get(), 1024, 1024), triton_jit::LaunchConfigError);
  }
  // A grid of zero programs launches nothing and is no error, as in Triton.
  LaunchConfig empty;
  empty.grid = triton_jit::Grid(0);
  EXPECT_NO_THROW(add(empty, buf.get(), buf.get(), buf.get(), 1024, 1024));
  CUDA_CHECK(cudaDeviceSynchronize());
  expect_add_works(add, "add_kernel after grid errors");
}

TEST_F(GpuErrors, KernelForAnotherArchitectureIsArchitectureMismatchError) {
  const int arch = device_arch();
  const int other = arch == 80 ? 90 : 80;
  auto& add = TritonJitFunction::get(add_kernel_path(), "add_kernel");
  DeviceBuffer<float> buf(4096);
  triton_jit::set_target(triton_jit::Target{"cuda", other, 32});
  struct Restore {
    ~Restore() { triton_jit::set_target(std::nullopt); }
  } restore;
  try {
    add(LaunchConfig{{4}, 4}, buf.get(), buf.get(), buf.get(), 4096, 1024);
    ADD_FAILURE() << "a kernel compiled for sm_" << other << " launched on an sm_" << arch << " device";
  } catch (const triton_jit::ArchitectureMismatchError& e) {
    std::printf("ArchitectureMismatchError as expected: %s\n", e.what());
    const std::string what = e.what();
    EXPECT_NE(what.find("sm_" + std::to_string(other)), std::string::npos) << what;
    EXPECT_NE(what.find("sm_" + std::to_string(arch)), std::string::npos) << what;
  }
  // Again: the failed kernel stays cached for the other target and fails the same way.
  EXPECT_THROW(add(LaunchConfig{{4}, 4}, buf.get(), buf.get(), buf.get(), 4096, 1024),
               triton_jit::ArchitectureMismatchError);
  triton_jit::set_target(std::nullopt);
  EXPECT_FALSE(triton_jit::explicit_target().has_value());
  expect_add_works(add, "add_kernel after set_target(std::nullopt)");
}

}  // namespace

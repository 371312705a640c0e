// A config pre_hook that sets the block shape of host tensor descriptors (tests/kernels/host_tma_mm.py,
// written as FlagGems 5.0.2's mm_kernel_general_host_tma with matmul_tma_set_block_size_hook):
// the hook gets Triton's own TensorDescriptor objects, and what it sets is written back into the
// call's descriptor arguments before the key is built, so the key is Triton's (its Autotuner runs
// the hook on nargs, then its binder reads the changed descriptors:
// tests/support/host_tma_reference.py), and the launch encodes the CUtensorMap with the hook's
// block (fake driver, sm_90).
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "../support/python_reference.h"
#include "bridge/interpreter.h"
#include "fake_driver.h"
#include "test_util.h"
#include "triton_jit/triton_jit.h"

namespace py = pybind11;
using triton_jit::ArgValue;
using triton_jit::DType;
using triton_jit::LaunchConfig;
using triton_jit::TensorDescriptor;
using triton_jit::TritonJitFunction;
using triton_jit::TypedPtr;

namespace {

namespace fs = std::filesystem;

constexpr int64_t kM = 256, kN = 128, kK = 192;
constexpr uintptr_t kA = 0x7f0000100000, kB = 0x7f0000200000, kC = 0x7f0000300000;

std::string kernels() { return test::canonical(test::kernel("host_tma_mm.py")); }

TritonJitFunction& mm(const std::string& name) { return TritonJitFunction::get(kernels(), name); }

TypedPtr at(uintptr_t address) { return TypedPtr{reinterpret_cast<const void*>(address), DType::fp16}; }

// FlagGems' call: row-major A [M, K], B [K, N], C [M, N], each with the dummy [1, 1] block.
struct Call {
  TensorDescriptor a = TensorDescriptor::make(at(kA), {kM, kK}, {kK, 1}, {1, 1});
  TensorDescriptor b = TensorDescriptor::make(at(kB), {kK, kN}, {kN, 1}, {1, 1});
  TensorDescriptor c = TensorDescriptor::make(at(kC), {kM, kN}, {kN, 1}, {1, 1});
};

LaunchConfig flaggems_grid() {
  LaunchConfig config;
  config.grid_fn = [](const triton_jit::GridMeta& meta) {
    return triton_jit::Grid(triton_jit::cdiv(kM, meta["BLOCK_M"]) * triton_jit::cdiv(kN, meta["BLOCK_N"]));
  };
  return config;
}

py::module_& host_tma_reference() { return triton_jit::test::support_module("host_tma_reference"); }

// tests/kernels/host_tma_mm.py imported by Python on its own.
py::object python_kernel(const std::string& name) {
  return triton_jit::test::file_module(kernels(), "host_tma_mm_reference").attr(name.c_str());
}

// Triton's key for config `config` of autotuner `name`, and the block shapes its hook left.
std::pair<std::string, std::vector<std::vector<int>>> triton_key(const std::string& name, size_t config) {
  triton_jit::bridge::GilGuard gil;
  auto desc = [](uintptr_t address, int64_t rows, int64_t cols) {
    return py::make_tuple(py::int_(address), "fp16", std::vector<int64_t>{rows, cols}, std::vector<int64_t>{cols, 1},
                          std::vector<int>{1, 1});
  };
  py::list descs = host_tma_reference().attr("descriptors")(desc(kA, kM, kK), desc(kB, kK, kN), desc(kC, kM, kN));
  py::list args = descs;
  args.append(kM);
  args.append(kN);
  args.append(kK);
  py::dict kwargs;
  kwargs["GROUP_M"] = 8;
  kwargs["A_ROW_MAJOR"] = true;
  kwargs["B_ROW_MAJOR"] = true;
  py::tuple r = host_tma_reference().attr("hooked_specialization")(python_kernel(name), config, args, kwargs);
  return {r[0].cast<std::string>(), r[1].cast<std::vector<std::vector<int>>>()};
}

std::string key_of(const std::string& name, const Call& call) {
  return mm(name).specialize(flaggems_grid(), call.a, call.b, call.c, kM, kN, kK, 8, true, true).triton_repr();
}

class HostTmaHook : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("triton_jit_host_tma_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    triton_jit::set_index_dir(root_.string());
  }
  void TearDown() override {
    triton_jit::set_index_dir(std::nullopt);
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  fs::path root_;
};

}  // namespace

// Each config's key: the block shape its pre_hook set on the descriptors, as Triton binds it (the
// caller's dummy [1, 1] block never reaches the key); the caller's descriptors stay as they were.
TEST_F(HostTmaHook, EachConfigsKeyIsTritonsAfterItsPreHook) {
  const Call call;
  std::set<std::string> keys;
  for (size_t i = 0; i < 3; ++i) {
    const std::string name = "host_tma_mm_c" + std::to_string(i);
    const std::string ours = key_of(name, call);
    const auto [theirs, blocks] = triton_key(name, 0);
    EXPECT_EQ(ours, theirs) << name;
    EXPECT_EQ(ours.find("[1, 1]"), std::string::npos) << ours;
    ASSERT_EQ(blocks.size(), 3u);
    const std::string a_block = "tensordesc<fp16[" + std::to_string(blocks[0][0]) + ", " +
                                std::to_string(blocks[0][1]) + "]>";
    EXPECT_NE(ours.find(a_block), std::string::npos) << ours << " lacks " << a_block;
    keys.insert(ours);
  }
  EXPECT_EQ(keys.size(), 3u);
  EXPECT_EQ(call.a.block_shape[0], 1);  // the caller's own descriptor is not written
  EXPECT_EQ(call.c.block_shape[1], 1);
}

// A hook that leaves something that is not a descriptor: an ArgumentError naming the parameter.
TEST_F(HostTmaHook, HookLeavingABadBlockShapeIsAnArgumentError) {
  const Call call;
  try {
    mm("host_tma_mm_bad_hook").specialize(flaggems_grid(), call.a, call.b, call.c, kM, kN, kK, 8, true, true);
    ADD_FAILURE() << "a block shape of 48 was accepted";
  } catch (const triton_jit::ArgumentError& e) {
    EXPECT_EQ(e.parameter(), "a_desc");
    EXPECT_NE(std::string(e.what()).find("powers of 2"), std::string::npos) << e.what();
  }
}

class HostTmaHookLaunch : public HostTmaHook {
 protected:
  void SetUp() override {
    HostTmaHook::SetUp();
    fake::install();
    fake::state().launch_ms = 10.0;
  }
  void TearDown() override {
    fake::uninstall();
    HostTmaHook::TearDown();
  }
};

// Tuned over three configs on the fake driver: each timed config's maps are encoded with its own
// hook's block, the chosen config's key is Triton's for it, and its launches (the first, which
// tuned, and a cached one) encode the chosen block.
TEST_F(HostTmaHookLaunch, TunedLaunchKeysAndEncodesTheHooksBlockShape) {
  const Call call;
  auto& fn = mm("host_tma_mm");
  fn(flaggems_grid(), call.a, call.b, call.c, kM, kN, kK, 8, true, true);
  EXPECT_EQ(fn.stats().tunings, 1u);
  const auto tuning = fn.last_tuning();
  ASSERT_EQ(tuning.size(), 1u);
  const size_t chosen = tuning[0].chosen;
  for (const auto& row : tuning[0].rows) EXPECT_TRUE(row.failure.empty()) << row.config << ": " << row.failure;
  const auto [theirs, blocks] = triton_key("host_tma_mm", chosen);
  EXPECT_EQ(key_of("host_tma_mm", call), theirs);

  // Every config was timed with the maps its hook asked for (A's box is [BLOCK_K, BLOCK_M],
  // innermost first).
  std::set<std::vector<uint32_t>> a_boxes;
  for (const auto& e : fake::state().encodes) {
    if (e.base == kA) a_boxes.insert(e.box);
  }
  EXPECT_EQ(a_boxes, (std::set<std::vector<uint32_t>>{{32, 64}, {16, 32}, {64, 16}}));

  fake::state().encodes.clear();
  const size_t launches = fake::state().launches.size();
  fn(flaggems_grid(), call.a, call.b, call.c, kM, kN, kK, 8, true, true);
  EXPECT_EQ(fake::state().launches.size(), launches + 1);
  EXPECT_EQ(fn.stats().tunings, 1u);
  // The cached launch: its maps (reused or encoded) have the chosen block; a new encode shows it.
  fake::state().encodes.clear();
  Call moved;
  moved.a.base.ptr = reinterpret_cast<const void*>(kA + 0x100000);
  fn(flaggems_grid(), moved.a, moved.b, moved.c, kM, kN, kK, 8, true, true);
  ASSERT_FALSE(fake::state().encodes.empty());
  const auto& e = fake::state().encodes.front();
  EXPECT_EQ(e.base, kA + 0x100000);
  EXPECT_EQ(e.box, (std::vector<uint32_t>{static_cast<uint32_t>(blocks[0][1]), static_cast<uint32_t>(blocks[0][0])}));
}

// Under FlagGems' @libentry() (FlagGems 5.0.2's own LibEntry, tests/kernels/host_tma_libentry.py):
// the first call of a key tunes and freezes the chosen config with its pre_hook; a later call of
// the key (a frozen hit, no tuning) runs that hook again, so its key and its maps have the hook's
// block, not the caller's dummy [1, 1].
TEST_F(HostTmaHookLaunch, LibEntryFrozenHitRunsTheHookBeforeTheKey) {
  host_tma_reference();  // tests/support on sys.path: the kernel module imports flaggems_libentry
  const std::string path = test::canonical(test::kernel("host_tma_libentry.py"));
  auto& fn = TritonJitFunction::get(path, "host_tma_mm_libentry");
  // Bases no other test used: this thread's encoded maps are reused for equal inputs.
  Call call;
  for (TensorDescriptor* d : {&call.a, &call.b, &call.c}) {
    d->base.ptr = static_cast<const char*>(d->base.ptr) + 0x4000000;
  }
  fn(flaggems_grid(), call.a, call.b, call.c, kM, kN, kK, 8, true, true);
  EXPECT_EQ(fn.stats().tunings, 1u);
  const auto tuning = fn.last_tuning();
  ASSERT_EQ(tuning.size(), 1u);
  const size_t chosen = tuning[0].chosen;
  const uint64_t compiles = fn.stats().compiles;

  const size_t first_encodes = fake::state().encodes.size(), first_launches = fake::state().launches.size();
  EXPECT_GT(first_encodes, 0u);
  fake::state().encodes.clear();
  Call moved = call;  // another base: the frozen hit's maps are encoded anew
  moved.a.base.ptr = reinterpret_cast<const void*>(kA + 0x8000000);
  fn(flaggems_grid(), moved.a, moved.b, moved.c, kM, kN, kK, 8, true, true);
  EXPECT_EQ(fn.stats().tunings, 1u);
  EXPECT_EQ(fn.stats().compiles, compiles) << "the frozen hit compiled another kernel";
  EXPECT_EQ(fake::state().launches.size(), first_launches + 1);
  ASSERT_FALSE(fake::state().encodes.empty());
  const auto [theirs, blocks] = triton_key("host_tma_mm", chosen);
  EXPECT_EQ(fake::state().encodes.front().box,
            (std::vector<uint32_t>{static_cast<uint32_t>(blocks[0][1]), static_cast<uint32_t>(blocks[0][0])}));
  EXPECT_EQ(fn.specialize(flaggems_grid(), call.a, call.b, call.c, kM, kN, kK, 8, true, true).triton_repr(), theirs);
}

// @triton.autotune's Python hooks (pre_hook, post_hook, triton.Config(pre_hook=...)) run from C++
// on the fake driver, against Triton's own Autotuner.run on the same arguments
// (tests/support/triton_reference.py: each config timed by one call, launches recorded); and
// prepare() tuning an autotuned function so that a launch during graph capture needs no tuning.
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "../support/python_reference.h"
#include "bridge/interpreter.h"
#include "fake_driver.h"
#include "test_util.h"
#include "triton_jit/triton_jit.h"

namespace py = pybind11;
using triton_jit::ArgSpan;
using triton_jit::ArgValue;
using triton_jit::DType;
using triton_jit::LaunchConfig;
using triton_jit::TritonJitFunction;

namespace {

namespace fs = std::filesystem;

using triton_jit::test::triton_reference;

// tests/kernels/decorated_hooks.py imported by Python on its own (the runtime has its own copy).
py::object python_function(const char* function) {
  return triton_jit::test::file_module(test::canonical(test::kernel("decorated_hooks.py")), "hooks_reference")
      .attr(function);
}

TritonJitFunction& hooked(const char* function) {
  return TritonJitFunction::get(test::canonical(test::kernel("decorated_hooks.py")), function);
}

constexpr uint64_t kX = 0x7f0000100000ull, kOut = 0x7f0000200000ull;

class AutotuneHooks : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("triton_jit_hooks_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    triton_jit::set_index_dir(root_.string());  // choices of this test only
    fake::install();
    fake::state().launch_ms = 10.0;  // a few timed runs per config
    fake::state().write_limit = uint64_t{1} << 20;
  }
  void TearDown() override {
    fake::uninstall();
    triton_jit::set_index_dir(std::nullopt);
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // Hooks report to the recorder, and each report is placed among the fake driver's ops.
  static void record_hooks() {
    triton_jit::bridge::GilGuard gil;
    triton_reference().attr("install_hook_recorder")(py::cpp_function([] { fake::note("hook"); }));
  }

  // This process's hook calls and launches since record_hooks(), in order, as the reference
  // writes them.
  static std::vector<std::string> events() {
    std::vector<std::string> hooks;
    {
      triton_jit::bridge::GilGuard gil;
      hooks = triton_reference().attr("hook_events")().cast<std::vector<std::string>>();
    }
    std::vector<std::string> out;
    size_t h = 0, l = 0;
    for (const fake::Op& op : fake::state().ops) {
      if (op.kind == "hook" && h < hooks.size()) out.push_back(hooks[h++]);
      if (op.kind == "launch") {
        const fake::Launch& launch = fake::state().launches.at(l++);
        out.push_back("launch(num_warps=" + std::to_string(launch.block[0] / 32) + ")");
      }
    }
    return out;
  }

  fs::path root_;
};

// A timed config runs many times here and once in the reference: consecutive repeats of one
// timed run (events up to its post_hook, or up to its launch when there is none) count once.
std::vector<std::string> collapse_repeats(const std::vector<std::string>& events) {
  std::vector<std::vector<std::string>> groups(1);
  for (size_t i = 0; i < events.size(); ++i) {
    const std::string& e = events[i];
    groups.back().push_back(e);
    const bool post_follows = i + 1 < events.size() && events[i + 1].rfind("post_hook(", 0) == 0;
    if (e.rfind("post_hook(", 0) == 0 || (e.rfind("launch(", 0) == 0 && !post_follows)) groups.emplace_back();
  }
  std::vector<std::string> out;
  const std::vector<std::string>* previous = nullptr;
  for (const auto& g : groups) {
    if (previous != nullptr && *previous == g) continue;
    out.insert(out.end(), g.begin(), g.end());
    previous = &g;
  }
  return out;
}

std::vector<std::string> tail(const std::vector<std::string>& v, size_t n) {
  return std::vector<std::string>(v.end() - static_cast<std::ptrdiff_t>(std::min(n, v.size())), v.end());
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += "  " + s + "\n";
  return out;
}

py::object tensor(uint64_t address) { return triton_reference().attr("make_tensor")(py::int_(address), "float32"); }

// Triton's events for the same call (after ours were read: the reference replaces the recorder).
// `args` builds the Python arguments (under the GIL).
std::vector<std::string> triton_events(const char* function, const std::function<py::list()>& args, int launches) {
  triton_jit::bridge::GilGuard gil;
  return triton_reference()
      .attr("triton_hook_events")(python_function(function), args(), 0, launches, py::make_tuple(4, 1, 1))
      .cast<std::vector<std::string>>();
}

}  // namespace

// Every hook runs when Triton's Autotuner runs it, with the dict it builds: the caller's
// arguments, grid and warmup, the config's all_kwargs(); the order per timed run is
// Config.pre_hook, pre_hook, launch, post_hook; after tuning pre_hook(reset_only=True); the
// chosen config's pre_hook before every launch with it, the cached one included.
TEST_F(AutotuneHooks, HooksRunAsTritonsAutotunerRunsThem) {
  auto& fn = hooked("hooked_kernel");
  record_hooks();
  const std::vector<ArgValue> args = {test::ptr(kX), test::ptr(kOut), ArgValue::integer(1000), ArgValue::floating(2.0)};
  const LaunchConfig config{triton_jit::Grid(4)};
  fn.launch(config, ArgSpan{args.data(), args.size()});
  fn.launch(config, ArgSpan{args.data(), args.size()});
  EXPECT_EQ(fn.stats().tunings, 1u);
  const auto ours = events();
  const auto theirs = triton_events(
      "hooked_kernel", [] { return py::list(py::make_tuple(tensor(kX), tensor(kOut), 1000, 2.0)); }, 2);
  EXPECT_EQ(collapse_repeats(ours), collapse_repeats(theirs)) << "ours:\n"
                                                              << joined(collapse_repeats(ours)) << "Triton's:\n"
                                                              << joined(theirs);
  // After tuning: pre_hook(reset_only=True), then the two launches (config 0 has no pre_hook).
  EXPECT_EQ(tail(ours, 3), tail(theirs, 3));
  EXPECT_NE(tail(theirs, 3)[0].find("reset_only=True"), std::string::npos) << joined(theirs);
  ASSERT_GE(theirs.size(), 4u);
  EXPECT_NE(theirs[0].find("pre_hook(x_ptr=tensor(0x7f0000100000, "), std::string::npos) << theirs[0];
}

// Heuristics outside the autotuner: its values are in the hooks' dict (Triton's kwargs); a Config
// pre_hook alone (no autotuner hooks) runs in each timed run and before each launch.
TEST_F(AutotuneHooks, ConfigPreHookSeesOuterHeuristicsAndRunsBeforeEachLaunch) {
  auto& fn = hooked("config_hook_kernel");
  record_hooks();
  const std::vector<ArgValue> args = {test::ptr(kX), ArgValue::integer(5000)};
  const LaunchConfig config{triton_jit::Grid(4)};
  for (int i = 0; i < 3; ++i) fn.launch(config, ArgSpan{args.data(), args.size()});
  const auto ours = events();
  const auto theirs = triton_events(
      "config_hook_kernel", [] { return py::list(py::make_tuple(tensor(kX), 5000)); }, 3);
  EXPECT_EQ(collapse_repeats(ours), collapse_repeats(theirs)) << "ours:\n"
                                                              << joined(collapse_repeats(ours)) << "Triton's:\n"
                                                              << joined(theirs);
  // The three launches, each after the chosen config's pre_hook.
  EXPECT_EQ(tail(ours, 6), tail(theirs, 6)) << joined(tail(ours, 6));
  bool wide = false;
  for (const auto& e : theirs) wide |= e.find("WIDE=True, BLOCK=128") != std::string::npos;
  EXPECT_TRUE(wide) << joined(theirs);
}

// A hook that raises: an ArgumentError naming the hook, with Python's traceback; nothing is kept,
// so the next call tunes (and fails) again.
TEST_F(AutotuneHooks, HookThatRaisesIsAnArgumentErrorWithTraceback) {
  auto& fn = hooked("raising_hook_kernel");
  const std::vector<ArgValue> args = {test::ptr(kX), ArgValue::integer(1000)};
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      fn.launch(LaunchConfig{triton_jit::Grid(4)}, ArgSpan{args.data(), args.size()});
      ADD_FAILURE() << "expected ArgumentError";
    } catch (const triton_jit::ArgumentError& e) {
      EXPECT_EQ(e.parameter(), "pre_hook");
      const std::string what = e.what();
      EXPECT_NE(what.find("raising_hook_kernel: autotune's pre_hook raised ValueError: this pre_hook fails on "
                          "purpose (n=1000)"),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("Traceback"), std::string::npos) << what;
      EXPECT_NE(what.find("_raising_pre_hook"), std::string::npos) << what;
    }
  }
  EXPECT_EQ(fn.stats().tunings, 0u);
}

// A hook using a tensor method gets a real torch tensor only with torch's CUDA and the pointer's
// size; without either, the error names the hook and says what to pass.
TEST_F(AutotuneHooks, TensorMethodWithoutATensorSaysWhatToPass) {
  auto& fn = hooked("zeroing_hook_kernel");
  bool has_torch = true, has_cuda = false;
  {
    triton_jit::bridge::GilGuard gil;
    try {
      has_cuda = py::module_::import("torch").attr("cuda").attr("is_available")().cast<bool>();
    } catch (const py::error_already_set&) {
      has_torch = false;  // the Triton-version virtualenvs have no torch
    }
  }
  const char* no_tensor = !has_torch ? "torch does not import" : "torch has no CUDA device here";
  std::vector<float> out(4);
  struct Case {
    std::vector<ArgValue> args;
    const char* why;
  };
  std::vector<Case> cases = {
      {{test::ptr(kX), test::ptr(kOut), ArgValue::integer(1000)}, has_cuda ? "its size is unknown" : no_tensor}};
  // A sized pointer would become a real CUDA tensor where torch has CUDA (over host memory here).
  if (!has_cuda) {
    cases.push_back({{test::ptr(kX), ArgValue::pointer(out.data(), DType::fp32, sizeof(float) * out.size()),
                      ArgValue::integer(1000)},
                     no_tensor});
  }
  for (const Case& c : cases) {
    try {
      fn.launch(LaunchConfig{triton_jit::Grid(4)}, ArgSpan{c.args.data(), c.args.size()});
      ADD_FAILURE() << "expected ArgumentError";
    } catch (const triton_jit::ArgumentError& e) {
      EXPECT_EQ(e.parameter(), "pre_hook");
      const std::string what = e.what();
      EXPECT_NE(what.find("zeroing_hook_kernel: autotune's pre_hook raised HookTensorUnavailable: the hook used "
                          ".zero_ of argument 'out_ptr'"),
                std::string::npos)
          << what;
      EXPECT_NE(what.find(c.why), std::string::npos) << what;
      EXPECT_NE(what.find("TypedPtr{ptr, dtype, bytes}"), std::string::npos) << what;
    }
  }
  EXPECT_EQ(fn.stats().tunings, 0u);
}

// prepare() of a request for an autotuned function tunes it (on the request's stream), so a later
// launch during CUDA graph capture takes the stored choice; without it, the capture error says to
// prepare() it.
TEST_F(AutotuneHooks, PrepareTunesSoThatCaptureNeedsNoTuning) {
  auto& fn = TritonJitFunction::get(test::canonical(test::kernel("decorated.py")), "cached_tuning_kernel");
  const int64_t n = 3001 + 2 * (::getpid() % 1000);
  const std::vector<ArgValue> args = {test::ptr(kX), ArgValue::integer(n)};
  const LaunchConfig config{triton_jit::Grid(4)};
  fake::state().capture_status = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  try {
    fn.launch(config, ArgSpan{args.data(), args.size()});
    ADD_FAILURE() << "expected MissingKernelError";
  } catch (const triton_jit::MissingKernelError& e) {
    EXPECT_NE(std::string(e.what()).find("prepare() it before capturing"), std::string::npos) << e.what();
  }
  fake::state().capture_status = CU_STREAM_CAPTURE_STATUS_NONE;
  triton_jit::PrepareOptions quiet;
  quiet.progress = triton_jit::Progress::Never;
  const triton_jit::PrepareReport report = triton_jit::prepare({triton_jit::request(fn, config, test::ptr(kX), n)},
                                                               quiet);
  EXPECT_EQ(fn.stats().tunings, 1u);
  EXPECT_EQ(report.tuned, 1u);
  const size_t launches_after_prepare = fake::state().launches.size();
  EXPECT_GT(launches_after_prepare, 0u) << "tuning timed the configs";
  fake::state().capture_status = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  fn.launch(config, ArgSpan{args.data(), args.size()});
  fake::state().capture_status = CU_STREAM_CAPTURE_STATUS_NONE;
  EXPECT_EQ(fake::state().launches.size(), launches_after_prepare + 1);
  EXPECT_EQ(fn.stats().tunings, 1u);
  // The request now names the chosen kernel: a second prepare finds everything in memory.
  const triton_jit::PrepareReport again = triton_jit::prepare({triton_jit::request(fn, config, test::ptr(kX), n)},
                                                              quiet);
  EXPECT_EQ(again.tuned, 0u);
  EXPECT_EQ(again.in_memory, 1u);
}

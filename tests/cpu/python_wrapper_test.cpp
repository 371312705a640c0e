// Wrappers the runtime does not emulate (tests/kernels/run_overrides.py): an Autotuner subclass
// whose run always picks the last config, a Heuristics subclass overriding run and a wrapper of no
// Triton class are described as Python layers (never as their base), and a launch runs their own
// run through Python with the caller's arguments and grid, counted in stats() and said once in
// the log; a process without Python that reads the signature from the index refuses them naming
// the class and the function. Subclasses that change nothing of a call stay emulated. The runs
// record what they got (TRITON_JIT_TEST_WRAPPER_RECORD) and stop before Triton's launch.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../support/child_process.h"
#include "store/binary_io.h"
#include "store/records.h"
#include "test_util.h"
#include "triton_jit/triton_jit.h"

using triton_jit::ArgValue;
using triton_jit::DecoratorLayer;
using triton_jit::DType;
using triton_jit::Grid;
using triton_jit::GridMeta;
using triton_jit::LaunchConfig;
using triton_jit::TritonJitFunction;

namespace fs = std::filesystem;

namespace {

// The message of the ArgumentError `call` throws, or a failure.
template <typename F>
std::string argument_error(F&& call) {
  try {
    call();
  } catch (const triton_jit::ArgumentError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an ArgumentError";
  return "";
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "missing \"" << part << "\" in:\n" << text;
}

TritonJitFunction& wrapped(const char* function) {
  return TritonJitFunction::get(test::canonical(test::kernel("run_overrides.py")), function);
}

std::vector<DecoratorLayer::Kind> kinds(const TritonJitFunction& fn) {
  std::vector<DecoratorLayer::Kind> out;
  for (const DecoratorLayer& layer : fn.signature().decorators) out.push_back(layer.kind);
  return out;
}

// The record file the wrappers' runs append to, set for this process, emptied per test.
class PythonWrappers : public ::testing::Test {
 protected:
  void SetUp() override {
    record_ = fs::temp_directory_path() / ("triton_jit_wrapper_record_" + std::to_string(::getpid()) + ".jsonl");
    fs::remove(record_);
    ::setenv("TRITON_JIT_TEST_WRAPPER_RECORD", record_.c_str(), 1);
    ::setenv("TRITON_JIT_TEST_WRAPPER_NO_LAUNCH", "1", 1);
  }
  void TearDown() override { fs::remove(record_); }
  std::vector<std::string> lines() const {
    std::ifstream in(record_);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  fs::path record_;
};

const auto x = test::ptr(0x7f0000100000ull);
const auto out = test::ptr(0x7f0000200000ull, DType::i32);

}  // namespace

TEST(PythonWrapperKinds, SubclassesOverridingRunAreNeverTheirBase) {
  using K = DecoratorLayer::Kind;
  EXPECT_EQ(kinds(wrapped("last_config_kernel")), std::vector<K>{K::Python});
  EXPECT_EQ(kinds(wrapped("odd_heuristics_kernel")), std::vector<K>{K::Python});
  EXPECT_EQ(kinds(wrapped("block_wrapper_kernel")), std::vector<K>{K::Python});
  EXPECT_EQ(kinds(wrapped("heuristics_over_odd_kernel")), (std::vector<K>{K::Heuristics, K::Python}));
  // Subclasses that change nothing of a call are emulated as Triton's own.
  EXPECT_EQ(kinds(wrapped("plain_subclass_kernel")), std::vector<K>{K::Autotune});
  EXPECT_EQ(kinds(wrapped("plain_heuristics_kernel")), std::vector<K>{K::Heuristics});
  const triton_jit::PythonWrapperInfo& info = wrapped("last_config_kernel").signature().decorators[0].python;
  expect_contains(info.class_name, ".LastConfigAutotuner");
  EXPECT_EQ(info.reason, "a subclass of triton's Autotuner that overrides run");
  EXPECT_EQ(info.sets, std::vector<int>{3}) << "BLOCK, which its configs set";
}

// The layer's kind is persisted (index records, packs) under its own tag, with its class, reason
// and the parameters it sets; fla's gate is bit 5 of the autotune flags.
TEST(PythonWrapperKinds, LayersRoundTripThroughTheRecordFormat) {
  triton_jit::StaticSignature s;
  s.function = "k";
  s.file = "k.py";
  for (const char* name : {"x_ptr", "n", "BLOCK"}) {
    triton_jit::ParamInfo p;
    p.name = name;
    p.index = static_cast<int>(s.params.size());
    s.params.push_back(p);
  }
  DecoratorLayer python;
  python.kind = DecoratorLayer::Kind::Python;
  python.python = {"lib.tuners.Tuner", "a subclass of triton's Autotuner that overrides run", {2}};
  DecoratorLayer fla;
  fla.kind = DecoratorLayer::Kind::Autotune;
  fla.autotune.configs.emplace_back();
  fla.autotune.fla_cache_gate = true;
  s.decorators = {python, fla};
  triton_jit::detail::BinaryWriter w;
  triton_jit::detail::write_signature(w, s);
  triton_jit::detail::BinaryReader r(w.bytes());
  const triton_jit::StaticSignature back = triton_jit::detail::read_signature(r);
  ASSERT_EQ(back.decorators.size(), 2u);
  EXPECT_EQ(back.decorators[0].kind, DecoratorLayer::Kind::Python);
  EXPECT_EQ(back.decorators[0].python.class_name, "lib.tuners.Tuner");
  EXPECT_EQ(back.decorators[0].python.reason, python.python.reason);
  EXPECT_EQ(back.decorators[0].python.sets, std::vector<int>{2});
  EXPECT_EQ(back.decorators[1].kind, DecoratorLayer::Kind::Autotune);
  EXPECT_TRUE(back.decorators[1].autotune.fla_cache_gate);
  EXPECT_FALSE(back.decorators[1].autotune.cache_results);
}

TEST_F(PythonWrappers, AutotunerSubclassRunsItsOwnRun) {
  auto& fn = wrapped("last_config_kernel");
  LaunchConfig config;
  config.grid_fn = [](const GridMeta& meta) { return Grid(triton_jit::cdiv(meta["n"], meta["BLOCK"])); };
  fn.launch(config, test::span(test::args(x, out, 1000)));
  const auto recorded = lines();
  ASSERT_EQ(recorded.size(), 1u);
  expect_contains(recorded[0], "\"wrapper\": \"LastConfigAutotuner\"");
  expect_contains(recorded[0], "\"chosen\": \"BLOCK: 128");  // the last config, where the base would time both
  // Pointers as tensors (their dtype torch's where torch imports, else Triton's), then the integer.
  expect_contains(recorded[0], "\"args\": [\"tensor:");
  expect_contains(recorded[0], "int32\", \"1000\"], \"kwargs\": {}");
  // The grid function saw the BLOCK the wrapper chose, through Triton's dict.
  expect_contains(recorded[0], "\"grid\": [8, 1, 1]");
  EXPECT_EQ(fn.stats().python_wrapper_calls, 1u);
  EXPECT_EQ(fn.stats().tunings, 0u);
  EXPECT_EQ(fn.stats().compiles, 0u);
  fn.launch(LaunchConfig{Grid(3)}, test::span(test::args(x, out, 7)));
  EXPECT_EQ(fn.stats().python_wrapper_calls, 2u) << "every call, not once per key";
  expect_contains(lines().at(1), "\"grid\": [3, 1, 1]");
  EXPECT_EQ(triton_jit::global_stats().python_wrapper_calls >= 2u, true);
}

TEST_F(PythonWrappers, HeuristicsSubclassAndUnknownWrapperRunTheirOwn) {
  wrapped("odd_heuristics_kernel").launch(LaunchConfig{Grid(2)}, test::span(test::args(x, out, 1000)));
  wrapped("block_wrapper_kernel").launch(LaunchConfig{Grid(2), 8}, test::span(test::args(x, out, 1000)));
  const auto recorded = lines();
  ASSERT_EQ(recorded.size(), 2u);
  expect_contains(recorded[0], "\"wrapper\": \"OddHeuristics\", \"chosen\": {\"ODD\": 1}");
  expect_contains(recorded[1], "\"wrapper\": \"BlockWrapper\", \"chosen\": 256");
  // A launch option the caller set is passed on by name, as kernel[grid](..., num_warps=8).
  expect_contains(recorded[1], "\"num_warps\": \"8\"");
}

TEST_F(PythonWrappers, CallsThatCannotRunTheWrapperAreRefused) {
  auto& fn = wrapped("last_config_kernel");
  const std::string message = argument_error([&] { fn.specialize(LaunchConfig{Grid(1)}, x, out, 1000); });
  expect_contains(message, "last_config_kernel is wrapped in ");
  expect_contains(message, ".LastConfigAutotuner (a subclass of triton's Autotuner that overrides run)");
  expect_contains(message, "specialize(), compile() and prepare() cannot predict it");
  expect_contains(argument_error([&] { fn.launch(LaunchConfig{Grid(1)}, test::span(test::args(x, out, 1, 64))); }),
                  "the caller must not pass the parameters its wrappers set");
}

// ---- across processes: logged once, and refused where no Python runs ----

namespace {

class PythonWrapperStore : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("triton_jit_wrappers_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    test_support::write_unimportable_triton(root_ / "no_triton");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  test_support::ChildRun probe(const std::string& env, const std::string& function, int count,
                               const std::string& file = "run_overrides.py") const {
    return test_support::run_child(
        "env -u FLA_CACHE_MODE TRITON_JIT_TEST_KEEP_INDEX_DIR=1 TRITON_JIT_TEST_WRAPPER_NO_LAUNCH=1 "
        "TRITON_JIT_TEST_WRAPPER_RECORD='" +
        (root_ / "record.jsonl").string() + "' TRITON_JIT_INDEX_DIR='" + (root_ / "index").string() + "' " + env +
        " '" DECORATED_PROBE_PATH "' '" + test::canonical(test::kernel(file)) + "' " + function + " --launch=" +
        std::to_string(count) + " p:fp32 p:i32 i:1000");
  }
  std::string without_python() const {
    return "TRITON_JIT_OFFLINE=1 PYTHONPATH='" + (root_ / "no_triton").string() + "'";
  }
  std::string record() const {
    std::ifstream in(root_ / "record.jsonl");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  fs::path root_;
};

size_t occurrences(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_F(PythonWrapperStore, SaidOnceInTheLogAndRefusedWithoutPython) {
  const auto first = probe("TRITON_JIT_LOG=info", "last_config_kernel", 3);
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_EQ(first["kinds"], "python");
  EXPECT_EQ(first["python_wrapper_calls"], "3") << first.output;
  EXPECT_EQ(first["launches"], "0") << "Triton launches, not the runtime";
  EXPECT_EQ(occurrences(first.output, "every call runs the wrapper's own run through Python"), 1u) << first.output;
  // The signature comes from the index: its kind says Python, never a plain autotune.
  const auto warm = probe(without_python(), "last_config_kernel", 1);
  EXPECT_EQ(warm.status, 3) << warm.output;
  EXPECT_EQ(warm["kinds"], "python") << warm.output;
  EXPECT_EQ(warm["python_used"], "0");
  expect_contains(warm.output, "last_config_kernel is wrapped in ");
  expect_contains(warm.output, ".LastConfigAutotuner");
  expect_contains(warm.output, "offline mode is on");
}

// The kind is decided by the wrapper's class, which usually lives in a library's file, not the
// kernel's: the index keeps the signature only while that file is unchanged too.
TEST_F(PythonWrapperStore, AWrapperClassThatComesToOverrideRunIsDescribedAgain) {
  const fs::path dir = root_ / "lib";
  fs::create_directories(dir);
  const auto write_tuner = [&](const std::string& body) {
    std::ofstream(dir / "my_tuners.py") << "from triton.runtime.autotuner import Autotuner\n\n"
                                           "class MyTuner(Autotuner):\n"
                                        << body;
  };
  write_tuner("    pass\n");
  std::ofstream(dir / "tuned.py") << "import triton\nimport triton.language as tl\nfrom my_tuners import MyTuner\n\n"
                                     "def _tune(fn):\n"
                                     "    return MyTuner(fn, fn.arg_names, [triton.Config({'BLOCK': 64}), "
                                     "triton.Config({'BLOCK': 128})], ['n'], None, None)\n\n"
                                     "@_tune\n@triton.jit\ndef tuned_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                                     "    pass\n";
  const auto probe_tuned = [&](const std::string& env) {
    return test_support::run_child("env TRITON_JIT_TEST_KEEP_INDEX_DIR=1 TRITON_JIT_INDEX_DIR='" +
                                   (root_ / "index").string() + "' " + env + " '" DECORATED_PROBE_PATH "' '" +
                                   (dir / "tuned.py").string() + "' tuned_kernel --launch=0");
  };
  const auto plain = probe_tuned("");
  ASSERT_EQ(plain.status, 0) << plain.output;
  EXPECT_EQ(plain["kinds"], "autotune");
  EXPECT_EQ(probe_tuned(without_python())["kinds"], "autotune") << "the signature the index kept";
  write_tuner("    def run(self, *args, **kwargs):\n        return self.fn.run(*args, **kwargs, BLOCK=128)\n");
  const auto now = probe_tuned("");
  ASSERT_EQ(now.status, 0) << now.output;
  EXPECT_EQ(now["kinds"], "python") << "described again: the class's file changed";
}

// fla's CachedAutotuner (the stand-in in tests/support/fla_stub) is Triton's autotune while
// FLA_CACHE_MODE is off; a process with the mode on runs fla's own run through Python, even with
// the signature from the index, and one that cannot run Python says so.
TEST_F(PythonWrapperStore, FlaCachedAutotunerFollowsFlaCacheMode) {
  const auto off = probe("", "fla_kernel", 0, "fla_cached.py");
  ASSERT_EQ(off.status, 0) << off.output;
  EXPECT_EQ(off["kinds"], "autotune");
  const auto on = probe("FLA_CACHE_MODE=strict", "fla_kernel", 1, "fla_cached.py");
  ASSERT_EQ(on.status, 0) << on.output;
  EXPECT_EQ(on["kinds"], "autotune") << "the signature the first process stored";
  EXPECT_EQ(on["python_wrapper_calls"], "1") << on.output;
  EXPECT_EQ(on["tunings"], "0");
  expect_contains(record(), "\"wrapper\": \"CachedAutotuner\", \"mode\": \"strict\"");
  const auto offline = probe("FLA_CACHE_MODE=strict " + without_python(), "fla_kernel", 1, "fla_cached.py");
  EXPECT_EQ(offline.status, 3) << offline.output;
  expect_contains(offline.output, "fla_kernel is wrapped in fla.ops.utils.cache.CachedAutotuner (FLA_CACHE_MODE=strict");
  EXPECT_EQ(offline["python_used"], "0");
}

// @triton.heuristics and @triton.autotune from C++ (tests/kernels/decorated.py), against Triton's
// own wrappers: tests/support/triton_reference.py runs Heuristics.run and Autotuner.run on the
// same arguments (timing replaced by a fixed choice) and Triton's binder on what they pass on.
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../support/child_process.h"
#include "../support/python_reference.h"
#include "bridge/interpreter.h"
#include "test_util.h"
#include "triton_jit/triton_jit.h"

namespace py = pybind11;
using triton_jit::ArgSpan;
using triton_jit::ArgValue;
using triton_jit::DType;
using triton_jit::LaunchConfig;
using triton_jit::TritonJitFunction;

namespace {

using triton_jit::test::triton_reference;

// tests/kernels/<file> imported by Python on its own (the runtime's copy is a module of its own).
py::object python_module(const std::string& file) {
  py::module_ util = py::module_::import("importlib.util");
  py::object spec = util.attr("spec_from_file_location")("decorated_reference_" + file.substr(0, file.size() - 3),
                                                         test::canonical(test::kernel(file)));
  py::object module = util.attr("module_from_spec")(spec);
  spec.attr("loader").attr("exec_module")(module);
  return module;
}

const char* reference_dtype_name(DType d) {
  switch (d) {
    case DType::fp16: return "float16";
    case DType::bf16: return "bfloat16";
    case DType::fp32: return "float32";
    case DType::i32: return "int32";
    default: return "int64";
  }
}

py::object to_python(const ArgValue& a) {
  switch (a.kind()) {
    case ArgValue::Kind::None: return py::none();
    case ArgValue::Kind::Bool: return py::bool_(a.as_bool());
    case ArgValue::Kind::Int: return py::int_(a.as_int());
    case ArgValue::Kind::Float: return py::float_(a.as_float());
    case ArgValue::Kind::Pointer:
      return triton_reference().attr("make_tensor")(py::int_(a.address()),
                                                    std::string(reference_dtype_name(a.dtype())));
    default: ADD_FAILURE() << "no Python form in this test"; return py::none();
  }
}

struct Reference {
  std::string specialization;
  int num_warps = 0, num_stages = 0;
  std::vector<std::string> keys;
};

Reference triton_reference(const std::string& file, const char* function, const std::vector<ArgValue>& args,
                           int pick = 0) {
  triton_jit::bridge::GilGuard gil;
  static std::map<std::string, py::object>* modules = new std::map<std::string, py::object>();
  auto it = modules->find(file);
  if (it == modules->end()) it = modules->emplace(file, python_module(file)).first;
  py::list py_args;
  for (const ArgValue& a : args) py_args.append(to_python(a));
  py::tuple r = triton_reference().attr("decorated_call")(it->second.attr(function), py_args, pick);
  Reference out;
  out.specialization = r[0].cast<std::string>();
  out.num_warps = r[1].cast<int>();
  out.num_stages = r[2].cast<int>();
  out.keys = r[3].cast<std::vector<std::string>>();
  return out;
}

TritonJitFunction& decorated(const char* function, const char* file = "decorated.py") {
  return TritonJitFunction::get(test::canonical(test::kernel(file)), function);
}

uint64_t aligned_address(std::mt19937_64& rng) { return 0x7f0000000000ull + (rng() % 4096) * 16 + (rng() % 2) * 4; }

}  // namespace

// Heuristics (translated lambdas: `is not None`, min, next_power_of_2, %) give the key Triton's
// Heuristics.run and binder give, over random calls.
TEST(Decorators, HeuristicsSpecializeAsTritonsWrappersDo) {
  auto& fn = decorated("row_sum_kernel");
  ASSERT_EQ(fn.signature().decorators.size(), 1u);
  std::mt19937_64 rng(1234);
  const DType dtypes[] = {DType::fp32, DType::fp16, DType::bf16};
  for (int c = 0; c < 300; ++c) {
    const int64_t n_choices[] = {1, 7, 64, 100, 1024, 4096, 5000, 65536, static_cast<int64_t>(rng() % 20000) + 1};
    const int64_t N = n_choices[rng() % 9];
    const int64_t M = static_cast<int64_t>(rng() % 100) + 1;
    std::vector<ArgValue> args = {
        ArgValue::pointer(reinterpret_cast<void*>(aligned_address(rng)), dtypes[rng() % 3]),
        rng() % 2 ? ArgValue::none() : ArgValue::pointer(reinterpret_cast<void*>(aligned_address(rng)), DType::fp32),
        ArgValue::pointer(reinterpret_cast<void*>(aligned_address(rng)), DType::fp32),
        ArgValue::integer(M),
        ArgValue::integer(N),
        ArgValue::integer(N + static_cast<int64_t>(rng() % 3)),
    };
    const auto ours = fn.specialize(LaunchConfig{}, ArgSpan{args.data(), args.size()});
    const Reference theirs = triton_reference("decorated.py", "row_sum_kernel", args);
    ASSERT_EQ(ours.triton_repr(), theirs.specialization) << "call " << c << " N=" << N;
  }
  EXPECT_EQ(fn.stats().heuristic_python_calls, 0u) << "every heuristic of row_sum_kernel is a translated lambda";
}

// An autotuner with one config applies it without tuning; heuristics inside it see its values.
TEST(Decorators, SingleConfigAutotunerOverHeuristics) {
  auto& fn = decorated("single_config_kernel");
  ASSERT_EQ(fn.signature().decorators.size(), 2u);
  for (int64_t n : {512, 1000, 4096, 4097}) {
    std::vector<ArgValue> args = {ArgValue::pointer(reinterpret_cast<void*>(0x7f0000001000ull), DType::fp32),
                                  ArgValue::pointer(reinterpret_cast<void*>(0x7f0000002000ull), DType::fp32),
                                  ArgValue::integer(n)};
    const auto ours = fn.specialize(LaunchConfig{}, ArgSpan{args.data(), args.size()});
    const Reference theirs = triton_reference("decorated.py", "single_config_kernel", args);
    EXPECT_EQ(ours.triton_repr(), theirs.specialization) << "n=" << n;
    EXPECT_EQ(ours.num_warps, theirs.num_warps);
    EXPECT_EQ(ours.num_stages, theirs.num_stages);
    EXPECT_EQ(ours.num_warps, 2);
  }
}

// A heuristic that is a Python function with a loop runs through Python once per distinct value
// of what it reads, then answers from the memo.
TEST(Decorators, UntranslatedHeuristicIsMemoizedByWhatItReads) {
  auto& fn = decorated("stages_kernel");
  const auto before = fn.stats().heuristic_python_calls;
  auto spec = [&](int64_t k, int64_t other) {
    std::vector<ArgValue> args = {ArgValue::pointer(reinterpret_cast<void*>(0x7f0000001000ull), DType::fp32),
                                  ArgValue::integer(k), ArgValue::integer(other)};
    const std::string ours = fn.specialize(LaunchConfig{}, ArgSpan{args.data(), args.size()}).triton_repr();
    EXPECT_EQ(ours, triton_reference("decorated.py", "stages_kernel", args).specialization) << "K=" << k;
  };
  spec(1000, 1);
  EXPECT_EQ(fn.stats().heuristic_python_calls, before + 1);
  spec(1000, 2);  // `other` is not read by the heuristic: same memo entry
  spec(1000, 3);
  EXPECT_EQ(fn.stats().heuristic_python_calls, before + 1);
  spec(40, 1);
  EXPECT_EQ(fn.stats().heuristic_python_calls, before + 2);
  fn.set_heuristics_through_python(true);
  spec(1000, 1);
  EXPECT_EQ(fn.stats().heuristic_python_calls, before + 3);
  fn.set_heuristics_through_python(false);
  spec(1000, 1);
  EXPECT_EQ(fn.stats().heuristic_python_calls, before + 3);
}

// The tuning key, as Triton's Autotuner builds it (key values, then the dtype of each tensor),
// including a key parameter set by a heuristics wrapper outside the autotuner.
TEST(Decorators, TuningKeyIsTritonsAutotunerKey) {
  struct Case {
    const char* function;
    std::vector<ArgValue> args;
  };
  const auto p = [](DType d) { return ArgValue::pointer(reinterpret_cast<void*>(0x7f0000001000ull), d); };
  const std::vector<Case> cases = {
      {"matmul_kernel",
       {p(DType::fp16), p(DType::fp16), p(DType::fp32), ArgValue::integer(512), ArgValue::integer(256),
        ArgValue::integer(1000), ArgValue::integer(1000), ArgValue::integer(1), ArgValue::integer(256),
        ArgValue::integer(1), ArgValue::integer(256), ArgValue::integer(1)}},
      {"scale_kernel", {p(DType::fp16), p(DType::fp16), ArgValue::integer(4096), ArgValue::floating(0.5)}},
      {"scale_kernel", {p(DType::fp32), p(DType::fp32), ArgValue::integer(77), ArgValue::floating(2.0)}},
  };
  {
    triton_jit::bridge::GilGuard gil;
    // Triton keys a tensor by str(tensor.dtype): torch's spelling, which needs torch.
    if (!triton_reference().attr("has_torch")().cast<bool>())
      GTEST_SKIP() << "torch is not importable: no tensors to key";
  }
  for (const Case& c : cases) {
    const Reference theirs = triton_reference("decorated.py", c.function, c.args);
    ASSERT_EQ(theirs.keys.size(), 1u);
    // No GPU here: describing the call needs a tuning result, and the error names the key.
    try {
      decorated(c.function).specialize(LaunchConfig{}, ArgSpan{c.args.data(), c.args.size()});
      FAIL() << c.function << ": expected an error naming the tuning key";
    } catch (const triton_jit::ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("no tuning result for key " + theirs.keys[0]), std::string::npos)
          << e.what() << "\nTriton's key: " << theirs.keys[0];
    }
  }
}

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

}  // namespace

// Triton's rule: the caller does not pass what a decorator sets. The message says which one.
TEST(Decorators, PassingAParameterADecoratorSetsIsAnError) {
  auto& fn = decorated("row_sum_kernel");
  float* x = reinterpret_cast<float*>(0x7f0000001000ull);
  const std::string e = argument_error([&] { fn.specialize(LaunchConfig{}, x, nullptr, x, 4, 64, 64, true); });
  expect_contains(e, "row_sum_kernel takes 6 arguments (x_ptr, bias, out_ptr, M, N, stride) but 7 were given");
  expect_contains(e, "HAS_BIAS (by @triton.heuristics)");
  const std::string missing = argument_error([&] { fn.specialize(LaunchConfig{}, x, nullptr, x, 4); });
  expect_contains(missing, "but 4 were given");
}

TEST(Decorators, HeuristicThatRaisesCarriesPythonsTraceback) {
  auto& fn = decorated("raising_heuristic_kernel", "decorated_bad.py");
  float* x = reinterpret_cast<float*>(0x7f0000001000ull);
  EXPECT_EQ(fn.specialize(LaunchConfig{}, x, 64).params.back().value_repr, "64");
  const std::string e = argument_error([&] { fn.specialize(LaunchConfig{}, x, 0); });
  expect_contains(e, "BLOCK");
  expect_contains(e, "ZeroDivisionError");
}

TEST(Decorators, HeuristicReturningANonConstexprIsAnError) {
  auto& fn = decorated("list_heuristic_kernel", "decorated_bad.py");
  float* x = reinterpret_cast<float*>(0x7f0000001000ull);
  const std::string e = argument_error([&] { fn.specialize(LaunchConfig{}, x, 3); });
  expect_contains(e, "BLOCK");
  expect_contains(e, "list");
}

TEST(Decorators, DecoratorsNamingUnknownParametersAreRefusedAtGet) {
  // Ours where Triton accepts the decorator; Triton 3.9 and newer refuse it on import.
  try {
    decorated("unknown_key_kernel", "decorated_bad_key.py");
    ADD_FAILURE() << "expected an error";
  } catch (const triton_jit::ArgumentError& e) {
    expect_contains(e.what(), "autotune's key names 'size', which is not a parameter");
  } catch (const triton_jit::KernelLookupError& e) {
    expect_contains(e.what(), "key contains names that are not kernel arguments: size");
  }
  expect_contains(argument_error([] { decorated("unknown_config_param_kernel", "decorated_bad.py"); }),
                  "names 'WIDTH', which is not a parameter");
}

// ---- across processes: memos and tuning results in the index, read back without Python ----

namespace {

namespace fs = std::filesystem;

class DecoratorStore : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("triton_jit_decorators_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    test_support::write_unimportable_triton(root_ / "no_triton");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  // Runs the probe on tests/kernels/FILE:FUNCTION with this test's index; `env`: VAR=value words.
  test_support::ChildRun probe(const std::string& env, const std::string& function, const std::string& args,
                               const std::string& file = "decorated.py") const {
    return test_support::run_child("env TRITON_JIT_TEST_KEEP_INDEX_DIR=1 TRITON_JIT_INDEX_DIR='" +
                                   (root_ / "cache").string() + "' " + env + " '" DECORATED_PROBE_PATH "' '" +
                                   test::canonical(test::kernel(file)) + "' " + function + " " + args);
  }
  // A process that cannot import triton and may not compile.
  std::string without_python() const {
    return "TRITON_JIT_OFFLINE=1 PYTHONPATH='" + (root_ / "no_triton").string() + "'";
  }
  fs::path root_;
};

}  // namespace

TEST_F(DecoratorStore, MemoizedHeuristicIsReadBackWithoutPython) {
  const auto first = probe("", "stages_kernel", "p:fp32 i:1000 i:3");
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_EQ(first["heuristic_python_calls"], "1") << first.output;
  const auto warm = probe(without_python(), "stages_kernel", "p:fp32 i:1000 i:7");
  ASSERT_EQ(warm.status, 0) << warm.output;
  EXPECT_EQ(warm["spec"], first["spec"]);
  EXPECT_EQ(warm["heuristic_python_calls"], "0");
  EXPECT_EQ(warm["python_used"], "0");
  const auto unseen = probe(without_python(), "stages_kernel", "p:fp32 i:40 i:1");
  EXPECT_EQ(unseen.status, 3);
  expect_contains(unseen.output, "MissingKernelError");
  expect_contains(unseen.output, "the heuristic for 'SPLIT' has no stored value for these arguments");
  expect_contains(unseen.output, "K=40");
}

TEST_F(DecoratorStore, TuningResultIsReadBackWithoutPythonOrTuning) {
  const std::string args = "--launch p:fp16 p:fp16 p:fp32 i:256 i:256 i:200 i:200 i:1 i:256 i:1 i:256 i:1";
  const auto first = probe("", "matmul_kernel", args);
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_EQ(first["tunings"], "1") << first.output;
  EXPECT_EQ(first["compiles"], "3") << "each config compiles once: " << first.output;
  const auto warm = probe(without_python(), "matmul_kernel", args);
  ASSERT_EQ(warm.status, 0) << warm.output;
  EXPECT_EQ(warm["tunings"], "0");
  EXPECT_EQ(warm["compiles"], "0");
  EXPECT_EQ(warm["python_used"], "0");
  EXPECT_EQ(warm["launches"], "1");
  EXPECT_EQ(warm["spec"], first["spec"]);
  // What `triton-jit index list` shows: the choice under Triton's key.
  triton_jit::set_index_dir((root_ / "cache").string());
  const auto tables = triton_jit::list_index_tables();
  triton_jit::set_index_dir(std::nullopt);
  ASSERT_EQ(tables.size(), 2u) << "the autotuner's choices and the SPLIT heuristic's memo";
  const auto& tuning = tables[0].name.rfind("autotune/", 0) == 0 ? tables[0] : tables[1];
  EXPECT_EQ(tuning.function_name, "matmul_kernel");
  ASSERT_EQ(tuning.rows.size(), 1u);
  expect_contains(tuning.rows[0], "(256, 256, 200, 'torch.float16', 'torch.float16', 'torch.float32') -> [0]");
}

TEST_F(DecoratorStore, ConfigsThatAllFailToCompileAreEachReported) {
  const auto r = probe("", "never_compiles_kernel", "--launch p:fp32 i:100", "decorated_bad.py");
  EXPECT_EQ(r.status, 3);
  expect_contains(r.output, "no autotune config could run for key (100, 'torch.float32')");
  expect_contains(r.output, "[0] BLOCK: 64");
  expect_contains(r.output, "[1] BLOCK: 128");
  expect_contains(r.output, "BLOCK must be below 32");
}

TEST_F(DecoratorStore, ResetToZeroNeedsTheBuffersSize) {
  const auto unsized = probe("", "atomic_sum_kernel", "--launch p:fp32 p:fp32 i:1000");
  EXPECT_EQ(unsized.status, 3);
  expect_contains(unsized.output, "autotune's reset_to_zero names 'out_ptr'; the runtime writes it while tuning");
  const auto sized = probe("", "atomic_sum_kernel", "--launch p:fp32:4000 p:fp32:4 i:1000");
  ASSERT_EQ(sized.status, 0) << sized.output;
  EXPECT_EQ(sized["tunings"], "1");
}

// A pack carries the index's tables of its functions: a pack-only process (no index, no
// Python) answers the heuristic from the pack.
TEST_F(DecoratorStore, PackCarriesMemoizedHeuristicValues) {
  const auto first = probe("", "stages_kernel", "p:fp32 i:1000 i:3");
  ASSERT_EQ(first.status, 0) << first.output;
  triton_jit::set_index_dir((root_ / "cache").string());
  const std::string manifest = (root_ / "manifest.txt").string();
  std::ofstream(manifest) << test::canonical(test::kernel("decorated.py")) << ":stages_kernel " << first["spec"]
                          << " num_warps=4\n";
  const std::string pack = (root_ / "decorated.tjp").string();
  triton_jit::PrepareOptions quiet;
  quiet.progress = triton_jit::Progress::Never;
  triton_jit::build_pack(manifest, pack, quiet);
  triton_jit::set_index_dir(std::nullopt);
  const auto r = test_support::run_child("env TRITON_JIT_INDEX_DIR='" + (root_ / "empty").string() +
                                         "' TRITON_JIT_PACKS='" + pack + "' " + without_python() + " '" +
                                         DECORATED_PROBE_PATH "' '" + test::canonical(test::kernel("decorated.py")) +
                                         "' stages_kernel p:fp32 i:1000 i:9");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r["heuristic_python_calls"], "0");
  EXPECT_EQ(r["python_used"], "0");
  EXPECT_EQ(r["spec"], first["spec"]);
}

// cache_results=True: what Triton's autotuner stored is taken without tuning, and what the
// runtime tuned is found by Triton's autotuner (its .autotune.json under TRITON_CACHE_DIR).
TEST_F(DecoratorStore, TuningResultsAreSharedWithTritonsAutotuneCache) {
  // Triton's cache is the test build's (TRITON_CACHE_DIR from the test environment, shared by the
  // probes): keys of this run alone (odd sizes, so the specialization stays i32).
  const int64_t n1 = 1001 + 2 * (::getpid() % 100000), n2 = n1 + 2;
  bool was_cached = true;
  {
    triton_jit::bridge::GilGuard gil;
    py::object tuner = python_module("decorated.py").attr("cached_tuning_kernel");
    // Triton "benchmarked" n1 and found config 1 faster.
    py::tuple written = triton_reference().attr("triton_autotune_cache")(
        tuner, py::make_tuple(n1, "torch.float32"),
        py::make_tuple(py::make_tuple(2.0, 2.0, 2.0), py::make_tuple(1.0, 1.0, 1.0)));
    was_cached = written[0].cast<bool>();
  }
  ASSERT_FALSE(was_cached) << "a key of this run alone";
  const auto taken = probe("", "cached_tuning_kernel", "--launch p:fp32 i:" + std::to_string(n1));
  ASSERT_EQ(taken.status, 0) << taken.output;
  EXPECT_EQ(taken["tunings"], "0") << "Triton's choice is used: " << taken.output;
  EXPECT_EQ(taken["spec"], "*fp32:16,i32,256") << "config 1 (BLOCK=256)";

  // The runtime tunes n2 (on the fake driver every config takes the same time: config 0).
  const auto tuned = probe("", "cached_tuning_kernel", "--launch p:fp32 i:" + std::to_string(n2));
  ASSERT_EQ(tuned.status, 0) << tuned.output;
  EXPECT_EQ(tuned["tunings"], "1");
  triton_jit::bridge::GilGuard gil;
  py::object tuner = python_module("decorated.py").attr("cached_tuning_kernel");
  py::tuple read = triton_reference().attr("triton_autotune_cache")(tuner, py::make_tuple(n2, "torch.float32"));
  EXPECT_TRUE(read[0].cast<bool>()) << "Triton's autotuner found the runtime's result";
  EXPECT_EQ(read[1].cast<int>(), 0);
}

// prune_configs_by runs through Triton's own Autotuner.prune_configs:
// for n = 600 early_config_prune keeps BLOCK 128, 256 and 512, perf_model ranks them 512, 256,
// 128, and top_k = 2 times the first two, in that order.
TEST_F(DecoratorStore, PruneConfigsByIsTritonsOwn) {
  const auto r = probe("TRITON_JIT_LOG=info", "pruned_kernel", "--launch p:fp32 i:600");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r["tunings"], "1");
  // The tuning table's row of a config (its str() varies between Triton versions after the start).
  const auto row = [&](const std::string& start) {
    const size_t at = r.output.find(start);
    return at == std::string::npos ? std::string() : r.output.substr(at, r.output.find('\n', at) - at);
  };
  const auto pruned = [](const std::string& line) {
    const std::string tail = ": pruned by prune_configs_by";
    return line.size() > tail.size() && line.compare(line.size() - tail.size(), tail.size(), tail) == 0;
  };
  EXPECT_TRUE(pruned(row("[0] BLOCK: 128, num_warps: 4"))) << r.output;
  EXPECT_FALSE(pruned(row("[1] BLOCK: 256, num_warps: 4"))) << r.output;
  EXPECT_FALSE(pruned(row("[2] BLOCK: 512, num_warps: 8"))) << r.output;
  EXPECT_TRUE(pruned(row("[3] BLOCK: 1024, num_warps: 8"))) << r.output;
  // On the fake driver both timed configs take the same time: Triton takes the first it timed.
  EXPECT_EQ(r["spec"], "*fp32:16,i32,512");
}

// A manifest's `autotune` line names the config a tuning key takes: the pack carries the choice,
// and a pack-only process (no index, no Python) launches with it, timing nothing.
TEST_F(DecoratorStore, PackCarriesAManifestsTuningChoice) {
  const std::string file = test::canonical(test::kernel("decorated.py"));
  const std::string manifest = (root_ / "manifest.txt").string();
  std::ofstream(manifest) << "# config 1 of inplace_scale_kernel for n = 1000 (key as Triton prints it)\n"
                          << file << ":inplace_scale_kernel autotune key=(1000, 'torch.float32') "
                          << "config={\"BLOCK\": 1024, 'num_warps': 8}\n"
                          << file << ":inplace_scale_kernel *fp32:16,i32,fp32,1024 num_warps=8\n";
  const auto entries = triton_jit::read_pack_manifest(manifest);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_TRUE(entries[0].autotune);
  EXPECT_EQ(entries[0].tuning_key, "(1000, 'torch.float32')");
  EXPECT_EQ(entries[0].tuning_config, "{\"BLOCK\": 1024, 'num_warps': 8}");
  const std::string pack = (root_ / "tuned.tjp").string();
  triton_jit::PrepareOptions quiet;
  quiet.progress = triton_jit::Progress::Never;
  triton_jit::set_index_dir((root_ / "build-index").string());
  triton_jit::build_pack(manifest, pack, quiet);
  triton_jit::set_index_dir(std::nullopt);
  const auto run = [&](const std::string& args) {
    return test_support::run_child("env TRITON_JIT_INDEX_DIR='" + (root_ / "empty").string() + "' TRITON_JIT_PACKS='" +
                                   pack + "' " + without_python() + " '" + DECORATED_PROBE_PATH "' '" + file +
                                   "' inplace_scale_kernel " + args);
  };
  const auto r = run("--launch p:fp32 i:1000 f:2.0");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r["spec"], "*fp32:16,i32,fp32,1024");
  EXPECT_EQ(r["num_warps"], "8");
  EXPECT_EQ(r["tunings"], "0");
  EXPECT_EQ(r["compiles"], "0");
  EXPECT_EQ(r["launches"], "1");
  EXPECT_EQ(r["python_used"], "0");
  // Without a launch (no timing at all): specialize() takes the same choice.
  const auto described = run("p:fp32 i:1000 f:2.0");
  ASSERT_EQ(described.status, 0) << described.output;
  EXPECT_EQ(described["spec"], "*fp32:16,i32,fp32,1024");
  // A key the manifest did not name cannot be tuned here (no kernels of the other config, no
  // Python): the error says which autotune line would add it.
  const auto unseen = run("--launch p:fp32:4000 i:1002 f:2.0");
  EXPECT_EQ(unseen.status, 3) << unseen.output;
  expect_contains(unseen.output, "MissingKernelError");
  expect_contains(unseen.output, "has no tuning result for key (1002, 'torch.float32')");
  expect_contains(unseen.output, ":inplace_scale_kernel autotune key=(1002, 'torch.float32') config=INDEX");
}

// Manifest autotune lines that do not fit: each a PackError naming the line and what is wrong.
TEST_F(DecoratorStore, BadManifestTuningChoicesAreRefused) {
  const std::string file = test::canonical(test::kernel("decorated.py"));
  const std::string kernel_line = file + ":inplace_scale_kernel *fp32:16,i32,fp32,128 num_warps=4\n";
  const auto pack_error = [&](const std::string& text) {
    const std::string manifest = (root_ / "bad.txt").string();
    std::ofstream(manifest) << text;
    triton_jit::PrepareOptions quiet;
    quiet.progress = triton_jit::Progress::Never;
    try {
      triton_jit::build_pack(manifest, (root_ / "bad.tjp").string(), quiet);
    } catch (const triton_jit::PackError& e) {
      EXPECT_FALSE(fs::exists(root_ / "bad.tjp"));
      return std::string(e.what());
    }
    ADD_FAILURE() << "expected PackError for:\n" << text;
    return std::string();
  };
  const std::string at = file + ":inplace_scale_kernel autotune key=(1000, 'torch.float32') ";
  expect_contains(pack_error(at + "config=2\n" + kernel_line), "config=2 is not one of its 2 configs (0 to 1)");
  expect_contains(pack_error(at + "config={'BLOCK': 64}\n" + kernel_line), "matches none of its configs");
  expect_contains(pack_error(at + "config={'BLOCK': 64}\n" + kernel_line), "[1] BLOCK: 1024, num_warps: 8");
  expect_contains(pack_error(at + "config={'WIDTH': 1}\n" + kernel_line), "names 'WIDTH', which no config sets");
  expect_contains(pack_error(at + "config=lots\n" + kernel_line), "is neither a config's index nor a dict");
  expect_contains(pack_error(at + "config=1\n"), "the manifest has no kernel line for this function");
  expect_contains(pack_error(file + ":stages_kernel autotune key=(1,) config=0\n"),
                  "stages_kernel: it is not under @triton.autotune");
  expect_contains(pack_error(at + "\n"), "bad.txt:1: key= needs config= (the chosen config)");
  expect_contains(pack_error(file + ":inplace_scale_kernel autotune key=(1000, 'torch.float32' config=1\n"),
                  "the value of key= is not closed");
  expect_contains(pack_error(file + ":inplace_scale_kernel autotune config=1\n"),
                  "an autotune line needs key= (Triton's tuning key, as printed) or args=");
  expect_contains(pack_error(file + ":inplace_scale_kernel autotune args='[]'\n" + kernel_line),
                  "this autotune line has no key= and config=: `triton-jit pack` tunes a line with args= on a GPU");
  expect_contains(pack_error(at + "config=1 bogus=2\n"), "an autotune line takes key=, config=, args=, grid= and "
                                                         "layer=, not bogus=");
}

// FlagGems' LibTuner strategies computed in C++ (src/decorators/lib_tuner.h) against FlagGems
// 5.0.2's own strategy functions (LibTuner.get_strategy, run in Python): the same value and the
// same Python type for each argument, and the same failure where Python raises. And a LibTuner
// layer kept in index and pack records (tag 2) reads back as it was written.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "decorators/lib_tuner.h"
#include "child_process.h"
#include "flaggems_python.h"
#include "key/arg_identity.h"
#include "store/binary_io.h"
#include "store/records.h"

namespace tj = triton_jit::detail;
using triton_jit::ArgValue;

namespace {

struct Case {
  std::string python;  // the value as Python source
  ArgValue value;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{3}, int64_t{5}, int64_t{31}, int64_t{32}, int64_t{33},
                    int64_t{1000}, int64_t{1024}, int64_t{1025}, int64_t{65537}, int64_t{1} << 31,
                    (int64_t{1} << 53) + 1, int64_t{1} << 62, (int64_t{1} << 62) + 1,
                    std::numeric_limits<int64_t>::max(), int64_t{-1}, int64_t{-33}}) {
    out.push_back({std::to_string(v), ArgValue::integer(v)});
  }
  for (const char* f : {"0.3", "0.5", "0.26", "1e-300", "5e-324", "1.5", "31.9", "32.0", "1e18", "1e19", "-0.5",
                        "700.25"}) {
    out.push_back({f, ArgValue::floating(std::strtod(f, nullptr))});  // not stod: 5e-324 is subnormal (ERANGE)
  }
  out.push_back({"float('inf')", ArgValue::floating(std::numeric_limits<double>::infinity())});
  out.push_back({"float('nan')", ArgValue::floating(std::numeric_limits<double>::quiet_NaN())});
  out.push_back({"True", ArgValue::boolean(true)});
  out.push_back({"False", ArgValue::boolean(false)});
  out.push_back({"'abc'", ArgValue::string("abc")});
  return out;
}

// What C++ gives, in the form the Python script prints.
std::string cpp_result(tj::Strategy s, const ArgValue& v) {
  ArgValue out;
  switch (tj::apply_strategy(s, v, &out)) {
    case tj::StrategyOutcome::Value: {
      const char* type = out.kind() == ArgValue::Kind::Float  ? "float"
                         : out.kind() == ArgValue::Kind::Bool ? "bool"
                         : out.kind() == ArgValue::Kind::String ? "str"
                                                                : "int";
      return std::string(type) + " " + tj::identity_repr(out);
    }
    case tj::StrategyOutcome::DomainError: return "ValueError";
    case tj::StrategyOutcome::TypeError: return "TypeError";
    case tj::StrategyOutcome::Overflow: return "beyond int64";
  }
  return "?";
}

}  // namespace

TEST(LibTunerStrategies, SameValuesAndTypesAsFlagGems) {
  const std::vector<Case> all = cases();
  std::string script =
      "values = [";
  for (const Case& c : all) script += c.python + ", ";
  script +=
      "]\n"
      "for name in ('default', 'log', 'align32'):\n"
      "    f = le.LibTuner.get_strategy(name)\n"
      "    for v in values:\n"
      "        try:\n"
      "            r = f(v)\n"
      "            if isinstance(r, int) and not isinstance(r, bool) and not -2**63 <= r < 2**63:\n"
      "                print('beyond int64')\n"
      "            else:\n"
      "                print(type(r).__name__, repr(r))\n"
      "        except OverflowError:\n"
      "            print('beyond int64')\n"
      "        except Exception as e:\n"
      "            print(type(e).__name__)\n";
  const std::string out = flaggems_test::flaggems_python("", script);
  SKIP_WITHOUT_FLAGGEMS(out);
  std::istringstream lines(out);
  for (tj::Strategy s : {tj::Strategy::Default, tj::Strategy::Log, tj::Strategy::Align32}) {
    for (const Case& c : all) {
      std::string want;
      ASSERT_TRUE(std::getline(lines, want)) << out;
      EXPECT_EQ(cpp_result(s, c.value), want) << "strategy " << static_cast<int>(s) << " of " << c.python;
    }
  }
}

TEST(LibTunerStrategies, NamesOfTheBridge) {
  EXPECT_EQ(tj::strategy_of("default"), tj::Strategy::Default);
  EXPECT_EQ(tj::strategy_of("log"), tj::Strategy::Log);
  EXPECT_EQ(tj::strategy_of("align32"), tj::Strategy::Align32);
  EXPECT_EQ(tj::strategy_of(""), tj::Strategy::Python);
}

namespace {

// A signature whose one decorator layer is a LibTuner with every field set.
triton_jit::StaticSignature libtuner_signature() {
  triton_jit::StaticSignature s;
  s.function = "k";
  s.file = "k.py";
  for (const char* name : {"x", "M", "BLOCK"}) {
    triton_jit::ParamInfo p;
    p.name = name;
    p.index = static_cast<int>(s.params.size());
    p.is_constexpr = std::string(name) == "BLOCK";
    s.params.push_back(p);
  }
  triton_jit::DecoratorLayer layer;
  layer.kind = triton_jit::DecoratorLayer::Kind::LibTuner;
  layer.autotune.key = {1};
  triton_jit::AutotuneConfigInfo config;
  triton_jit::DefaultValue block;
  block.kind = ArgValue::Kind::Int;
  block.int_value = 64;
  block.repr = "64";
  config.kwargs = {{2, block}};
  config.repr = "BLOCK: 64, num_warps: 4, num_ctas: 1, num_stages: 3, maxnreg: None";
  layer.autotune.configs = {config};
  layer.libtuner.strategies = {"log"};
  layer.libtuner.policy = "default";
  layer.libtuner.config_table = "k_0123";
  layer.libtuner.tables = {"k_0123-a", "k_0123-b"};
  layer.libtuner.config_columns = {{{"BLOCK", block}}};
  layer.libtuner.triton_major = 3;
  layer.libtuner.triton_minor = 6;
  layer.libtuner.vendor = "nvidia";
  layer.libtuner.benchmark_tables = {{"k_bench-0", "k_bench-1"}};
  layer.libtuner.benchmark_table_of_config = {0};
  s.decorators.push_back(layer);
  return s;
}

}  // namespace

TEST(LibTunerRecords, LayerRoundTrips) {
  const triton_jit::StaticSignature s = libtuner_signature();
  const triton_jit::DecoratorLayer& layer = s.decorators[0];
  tj::BinaryWriter w;
  tj::write_signature(w, s);
  tj::BinaryReader r(w.bytes());
  const triton_jit::StaticSignature back = tj::read_signature(r);
  ASSERT_EQ(back.decorators.size(), 1u);
  const triton_jit::DecoratorLayer& l = back.decorators[0];
  EXPECT_EQ(l.kind, triton_jit::DecoratorLayer::Kind::LibTuner);
  EXPECT_EQ(l.autotune.key, std::vector<int>{1});
  EXPECT_EQ(l.libtuner.strategies, std::vector<std::string>{"log"});
  EXPECT_EQ(l.libtuner.config_table, "k_0123");
  EXPECT_EQ(l.libtuner.tables, (std::vector<std::string>{"k_0123-a", "k_0123-b"}));
  ASSERT_EQ(l.libtuner.config_columns.size(), 1u);
  EXPECT_EQ(l.libtuner.config_columns[0][0].first, "BLOCK");
  EXPECT_EQ(l.libtuner.config_columns[0][0].second.int_value, 64);
  EXPECT_EQ(l.libtuner.triton_minor, 6);
  EXPECT_EQ(l.libtuner.vendor, "nvidia");
  EXPECT_EQ(l.libtuner.benchmark_tables, layer.libtuner.benchmark_tables);
  EXPECT_EQ(l.libtuner.benchmark_table_of_config, std::vector<uint32_t>{0});
  tj::BinaryWriter again;
  tj::write_signature(again, back);
  EXPECT_EQ(again.bytes(), w.bytes());
}

namespace {

// FlagGems' Python and the decorated probe over one database file and one index.
struct SharedDatabase {
  std::string root = flaggems_test::temp_dir();
  std::string kernels = std::string(TEST_PYTHON_KERNELS_DIR) + "/libtuner_kernels.py";
  std::string env = "FLAGGEMS_DB_URL=sqlite:///" + root + "/tuned.db";
  std::string load = "sys.path.insert(0, '" TEST_PYTHON_KERNELS_DIR "')\nimport libtuner_kernels as lk\n";

  std::string python(const std::string& code) const { return flaggems_test::flaggems_python(env, load + code); }
  test_support::ChildRun probe(const std::string& function, const std::string& args,
                                  const std::string& more_env = "") const {
    return test_support::run_child("env PYTHONPATH='" TRITON_JIT_TEST_SUPPORT_DIR "' TRITON_JIT_TEST_KEEP_INDEX_DIR=1 "
                                   "TRITON_JIT_INDEX_DIR='" + root + "/index' " + env + " " + more_env + " '" +
                                   DECORATED_PROBE_PATH "' '" + kernels + "' " + function + " " + args);
  }
};

}  // namespace

// Both directions through a real tuning (on the fake driver every config takes the same time:
// the runtime keeps config 0): the runtime's choice is what FlagGems' ConfigCache reads, and a
// config FlagGems stored is launched from C++ without tuning.
TEST(LibTunerDatabase, SharedWithFlagGemsBothWays) {
  const SharedDatabase db;
  const std::string python_env = db.env;
  const std::string load = db.load;
  const std::string ready = db.python("print('ready')\n");
  SKIP_WITHOUT_FLAGGEMS(ready);
  ASSERT_EQ(ready, "ready");
  auto probe = [&](const std::string& args) { return db.probe("logged", args); };
  // M = 1000: FlagGems' key (1024, 'torch.float16', 'torch.float16') under the log strategy.
  const auto tuned = probe("--launch p:fp16 p:fp16 i:1000");
  ASSERT_EQ(tuned.status, 0) << tuned.output;
  EXPECT_EQ(tuned["tunings"], "1") << tuned.output;
  // str(Config) as the installed Triton writes it (3.9 adds ir_override).
  EXPECT_EQ(flaggems_test::flaggems_python(
                python_env, load + "print(lk.logged.cache.get((1024, 'torch.float16', 'torch.float16')))\n"),
            flaggems_test::flaggems_python(
                python_env, "import triton\nprint(triton.Config({'BLOCK': 32}, num_warps=1, num_stages=3))\n"));
  // Each timing in FlagGems' benchmark table, where its BenchmarkCache reads it (a simulated
  // millisecond a launch on the fake driver).
  EXPECT_EQ(db.python("key = (1024, 'torch.float16', 'torch.float16')\n"
                      "bench = lk.libentry.libcache[lk.logged.benchmark_table_name, key]\n"
                      "print([round(bench.get(c)[0]) for c in lk.CONFIGS])\n"),
            "[1, 1, 1, 1]");

  // FlagGems stores config 2 (BLOCK 128, 4 warps) for the key of M = 3000 (4096 under log).
  ASSERT_EQ(flaggems_test::flaggems_python(
                python_env, load + "lk.logged.cache[(4096, 'torch.float16', 'torch.float16')] = lk.CONFIGS[2]\n"
                                   "print('stored')\n"),
            "stored");
  const auto taken = probe("--launch p:fp16 p:fp16 i:3000");
  ASSERT_EQ(taken.status, 0) << taken.output;
  EXPECT_EQ(taken["tunings"], "0") << taken.output;
  EXPECT_EQ(taken["num_warps"], "4") << taken.output;
  const std::string spec = taken["spec"];
  EXPECT_EQ(spec.substr(spec.rfind(',') + 1), "128") << taken.output;
}

// FlagGems' benchmark table read by the runtime as FlagGems' bench_fn reads it: timings FlagGems
// stored are not timed again, and decide the choice (config 3 stored fastest; on the fake driver
// every config would time the same and the first be kept).
TEST(LibTunerDatabase, StoredTimingsDecideWithoutTiming) {
  const SharedDatabase db;
  const std::string stored = db.python(
      "key = (64, 'torch.float16', 'torch.float16')\n"
      "bench = lk.libentry.libcache[lk.logged.benchmark_table_name, key]\n"
      "for i, c in enumerate(lk.CONFIGS):\n"
      "    bench[c] = (4.0 - i, 4.0 - i, 4.0 - i)\n"
      "print('stored')\n");
  SKIP_WITHOUT_FLAGGEMS(stored);
  ASSERT_EQ(stored, "stored");
  const auto tuned = db.probe("logged", "--launch p:fp16 p:fp16 i:50");
  ASSERT_EQ(tuned.status, 0) << tuned.output;
  EXPECT_EQ(tuned["tunings"], "1") << tuned.output;
  EXPECT_EQ(tuned["num_warps"], "8") << tuned.output;
  const std::string spec = tuned["spec"];
  EXPECT_EQ(spec.substr(spec.rfind(',') + 1), "256") << tuned.output;
  EXPECT_EQ(db.python("print(lk.logged.cache.get((64, 'torch.float16', 'torch.float16')).kwargs)\n"),
            "{'BLOCK': 256}");
}

// A custom policy (LibTuner.register_policy) runs through Python on a miss: its bench_fn is the
// runtime's timing, written to the benchmark table for just the configs it timed; its choice is
// what FlagGems reads back. Without Python, a miss is an error naming the kernel and the policy.
TEST(LibTunerDatabase, CustomPolicyRunsThroughPython) {
  const SharedDatabase db;
  const std::string ready = db.python("print('ready')\n");
  SKIP_WITHOUT_FLAGGEMS(ready);
  ASSERT_EQ(ready, "ready");
  const auto tuned = db.probe("custom_benched", "--launch p:fp16 p:fp16 i:1000");
  ASSERT_EQ(tuned.status, 0) << tuned.output;
  EXPECT_EQ(tuned["tunings"], "1") << tuned.output;
  EXPECT_EQ(tuned["num_warps"], "8") << tuned.output;  // the policy's choice: the last config
  const std::string key = "key = (1024, 'torch.float16', 'torch.float16')\n";
  EXPECT_EQ(db.python(key + "print(lk.custom_benched.cache.get(key).kwargs)\n"), "{'BLOCK': 256}");
  EXPECT_EQ(db.python(key + "bench = lk.libentry.libcache[lk.custom_benched.benchmark_table_name, key]\n"
                            "print([bench.get(c) is not None for c in lk.CONFIGS])\n"),
            "[False, True, True, True]");

  const auto offline = db.probe("custom_benched", "--launch p:fp16 p:fp16 i:3000", "TRITON_JIT_OFFLINE=1");
  EXPECT_EQ(offline.status, 3) << offline.output;
  EXPECT_NE(offline.output.find("custom_benched tunes with the custom LibTuner policy last_benched_for_tests"),
            std::string::npos)
      << offline.output;
  EXPECT_NE(offline.output.find("Python cannot run here"), std::string::npos) << offline.output;
}

// Records of the first LibTuner format (tag 4, no benchmark tables: indexes and packs written before
// them) still read, as LibTuners without benchmark tables; they are written again in the new one.
TEST(LibTunerRecords, FirstFormatStillReads) {
  triton_jit::StaticSignature s = libtuner_signature();
  s.decorators[0].libtuner.benchmark_tables.clear();
  s.decorators[0].libtuner.benchmark_table_of_config.clear();
  tj::BinaryWriter current;
  tj::write_signature(current, s);
  triton_jit::StaticSignature bare = s;
  bare.decorators.clear();
  tj::BinaryWriter prefix;
  tj::write_signature(prefix, bare);
  // The layer's tag follows the layer count; the new format's last 8 bytes are its two empty lists.
  std::string first = current.bytes().substr(0, current.bytes().size() - 8);
  ASSERT_EQ(static_cast<uint8_t>(first[prefix.bytes().size()]), 5u);
  first[prefix.bytes().size()] = 4;
  tj::BinaryReader r(first);
  const triton_jit::StaticSignature back = tj::read_signature(r);
  EXPECT_TRUE(r.at_end());
  ASSERT_EQ(back.decorators.size(), 1u);
  EXPECT_EQ(back.decorators[0].kind, triton_jit::DecoratorLayer::Kind::LibTuner);
  EXPECT_EQ(back.decorators[0].libtuner.vendor, "nvidia");
  EXPECT_TRUE(back.decorators[0].libtuner.benchmark_tables.empty());
  tj::BinaryWriter again;
  tj::write_signature(again, back);
  EXPECT_EQ(again.bytes(), current.bytes());
}

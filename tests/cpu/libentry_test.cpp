// FlagGems' @libentry() from C++ (src/decorators/lib_entry.h) against FlagGems 5.0.2's own
// LibEntry code (tests/support/flaggems_libentry.py loads flag_gems/utils/libentry.py with its
// device runtime stubbed): the entry key on random calls, and what each call launches (frozen
// on a key's first call, including a do_not_specialize size a heuristic reads) on the fake
// driver; the frozen choices read back by a process without Python, from the index and a pack.
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../../bench/alloc_counter.h"
#include "../support/child_process.h"
#include "../support/python_reference.h"
#include "bridge/interpreter.h"
#include "cuda/driver_api.h"
#include "decorators/lib_entry.h"
#include "fake_driver.h"
#include "key/arg_identity.h"
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
using triton_jit::GridMeta;
using triton_jit::LaunchConfig;
using triton_jit::TritonJitFunction;

namespace {

namespace fs = std::filesystem;

// FlagGems' LibEntry (and Triton's binder) in this process's interpreter.
py::module_& flaggems() { return triton_jit::test::support_module("flaggems_libentry"); }

// tests/kernels/libentry_kernels.py imported by Python on its own (the runtime has its own copy).
py::object python_kernel(const char* name) {
  flaggems();  // the kernel module imports flaggems_libentry from tests/support
  return triton_jit::test::file_module(test::canonical(test::kernel("libentry_kernels.py")),
                                       "libentry_reference_kernels")
      .attr(name);
}

TritonJitFunction& runtime_kernel(const char* name) {
  flaggems();  // the kernel module imports flaggems_libentry from tests/support
  return TritonJitFunction::get(test::canonical(test::kernel("libentry_kernels.py")), name);
}

const char* reference_dtype(DType d) {
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
    case ArgValue::Kind::UInt: return py::int_(a.as_uint());
    case ArgValue::Kind::Float: return py::float_(a.as_float());
    case ArgValue::Kind::String: return py::str(std::string(a.as_string()));
    case ArgValue::Kind::Pointer:
      return py::module_::import("triton_reference")
          .attr("make_tensor")(py::int_(a.address()), std::string(reference_dtype(a.dtype())));
    default: ADD_FAILURE() << "no Python form in this test"; return py::none();
  }
}

// scaled_rows_kernel(X, Y, M, N, stride, alpha, [TILE_M, BLOCK_N, EVEN_N set by wrappers], ACT="none").
struct RowsCall {
  std::vector<ArgValue> args;  // the caller's: X, Y, M, N, stride, alpha, and ACT when given
};

std::string describe(const RowsCall& c) {
  std::string out;
  for (const ArgValue& a : c.args) {
    out += out.empty() ? "" : ", ";
    out += a.kind() == ArgValue::Kind::Pointer
               ? std::to_string(a.address() % 16) + ":" + reference_dtype(a.dtype())
               : triton_jit::detail::identity_repr(a) + "/" + std::to_string(static_cast<int>(a.kind()));
  }
  return out;
}

// As FlagGems' wrappers call it: the six leading arguments by position, ACT (after the
// parameters the wrappers set) by keyword.
py::tuple python_call(const RowsCall& c) {
  py::list args;
  py::dict kwargs;
  for (size_t i = 0; i < c.args.size() && i < 6; ++i) args.append(to_python(c.args[i]));
  if (c.args.size() > 6) kwargs["ACT"] = to_python(c.args[6]);
  return py::make_tuple(py::tuple(args), kwargs);
}

constexpr uint64_t kBase = 0x7f0000100000ull;

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "missing \"" << part << "\" in:\n" << text;
}

ArgValue tensor(std::mt19937_64& rng, DType d, bool vary_alignment) {
  const uint64_t offset = vary_alignment && rng() % 3 == 0 ? 4 * (1 + rng() % 3) : 0;
  return ArgValue::pointer_address(kBase + (rng() % 64) * 0x10000 + offset, d);
}

}  // namespace

// The vendored libentry.py is FlagGems 5.0.2's, byte for byte (the wheel's RECORD hash).
TEST(LibEntry, ReferenceIsFlagGemsOwnFile) {
  triton_jit::bridge::GilGuard gil;
  py::module_& f = flaggems();
  EXPECT_EQ(f.attr("FLAGGEMS_VERSION").cast<std::string>(), triton_jit::detail::kFlagGemsVersion);
  EXPECT_EQ(py::module_::import("triton_jit_bridge.libentry").attr("FLAGGEMS_VERSION").cast<std::string>(),
            triton_jit::detail::kFlagGemsVersion);
  EXPECT_EQ(f.attr("record_hash")(f.attr("libentry_source")()).cast<std::string>(),
            f.attr("LIBENTRY_RECORD_SHA256").cast<std::string>());
}

// The LibEntry layer has a record tag of its own, and a frozen choice reads back as written;
// damaged bytes are a FormatError, never a choice.
TEST(LibEntry, RecordsRoundTrip) {
  auto& fn = runtime_kernel("scaled_rows_kernel");
  triton_jit::detail::BinaryWriter w;
  triton_jit::detail::write_signature(w, fn.signature());
  triton_jit::detail::BinaryReader r(w.bytes());
  const triton_jit::StaticSignature back = triton_jit::detail::read_signature(r);
  ASSERT_EQ(back.decorators.size(), 3u);
  EXPECT_EQ(back.decorators[0].kind, triton_jit::DecoratorLayer::Kind::LibEntry);
  EXPECT_EQ(back.decorators[0].lib_entry.divisibility, 16);
  EXPECT_EQ(back.decorators[1].autotune.configs.size(), 2u);

  triton_jit::detail::FrozenChoice frozen;
  triton_jit::DefaultValue block;
  block.kind = ArgValue::Kind::Int;
  block.int_value = 128;
  block.repr = "128";
  triton_jit::DefaultValue act;
  act.kind = ArgValue::Kind::String;
  act.string_value = "relu";
  act.repr = "'relu'";
  frozen.values = {{7, block}, {9, act}};
  frozen.num_warps = 8;
  frozen.num_stages = 1;
  frozen.options.set("maxnreg", int64_t{128});
  frozen.pre_hooks = {{1, 0}};
  const std::string bytes = triton_jit::detail::write_frozen_choice(frozen);
  const auto read = triton_jit::detail::read_frozen_choice(bytes, 10);
  ASSERT_EQ(read->args.size(), 2u);
  EXPECT_EQ(read->args[0].first, 7u);
  EXPECT_EQ(read->args[0].second.as_int(), 128);
  EXPECT_EQ(read->args[1].second.as_string(), "relu");
  EXPECT_EQ(read->num_warps, 8);
  EXPECT_EQ(read->num_stages, 1);
  EXPECT_FALSE(read->options.empty());
  EXPECT_EQ(read->pre_hooks, frozen.pre_hooks);
  EXPECT_EQ(triton_jit::detail::write_frozen_choice(*read), bytes);
  EXPECT_THROW(triton_jit::detail::read_frozen_choice(bytes, 8),
               triton_jit::detail::FormatError);  // a parameter past the end
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_THROW(triton_jit::detail::read_frozen_choice(bytes.substr(0, cut), 10), triton_jit::detail::FormatError)
        << cut;
  }
}

// The bridge knows LibEntry by its class and reads it as the outermost layer.
TEST(LibEntry, IsReadAsTheOutermostLayer) {
  auto& fn = runtime_kernel("scaled_rows_kernel");
  const auto& layers = fn.signature().decorators;
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[0].kind, triton_jit::DecoratorLayer::Kind::LibEntry);
  EXPECT_EQ(layers[0].lib_entry.divisibility, 16);
  EXPECT_EQ(layers[1].kind, triton_jit::DecoratorLayer::Kind::Autotune);
  EXPECT_EQ(layers[2].kind, triton_jit::DecoratorLayer::Kind::Heuristics);
}

// Calls that FlagGems' LibEntry.key makes equal are the calls whose runtime key is equal, over
// random calls: tensors by (dtype, 16-byte alignment), ints by (type, value), the
// do_not_specialize N by its class, the constexpr ACT given or defaulted.
TEST(LibEntry, EntryKeyIsFlagGemsKey) {
  auto& fn = runtime_kernel("scaled_rows_kernel");
  const triton_jit::StaticSignature& s = fn.signature();
  const std::vector<uint32_t> caller = {0, 1, 2, 3, 4, 5, 9};
  const triton_jit::detail::LibEntryRuntime runtime(s, s.decorators[0].lib_entry, caller);
  std::mt19937_64 rng(2205);
  const DType dtypes[] = {DType::fp32, DType::fp16};
  const ArgValue sizes[] = {
      ArgValue::integer(1),           ArgValue::integer(16),         ArgValue::integer(17),
      ArgValue::boolean(true),        ArgValue::integer(1ll << 31),  ArgValue::integer(-5),
      ArgValue::integer(1ll << 40),   ArgValue::unsigned_integer(7), ArgValue::unsigned_integer(1ull << 63),
      ArgValue::integer(-(1ll << 40))};
  const ArgValue alphas[] = {ArgValue::floating(1.5), ArgValue::floating(1.0), ArgValue::integer(1),
                             ArgValue::floating(-0.0), ArgValue::floating(0.0)};
  const ArgValue acts[] = {ArgValue::string("relu"), ArgValue::string("none")};
  std::vector<RowsCall> calls;
  for (int c = 0; c < 400; ++c) {
    RowsCall call;
    call.args = {tensor(rng, dtypes[rng() % 2], true),
                 tensor(rng, DType::fp32, true),
                 sizes[rng() % 10],
                 sizes[rng() % 10],
                 sizes[rng() % 3],
                 alphas[rng() % 5]};
    if (rng() % 2) call.args.push_back(acts[rng() % 2]);
    calls.push_back(call);
  }
  std::vector<int> ours;
  std::map<std::vector<uint64_t>, int> first;
  for (size_t c = 0; c < calls.size(); ++c) {
    ArgValue full[10];
    for (size_t i = 0; i < 6; ++i) full[i] = calls[c].args[i];
    full[9] = calls[c].args.size() > 6 ? calls[c].args[6] : ArgValue::string("none");
    uint64_t words[triton_jit::detail::LibEntryRuntime::kMaxKeyWords];
    const uint32_t n = runtime.key_words(0, full, words);
    ours.push_back(first.emplace(std::vector<uint64_t>(words, words + n), static_cast<int>(c)).first->second);
  }
  std::vector<int> theirs;
  {
    triton_jit::bridge::GilGuard gil;
    py::list py_calls;
    for (const RowsCall& c : calls) py_calls.append(python_call(c));
    theirs = flaggems().attr("entry_keys")(python_kernel("scaled_rows_kernel"), py_calls).cast<std::vector<int>>();
  }
  ASSERT_EQ(ours.size(), theirs.size());
  size_t distinct = 0;
  for (size_t c = 0; c < ours.size(); ++c) {
    distinct += ours[c] == static_cast<int>(c);
    EXPECT_EQ(ours[c], theirs[c]) << "call " << c << " (" << describe(calls[c]) << "): the runtime keys it with call "
                                  << ours[c] << " (" << describe(calls[ours[c]]) << "), FlagGems with call "
                                  << theirs[c];
  }
  EXPECT_GT(distinct, 20u) << "the random calls should make many keys";
  EXPECT_LT(distinct, ours.size()) << "and repeat some";
  // One table per device: the same call on another device is another key.
  ArgValue full[10];
  for (size_t i = 0; i < 6; ++i) full[i] = calls[0].args[i];
  full[9] = ArgValue::string("none");
  uint64_t a[triton_jit::detail::LibEntryRuntime::kMaxKeyWords], b[triton_jit::detail::LibEntryRuntime::kMaxKeyWords];
  const uint32_t na = runtime.key_words(0, full, a), nb = runtime.key_words(1, full, b);
  EXPECT_FALSE(na == nb && std::equal(a, a + na, b));
}

namespace {

class LibEntryLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("triton_jit_libentry_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    test_support::write_unimportable_triton(root_ / "no_triton");
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
  // The probe (tests/cpu/decorated_probe.cpp) on libentry_kernels.py:FUNCTION with this test's index.
  test_support::ChildRun probe(const std::string& env, const std::string& function, const std::string& args) const {
    return test_support::run_child("env TRITON_JIT_TEST_KEEP_INDEX_DIR=1 TRITON_JIT_INDEX_DIR='" +
                                   (root_ / "index").string() + "' " + env + " '" DECORATED_PROBE_PATH "' '" +
                                   test::canonical(test::kernel("libentry_kernels.py")) + "' " + function + " " + args);
  }
  std::string with_flaggems() const { return "PYTHONPATH='" TRITON_JIT_TEST_SUPPORT_DIR "'"; }
  std::string without_python() const {
    return "TRITON_JIT_OFFLINE=1 PYTHONPATH='" + (root_ / "no_triton").string() + "'";
  }
  fs::path root_;
};

// The grid FlagGems' wrappers give these kernels: one program per TILE_M rows.
Grid rows_grid(const GridMeta& meta) {
  const int64_t m = meta["M"], tile = meta["TILE_M"];
  return Grid(static_cast<unsigned>((m + tile - 1) / tile));
}

}  // namespace

// What each call launches, against FlagGems' LibEntry.run over Triton's own wrappers: a key's
// first call runs autotune and heuristics; every later call of the key launches what they chose
// then, though N (do_not_specialize, read by the BLOCK_N heuristic and the tuning key) changed.
TEST_F(LibEntryLaunch, FreezesWhatTheFirstCallChoseAsFlagGemsDoes) {
  auto& fn = runtime_kernel("scaled_rows_kernel");
  std::mt19937_64 rng(7);
  const int64_t ms[] = {8, 32};
  const int64_t ns[] = {100, 5000, 256, 1ll << 40};
  std::vector<RowsCall> calls;
  // The first two share a key: N=5000 must launch with the BLOCK_N that N=100 froze (128).
  calls.push_back(
      {{ArgValue::pointer_address(kBase, DType::fp32), ArgValue::pointer_address(kBase + 0x10000, DType::fp32),
        ArgValue::integer(8), ArgValue::integer(100), ArgValue::integer(128), ArgValue::floating(1.5)}});
  calls.push_back(calls[0]);
  calls[1].args[3] = ArgValue::integer(5000);
  for (int c = 0; c < 10; ++c) {
    RowsCall call;
    call.args = {ArgValue::pointer_address(kBase + (rng() % 2) * 4, rng() % 4 ? DType::fp32 : DType::fp16),
                 ArgValue::pointer_address(kBase + 0x10000, DType::fp32),
                 ArgValue::integer(ms[rng() % 2]),
                 ArgValue::integer(ns[rng() % 4]),
                 ArgValue::integer(128),
                 ArgValue::floating(1.5)};
    if (rng() % 4 == 0) call.args.push_back(ArgValue::string("relu"));
    calls.push_back(call);
  }
  // Each again with another N of its class: LibEntry hits, whatever BLOCK_N or the tuning key of N say.
  for (size_t c = 2; c < 8; ++c) {
    RowsCall again = calls[c];
    const int64_t n = again.args[3].as_int();
    again.args[3] = ArgValue::integer(n == (1ll << 40) ? (1ll << 41) + 3 : n == 100 ? 3000 : 77);
    calls.push_back(again);
  }
  LaunchConfig config;
  config.grid_fn = rows_grid;
  std::vector<std::string> ours_spec;
  std::vector<fake::Launch> ours_launch;  // each call's own launch (tuning launches before it)
  for (const RowsCall& c : calls) {
    const ArgSpan span{c.args.data(), c.args.size()};
    const size_t before = fake::state().launches.size();
    fn.launch(config, span);
    ASSERT_GT(fake::state().launches.size(), before);
    ours_launch.push_back(fake::state().launches.back());
    ours_spec.push_back(fn.specialize(config, span).triton_repr());
  }
  std::vector<std::tuple<std::string, int, int, std::vector<int>, std::string>> theirs;
  {
    triton_jit::bridge::GilGuard gil;
    py::list py_calls;
    for (const RowsCall& c : calls) {
      py::tuple t = python_call(c);
      py_calls.append(py::make_tuple(t[0], t[1], 0));
    }
    py::object grid = py::module_::import("builtins")
                          .attr("eval")("lambda meta: ((meta['M'] + meta['TILE_M'] - 1) // meta['TILE_M'],)",
                                        py::dict());
    theirs = flaggems()
                 .attr("libentry_launches")(python_kernel("scaled_rows_kernel"), py_calls, grid)
                 .cast<std::vector<std::tuple<std::string, int, int, std::vector<int>, std::string>>>();
  }
  ASSERT_EQ(theirs.size(), calls.size());
  size_t hits = 0;
  for (size_t c = 0; c < calls.size(); ++c) {
    const auto& [spec, num_warps, num_stages, grid, how] = theirs[c];
    const fake::Launch& launch = ours_launch[c];
    hits += how == "hit";
    EXPECT_EQ(ours_spec[c], spec) << "call " << c << " (" << how << ")";
    EXPECT_EQ(static_cast<int>(launch.block[0] / 32), num_warps) << "call " << c;
    EXPECT_EQ(std::vector<int>({static_cast<int>(launch.grid[0]), static_cast<int>(launch.grid[1]),
                                static_cast<int>(launch.grid[2])}),
              grid)
        << "call " << c;
  }
  EXPECT_EQ(std::get<4>(theirs[1]), "hit");
  EXPECT_NE(ours_spec[1].find("('constexpr', 128)"), std::string::npos) << ours_spec[1];
  EXPECT_GE(hits, 7u);
}

// A frozen key's launch is a lookup and the plain launch: no allocation (counted on the quiet
// fake driver, which records nothing), no tuning, no heuristic, though N changed.
TEST_F(LibEntryLaunch, FrozenHitAllocatesNothing) {
  auto& fn = runtime_kernel("scaled_rows_kernel");
  std::vector<ArgValue> args = {ArgValue::pointer_address(kBase, DType::fp32),
                                ArgValue::pointer_address(kBase + 0x10000, DType::fp32),
                                ArgValue::integer(32),
                                ArgValue::integer(100),
                                ArgValue::integer(128),
                                ArgValue::floating(1.5)};
  const LaunchConfig config{Grid(8)};
  fn.launch(config, ArgSpan{args.data(), args.size()});  // the key's first call: tunes, compiles, freezes
  const triton_jit::Stats frozen = fn.stats();
  triton_jit::cuda::set_driver_for_testing(&fake::quiet_table());
  for (int i = 0; i < 3; ++i) fn.launch(config, ArgSpan{args.data(), args.size()});  // the quiet context's module
  args[3] = ArgValue::integer(5000);
#ifdef TRITON_JIT_TEST_COUNT_ALLOCATIONS
  const uint64_t before = triton_jit_bench::thread_allocations();
#endif
  for (int i = 0; i < 100; ++i) fn.launch(config, ArgSpan{args.data(), args.size()});
#ifdef TRITON_JIT_TEST_COUNT_ALLOCATIONS
  EXPECT_EQ(triton_jit_bench::thread_allocations() - before, 0u);
#endif
  EXPECT_EQ(fn.stats().tunings, frozen.tunings);
  EXPECT_EQ(fn.stats().compiles, frozen.compiles);
  EXPECT_EQ(fn.stats().heuristic_python_calls, frozen.heuristic_python_calls);
}

// A chosen config's pre_hook is frozen with it: FlagGems runs it on every later call of the key
// (launch_pre_hooks), as Autotuner.run does on the first.
TEST_F(LibEntryLaunch, FrozenPreHookRunsOnEveryCall) {
  auto& fn = runtime_kernel("hooked_kernel");
  std::vector<char> buffer(4096 + 256);
  const uintptr_t address = (reinterpret_cast<uintptr_t>(buffer.data()) + 255) & ~uintptr_t{255};
  const std::vector<ArgValue> args = {ArgValue::pointer(reinterpret_cast<void*>(address), DType::fp32, 4096),
                                      ArgValue::integer(1000)};
  {
    triton_jit::bridge::GilGuard gil;
    py::module_::import("builtins").attr("libentry_pre_hook_calls") = 0;
  }
  for (int i = 0; i < 3; ++i) fn.launch(LaunchConfig{Grid(1)}, ArgSpan{args.data(), args.size()});
  triton_jit::bridge::GilGuard gil;
  py::module_ builtins = py::module_::import("builtins");
  const int ours = builtins.attr("libentry_pre_hook_calls").cast<int>();
  builtins.attr("libentry_pre_hook_calls") = 0;
  py::list py_calls;
  for (int i = 0; i < 3; ++i) {
    py_calls.append(py::make_tuple(py::make_tuple(to_python(args[0]), 1000), py::dict(), 0));
  }
  flaggems().attr("libentry_launches")(python_kernel("hooked_kernel"), py_calls, py::make_tuple(1));
  EXPECT_EQ(ours, builtins.attr("libentry_pre_hook_calls").cast<int>());
  EXPECT_EQ(ours, 3);
}

// The frozen choice is in the index: a process without Python launches the key's later calls
// with it (no tuning, no heuristic, no compile), and a key nobody froze is a clear miss.
TEST_F(LibEntryLaunch, FrozenChoiceIsReadBackWithoutPython) {
  const std::string first_args = "--launch p:fp32 p:fp32 i:8 i:100 i:128 f:1.5";
  const auto first = probe(with_flaggems(), "scaled_rows_kernel", first_args);
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_NE(first["spec"].find(",1,128,False,"), std::string::npos) << first.output;
  // N=5000 would make BLOCK_N 256 and tune again; the frozen choice says 128.
  const auto warm = probe(without_python(), "scaled_rows_kernel", "--launch p:fp32 p:fp32 i:8 i:5000 i:128 f:1.5");
  ASSERT_EQ(warm.status, 0) << warm.output;
  EXPECT_EQ(warm["spec"], first["spec"]);
  EXPECT_EQ(warm["tunings"], "0");
  EXPECT_EQ(warm["compiles"], "0");
  EXPECT_EQ(warm["heuristic_python_calls"], "0");
  EXPECT_EQ(warm["python_used"], "0");
  EXPECT_EQ(warm["launches"], "1");
  // Another key (M=9) was never frozen: its first call runs the wrappers, which must tune (and
  // here cannot: offline, the kernels for N=5000's BLOCK_N are not in the index).
  const auto unseen = probe(without_python(), "scaled_rows_kernel", "--launch p:fp32 p:fp32 i:9 i:5000 i:128 f:1.5");
  EXPECT_EQ(unseen.status, 3) << unseen.output;
  expect_contains(unseen.output, "has no tuning result for key (9, 5000,");
}

// A pack carries the frozen choices (the index's tables of its functions): a process with the
// pack alone, no index and no Python, serves them.
TEST_F(LibEntryLaunch, PackCarriesFrozenChoices) {
  const auto first = probe(with_flaggems(), "scaled_rows_kernel", "--launch p:fp32 p:fp32 i:8 i:100 i:128 f:1.5");
  ASSERT_EQ(first.status, 0) << first.output;
  runtime_kernel("scaled_rows_kernel");  // the pack builder gets it with Python here
  const std::string manifest = (root_ / "manifest.txt").string();
  std::ofstream(manifest) << test::canonical(test::kernel("libentry_kernels.py")) << ":scaled_rows_kernel "
                          << first["spec"] << " num_warps=" << first["num_warps"] << " num_stages=2\n";
  const std::string pack = (root_ / "libentry.tjp").string();
  triton_jit::PrepareOptions quiet;
  quiet.progress = triton_jit::Progress::Never;
  triton_jit::build_pack(manifest, pack, quiet);
  const auto r = test_support::run_child(
      "env TRITON_JIT_INDEX_DIR='" + (root_ / "empty").string() + "' TRITON_JIT_PACKS='" + pack + "' " +
      without_python() + " '" + DECORATED_PROBE_PATH "' '" + test::canonical(test::kernel("libentry_kernels.py")) +
      "' scaled_rows_kernel --launch p:fp32 p:fp32 i:8 i:7000 i:128 f:1.5");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r["spec"], first["spec"]);
  EXPECT_EQ(r["python_used"], "0");
  EXPECT_EQ(r["tunings"], "0");
}

// A frozen config pre_hook needs Python: without it, the launch is a clear error naming the
// kernel and the hook.
TEST_F(LibEntryLaunch, FrozenPreHookWithoutPythonIsAClearError) {
  const auto first = probe(with_flaggems(), "hooked_kernel", "--launch p:fp32:4096 i:1000");
  ASSERT_EQ(first.status, 0) << first.output;
  const auto offline = probe(without_python(), "hooked_kernel", "--launch p:fp32:4096 i:1000");
  EXPECT_EQ(offline.status, 3) << offline.output;
  expect_contains(offline.output, "hooked_kernel: FlagGems' LibEntry froze");
  expect_contains(offline.output, "pre_hook");
  expect_contains(offline.output, "offline mode is on");
}

// FlagGems' softmax under LibEntry: its heuristics set num_warps (a launch option) with TILE_N. A
// key's first call runs them; every later call of the key launches the kernel they chose, with
// its num_warps, though N (do_not_specialize) now asks for another; as FlagGems' LibEntry.run.
TEST_F(LibEntryLaunch, FrozenKeyReplaysTheNumWarpsAHeuristicChose) {
  auto& fn = runtime_kernel("softmax_entry_kernel");
  struct Call {
    int64_t m, n;
  };
  // (8, 100) freezes TILE_N=128 and 4 warps for (8, 3000); (16, 3000) freezes 4096 and 16 warps
  // for (16, 100); N beyond 32 bits is another class of N, so another key.
  const std::vector<Call> calls = {{8, 100},       {8, 3000}, {16, 3000}, {16, 100},  {8, 5000},       {16, 2048},
                                   {8, 1ll << 40}, {8, 64},   {32, 1500}, {32, 9000}, {16, 1ll << 33}, {16, 7}};
  LaunchConfig config;
  config.grid_fn = [](const GridMeta& meta) { return Grid(static_cast<unsigned>(meta["M"])); };
  std::vector<std::string> ours_spec;
  std::vector<int> ours_warps;
  std::vector<std::vector<ArgValue>> all_args;
  for (const Call& c : calls) {
    all_args.push_back({ArgValue::pointer_address(kBase, DType::fp32),
                        ArgValue::pointer_address(kBase + 0x10000, DType::fp32), ArgValue::integer(c.m),
                        ArgValue::integer(c.n)});
    const ArgSpan span{all_args.back().data(), all_args.back().size()};
    const size_t before = fake::state().launches.size();
    fn.launch(config, span);
    ASSERT_GT(fake::state().launches.size(), before);
    ours_warps.push_back(static_cast<int>(fake::state().launches.back().block[0] / 32));
    const auto spec = fn.specialize(config, span);
    ours_spec.push_back(spec.triton_repr());
    EXPECT_EQ(spec.num_warps, ours_warps.back()) << "call " << ours_spec.size() - 1;
  }
  std::vector<std::tuple<std::string, int, int, std::vector<int>, std::string>> theirs;
  {
    triton_jit::bridge::GilGuard gil;
    py::list py_calls;
    for (const auto& args : all_args) {
      py::list a;
      for (const ArgValue& v : args) a.append(to_python(v));
      py_calls.append(py::make_tuple(py::tuple(a), py::dict(), 0));
    }
    py::object grid = py::module_::import("builtins").attr("eval")("lambda meta: (meta['M'],)", py::dict());
    theirs = flaggems()
                 .attr("libentry_launches")(python_kernel("softmax_entry_kernel"), py_calls, grid)
                 .cast<std::vector<std::tuple<std::string, int, int, std::vector<int>, std::string>>>();
  }
  ASSERT_EQ(theirs.size(), calls.size());
  size_t hits = 0;
  for (size_t c = 0; c < calls.size(); ++c) {
    const auto& [spec, num_warps, num_stages, grid, how] = theirs[c];
    hits += how == "hit";
    EXPECT_EQ(ours_spec[c], spec) << "call " << c << " (" << how << ")";
    EXPECT_EQ(ours_warps[c], num_warps) << "call " << c << " (" << how << ")";
  }
  EXPECT_EQ(std::get<4>(theirs[1]), "hit");
  EXPECT_EQ(ours_warps[1], 4) << "(8, 3000) replays the 4 warps (8, 100) froze, not the 16 its N asks for";
  EXPECT_EQ(ours_warps[3], 16) << "(16, 100) replays the 16 warps (16, 3000) froze";
  EXPECT_GE(hits, 6u);
}

// Golden files of the persisted formats (tests/golden/README.md): an index record, a pack and a
// heuristic program, each as a version of the runtime wrote it. Each test reads its golden file
// and checks every value it decodes to (spelled out here, not re-encoded), then encodes those
// values today and compares the bytes: a change of a format without a new version (and a new
// golden file) fails here.
//
// TRITON_JIT_WRITE_GOLDEN=1 writes the files instead (into tests/golden/ of the source tree) and
// skips the checks: the way to make the golden file of a new format version.
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bridge/bridge.h"
#include "bridge/interpreter.h"
#include "decorators/heuristic_program.h"
#include "store/index_entries.h"
#include "store/pack_file.h"
#include "store/records.h"

#ifndef TRITON_JIT_GOLDEN_DIR
#error "TRITON_JIT_GOLDEN_DIR must be defined (tests/cpu/CMakeLists.txt does)"
#endif

namespace fs = std::filesystem;
namespace py = pybind11;
using triton_jit::ArgValue;
using triton_jit::DecoratorLayer;
using triton_jit::DefaultValue;
using triton_jit::DType;
using triton_jit::StaticSignature;
using triton_jit::detail::FileDependency;
using triton_jit::detail::HeuristicProgram;
using triton_jit::detail::KernelIndex;
using triton_jit::detail::KernelRecord;
using triton_jit::detail::PackContents;
using triton_jit::detail::PackFunction;

namespace {

const std::string kGoldenEnvironment = "golden-environment";

fs::path golden(const std::string& name) { return fs::path(TRITON_JIT_GOLDEN_DIR) / name; }

bool writing() {
  const char* w = std::getenv("TRITON_JIT_WRITE_GOLDEN");
  return w != nullptr && std::string(w) == "1";
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << path << " (tests/golden/README.md says how it is made)";
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  std::printf("wrote %s (%zu bytes)\n", path.c_str(), bytes.size());
}

// The index of one format version beside the golden files' values: the record below, as a
// compile of add_kernel would store it. Its dependencies are optional files that do not exist,
// so the record stays valid wherever it is read.
KernelRecord index_record() {
  KernelRecord r;
  r.function_path = "/golden/kernels/add.py";
  r.function_name = "add_kernel";
  r.key.signature = "*fp32:16,*fp32:16,*fp32:16,i32,1024";
  r.key.num_warps = 4;
  r.key.num_stages = 3;
  r.key.num_ctas = 1;
  r.key.options = "maxnreg=128";
  r.key.target = triton_jit::Target{"cuda", 90, 32};
  r.dependencies.push_back(
      FileDependency{"/golden/kernels/add.py", 1234, 1700000000123456789, std::string(64, 'a'), false});
  r.dependencies.push_back(FileDependency{"/golden/triton/__init__.py", 99, 5, std::string(64, 'b'), false});
  r.created_unix = 1767225600;  // 2026-01-01
  r.kernel.info.name = "add_kernel";
  r.kernel.info.target = triton_jit::Target{"cuda", 90, 32};
  r.kernel.info.cubin = std::string("\x7f"
                                    "ELF golden cubin\0\x01\xff",
                                    21);
  r.kernel.info.num_warps = 4;
  r.kernel.info.num_ctas = 1;
  r.kernel.info.shared = 4096;
  r.kernel.info.hash = "0123456789abcdef";
  r.kernel.info.triton_version = "3.6.0";
  r.kernel.launch.cluster_dims[0] = 2;
  r.kernel.launch.global_scratch_size = 256;
  r.kernel.launch.global_scratch_align = 128;
  r.kernel.launch.profile_scratch_size = 0;
  r.kernel.launch.profile_scratch_align = 1;
  r.kernel.launch.launch_pdl = true;
  r.kernel.launch.launch_cooperative_grid = false;
  r.kernel.launch.scratch_params = {"global_scratch", "profile_scratch"};
  r.kernel.launch.metadata_json = "{\"name\": \"add_kernel\", \"shared\": 4096}";
  r.kernel.launch.tensordesc_meta.push_back(triton_jit::detail::DescriptorMeta{3, 2, 6, {64, 128}, true});
  r.kernel.launch.tensordesc_scalars = {"padding"};
  return r;
}

// What index_record() holds, checked field by field against the values written out here.
void expect_index_record(const KernelRecord& r) {
  EXPECT_EQ(r.function_path, "/golden/kernels/add.py");
  EXPECT_EQ(r.function_name, "add_kernel");
  EXPECT_EQ(r.key.signature, "*fp32:16,*fp32:16,*fp32:16,i32,1024");
  EXPECT_EQ(r.key.num_warps, 4);
  EXPECT_EQ(r.key.num_stages, 3);
  EXPECT_EQ(r.key.num_ctas, 1);
  EXPECT_EQ(r.key.options, "maxnreg=128");
  EXPECT_EQ(r.key.target.str(), "cuda:90");
  EXPECT_EQ(r.key.target.warp_size, 32);
  ASSERT_EQ(r.dependencies.size(), 2u);
  EXPECT_EQ(r.dependencies[0].path, "/golden/kernels/add.py");
  EXPECT_EQ(r.dependencies[0].size, 1234u);
  EXPECT_EQ(r.dependencies[0].mtime_ns, 1700000000123456789);
  EXPECT_EQ(r.dependencies[0].sha256, std::string(64, 'a'));
  EXPECT_FALSE(r.dependencies[0].required);
  EXPECT_EQ(r.dependencies[1].path, "/golden/triton/__init__.py");
  EXPECT_EQ(r.dependencies[1].size, 99u);
  EXPECT_EQ(r.dependencies[1].mtime_ns, 5);
  EXPECT_EQ(r.dependencies[1].sha256, std::string(64, 'b'));
  EXPECT_FALSE(r.dependencies[1].required);
  EXPECT_EQ(r.created_unix, 1767225600);
  const triton_jit::KernelInfo& i = r.kernel.info;
  EXPECT_EQ(i.name, "add_kernel");
  EXPECT_EQ(i.target.str(), "cuda:90");
  EXPECT_EQ(i.cubin, std::string("\x7f"
                                 "ELF golden cubin\0\x01\xff",
                                 21));
  EXPECT_EQ(i.num_warps, 4);
  EXPECT_EQ(i.num_ctas, 1);
  EXPECT_EQ(i.shared, 4096);
  EXPECT_EQ(i.hash, "0123456789abcdef");
  EXPECT_EQ(i.triton_version, "3.6.0");
  const triton_jit::detail::LaunchMetadata& l = r.kernel.launch;
  EXPECT_EQ(l.cluster_dims[0], 2);
  EXPECT_EQ(l.cluster_dims[1], 1);
  EXPECT_EQ(l.cluster_dims[2], 1);
  EXPECT_EQ(l.global_scratch_size, 256);
  EXPECT_EQ(l.global_scratch_align, 128);
  EXPECT_EQ(l.profile_scratch_size, 0);
  EXPECT_EQ(l.profile_scratch_align, 1);
  EXPECT_TRUE(l.launch_pdl);
  EXPECT_FALSE(l.launch_cooperative_grid);
  EXPECT_EQ(l.scratch_params, (std::vector<std::string>{"global_scratch", "profile_scratch"}));
  EXPECT_EQ(l.metadata_json, "{\"name\": \"add_kernel\", \"shared\": 4096}");
  ASSERT_EQ(l.tensordesc_meta.size(), 1u);
  EXPECT_EQ(l.tensordesc_meta[0].swizzle, 3);
  EXPECT_EQ(l.tensordesc_meta[0].elem_size, 2);
  EXPECT_EQ(l.tensordesc_meta[0].elem_type, 6);
  EXPECT_EQ(l.tensordesc_meta[0].block_size, (std::vector<int>{64, 128}));
  EXPECT_TRUE(l.tensordesc_meta[0].fp4_padded);
  EXPECT_EQ(l.tensordesc_scalars, (std::vector<std::string>{"padding"}));
}

DefaultValue int_value(int64_t v, const std::string& repr) {
  DefaultValue d;
  d.kind = ArgValue::Kind::Int;
  d.int_value = v;
  d.repr = repr;
  return d;
}

// A pack of one decorated function (@triton.autotune over @triton.heuristics over @triton.jit)
// with its index tables and the kernel of index_record().
PackContents pack_contents() {
  PackContents p;
  PackFunction f;
  f.name = "add_kernel";
  f.file = "kernels/add.py";
  f.source_sha256 = std::string(64, 'c');
  StaticSignature& s = f.signature;
  s.function = "add_kernel";
  s.file = "/golden/kernels/add.py";
  s.first_line = 7;
  const char* names[] = {"x_ptr", "y_ptr", "n", "scale", "BLOCK"};
  for (int i = 0; i < 5; ++i) {
    triton_jit::ParamInfo param;
    param.name = names[i];
    param.index = i;
    s.params.push_back(param);
  }
  s.params[0].is_const = true;
  s.params[2].do_not_specialize = true;
  s.params[2].annotation = "tl.int32";
  s.params[2].annotation_type = "i32";
  DefaultValue half;
  half.kind = ArgValue::Kind::Float;
  half.float_value = 0.5;
  half.repr = "0.5";
  s.params[3].default_value = half;
  s.params[4].is_constexpr = true;
  s.params[4].default_value = int_value(1024, "1024");
  DecoratorLayer autotune;
  autotune.kind = DecoratorLayer::Kind::Autotune;
  autotune.autotune.key = {2};
  for (int block : {512, 1024}) {
    triton_jit::AutotuneConfigInfo c;
    c.kwargs.emplace_back(4, int_value(block, std::to_string(block)));
    c.num_warps = block / 128;
    c.num_stages = 2;
    c.num_ctas = 1;
    c.repr = "BLOCK: " + std::to_string(block) + ", num_warps: " + std::to_string(block / 128);
    autotune.autotune.configs.push_back(std::move(c));
  }
  autotune.autotune.configs[1].options.set("maxnreg", int64_t{128});
  autotune.autotune.configs[1].has_pre_hook = true;
  autotune.autotune.reset_to_zero = {1};
  autotune.autotune.restore_value = {0};
  autotune.autotune.has_post_hook = true;
  autotune.autotune.cache_results = true;
  autotune.autotune.top_k = 0.5;
  autotune.autotune.warmup_ms = 5;
  autotune.autotune.rep_ms = 20;
  s.decorators.push_back(std::move(autotune));
  DecoratorLayer heuristics;
  heuristics.kind = DecoratorLayer::Kind::Heuristics;
  heuristics.heuristics.push_back(
      triton_jit::HeuristicInfo{"BLOCK", 4, "heuristic-program 1\nparam 2\n", "", "lambda args: args['n']"});
  heuristics.heuristics.push_back(
      triton_jit::HeuristicInfo{"scale", 3, "", "it calls print", "lambda args: print(args)"});
  s.decorators.push_back(std::move(heuristics));
  f.tables.push_back({"autotune", {{"(1024,)", "1"}, {"(4096,)", "0"}}});
  p.functions.push_back(std::move(f));
  p.kernel_function.push_back(0);
  p.kernels.push_back(index_record());
  return p;
}

void expect_pack_contents(const PackContents& p) {
  ASSERT_EQ(p.functions.size(), 1u);
  const PackFunction& f = p.functions[0];
  EXPECT_EQ(f.name, "add_kernel");
  EXPECT_EQ(f.file, "kernels/add.py");
  EXPECT_EQ(f.source_sha256, std::string(64, 'c'));
  const StaticSignature& s = f.signature;
  EXPECT_EQ(s.function, "add_kernel");
  EXPECT_EQ(s.file, "/golden/kernels/add.py");
  EXPECT_EQ(s.first_line, 7);
  ASSERT_EQ(s.params.size(), 5u);
  const char* names[] = {"x_ptr", "y_ptr", "n", "scale", "BLOCK"};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(s.params[i].name, names[i]);
    EXPECT_EQ(s.params[i].index, i);
    EXPECT_EQ(s.params[i].is_const, i == 0) << i;
    EXPECT_EQ(s.params[i].do_not_specialize, i == 2) << i;
    EXPECT_FALSE(s.params[i].do_not_specialize_on_alignment) << i;
    EXPECT_EQ(s.params[i].is_constexpr, i == 4) << i;
    EXPECT_EQ(s.params[i].default_value.has_value(), i >= 3) << i;
  }
  EXPECT_EQ(s.params[2].annotation, "tl.int32");
  EXPECT_EQ(s.params[2].annotation_type, "i32");
  EXPECT_EQ(s.params[3].default_value->kind, ArgValue::Kind::Float);
  EXPECT_EQ(s.params[3].default_value->float_value, 0.5);
  EXPECT_EQ(s.params[3].default_value->repr, "0.5");
  EXPECT_TRUE(s.params[3].default_value->representable);
  EXPECT_EQ(s.params[4].default_value->kind, ArgValue::Kind::Int);
  EXPECT_EQ(s.params[4].default_value->int_value, 1024);
  EXPECT_EQ(s.params[4].default_value->repr, "1024");
  ASSERT_EQ(s.decorators.size(), 2u);
  ASSERT_EQ(s.decorators[0].kind, DecoratorLayer::Kind::Autotune);
  const triton_jit::AutotuneInfo& a = s.decorators[0].autotune;
  EXPECT_EQ(a.key, (std::vector<int>{2}));
  ASSERT_EQ(a.configs.size(), 2u);
  for (size_t c = 0; c < 2; ++c) {
    const int block = c == 0 ? 512 : 1024;
    ASSERT_EQ(a.configs[c].kwargs.size(), 1u);
    EXPECT_EQ(a.configs[c].kwargs[0].first, 4);
    EXPECT_EQ(a.configs[c].kwargs[0].second.kind, ArgValue::Kind::Int);
    EXPECT_EQ(a.configs[c].kwargs[0].second.int_value, block);
    EXPECT_EQ(a.configs[c].num_warps, block / 128);
    EXPECT_EQ(a.configs[c].num_stages, 2);
    EXPECT_EQ(a.configs[c].num_ctas, 1);
    EXPECT_EQ(a.configs[c].has_pre_hook, c == 1);
  }
  EXPECT_EQ(a.configs[0].repr, "BLOCK: 512, num_warps: 4");
  EXPECT_TRUE(a.configs[0].options.empty());
  ASSERT_EQ(a.configs[1].options.items().size(), 1u);
  EXPECT_EQ(a.configs[1].options.items()[0].first, "maxnreg");
  EXPECT_EQ(std::get<int64_t>(a.configs[1].options.items()[0].second), 128);
  EXPECT_EQ(a.reset_to_zero, (std::vector<int>{1}));
  EXPECT_EQ(a.restore_value, (std::vector<int>{0}));
  EXPECT_FALSE(a.has_pre_hook);
  EXPECT_TRUE(a.has_post_hook);
  EXPECT_FALSE(a.has_perf_model);
  EXPECT_FALSE(a.has_early_config_prune);
  EXPECT_TRUE(a.cache_results);
  EXPECT_EQ(a.top_k, 0.5);
  EXPECT_EQ(a.warmup_ms, 5);
  EXPECT_EQ(a.rep_ms, 20);
  ASSERT_EQ(s.decorators[1].kind, DecoratorLayer::Kind::Heuristics);
  const auto& h = s.decorators[1].heuristics;
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].name, "BLOCK");
  EXPECT_EQ(h[0].param, 4);
  EXPECT_EQ(h[0].program, "heuristic-program 1\nparam 2\n");
  EXPECT_EQ(h[0].not_translated_reason, "");
  EXPECT_EQ(h[0].source, "lambda args: args['n']");
  EXPECT_EQ(h[1].name, "scale");
  EXPECT_EQ(h[1].param, 3);
  EXPECT_EQ(h[1].program, "");
  EXPECT_EQ(h[1].not_translated_reason, "it calls print");
  ASSERT_EQ(f.tables.size(), 1u);
  EXPECT_EQ(f.tables[0].first, "autotune");
  EXPECT_EQ(f.tables[0].second, (std::vector<std::pair<std::string, std::string>>{{"(1024,)", "1"}, {"(4096,)", "0"}}));
  EXPECT_EQ(p.kernel_function, (std::vector<uint32_t>{0}));
  ASSERT_EQ(p.kernels.size(), 1u);
  expect_index_record(p.kernels[0]);
}

class IndexGolden : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("triton_jit_golden_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override {
    KernelIndex::instance().set_directory(std::nullopt);
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  // The file the index keeps `r` in, below the index folder `dir`.
  static fs::path entry_file(const fs::path& dir, const KernelRecord& r) {
    const std::string id = KernelIndex::kernel_id(r.function_path, r.function_name, r.key, kGoldenEnvironment);
    return dir / "v3" / "kernels" / id.substr(0, 2) / (id + ".tjk");
  }
  fs::path root_;
};

}  // namespace

// The kernel record of index format 3 (DIR/v3/kernels/XX/ID.tjk).
TEST_F(IndexGolden, KernelRecordVersion3) {
  const KernelRecord record = index_record();
  const fs::path written = root_ / "written";
  KernelIndex::instance().set_directory(written.string());
  KernelIndex::instance().store(record, kGoldenEnvironment);
  const std::string bytes = read_bytes(entry_file(written, record));
  ASSERT_FALSE(bytes.empty());
  if (writing()) {
    write_bytes(golden("index_kernel_v3.tjk"), bytes);
    GTEST_SKIP() << "TRITON_JIT_WRITE_GOLDEN=1: written, not checked";
  }
  const std::string gold = read_bytes(golden("index_kernel_v3.tjk"));

  // Decode: the golden file where the index looks for it reads back as the values above.
  const fs::path read = root_ / "read";
  fs::create_directories(entry_file(read, record).parent_path());
  write_bytes(entry_file(read, record), gold);
  KernelIndex::instance().set_directory(read.string());
  std::string stale;
  const auto loaded = KernelIndex::instance().load(record.function_path, record.function_name, record.key,
                                                   kGoldenEnvironment, &stale);
  ASSERT_TRUE(loaded) << "the golden record was not read (stale: '" << stale << "')";
  expect_index_record(*loaded);

  // Encode: today's index writes the same bytes.
  EXPECT_EQ(bytes.size(), gold.size());
  EXPECT_TRUE(bytes == gold) << "index kernel records are no longer written as format 3 wrote them: a format change "
                                "needs a new version and golden file (tests/golden/README.md)";
}

// A pack of format 4 (store/pack_file.h).
TEST(PackGolden, Version4) {
  ASSERT_EQ(triton_jit::detail::kPackFormatVersion, 4u)
      << "a new pack format version needs its golden file and test (tests/golden/README.md)";
  const std::string bytes = triton_jit::detail::encode_pack(pack_contents());
  if (writing()) {
    write_bytes(golden("pack_v4.tjp"), bytes);
    GTEST_SKIP() << "TRITON_JIT_WRITE_GOLDEN=1: written, not checked";
  }
  const std::string gold = read_bytes(golden("pack_v4.tjp"));
  try {
    expect_pack_contents(triton_jit::detail::decode_pack(gold));
  } catch (const triton_jit::detail::FormatError& e) {
    FAIL() << "pack_v4.tjp is not read: " << e.what;
  }
  EXPECT_EQ(bytes.size(), gold.size());
  EXPECT_TRUE(bytes == gold) << "packs are no longer written as format 4 wrote them: a format change needs a new "
                                "version and golden file (tests/golden/README.md)";
}

// A heuristic program of text format 1 (decorators/heuristic_program.h), as the bridge translates
// tests/golden/heuristic_program_v1.py.
TEST(HeuristicProgramGolden, Version1) {
  StaticSignature sig;
  for (const char* name : {"a", "n", "flag", "mode", "dt"}) {
    triton_jit::ParamInfo p;
    p.name = name;
    p.index = static_cast<int>(sig.params.size());
    sig.params.push_back(p);
  }
  std::optional<std::string> text;
  std::string reason;
  {
    triton_jit::bridge::GilGuard gil;
    triton_jit::bridge::bridge();
    py::dict globals = py::module_::import("runpy").attr("run_path")(golden("heuristic_program_v1.py").string());
    py::object func = globals["GOLDEN"];
    text = triton_jit::bridge::translate_heuristic(triton_jit::bridge::PyHandle{func.inc_ref().ptr()}, sig, &reason);
  }
  ASSERT_TRUE(text) << "not translated: " << reason;
  if (writing()) {
    write_bytes(golden("heuristic_program_v1.txt"), *text);
    GTEST_SKIP() << "TRITON_JIT_WRITE_GOLDEN=1: written, not checked";
  }
  const std::string gold = read_bytes(golden("heuristic_program_v1.txt"));

  // Decode: the golden program evaluates as Python evaluates the lambda.
  const HeuristicProgram program = HeuristicProgram::parse(gold);
  EXPECT_EQ(program.params_read(), (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  auto run = [&](ArgValue a, int64_t n, bool flag, const char* mode, DType dt) {
    const ArgValue args[] = {a, ArgValue::integer(n), ArgValue::boolean(flag), ArgValue::string(mode),
                             ArgValue::triton_dtype(dt)};
    ArgValue result;
    EXPECT_EQ(program.evaluate(args, 5, &result), HeuristicProgram::Outcome::Value);
    return result;
  };
  // flag and a not None: max(16, next_power_of_2(n), 2).
  EXPECT_EQ(run(ArgValue::integer(3), 100, true, "fast", DType::fp16).as_int(), 128);
  EXPECT_EQ(run(ArgValue::integer(3), 5, true, "slow", DType::fp32).as_int(), 16);
  // Else: cdiv(n, 8) % 7 + int(1.5 * a) - 2 + (mode == "fast") + (dt == tl.float16)
  //       + (not flag or n < 0) + (n >> 1) * -a + float(n is None) * 0.25, a float.
  // n=100, a=4, flag=False, "fast", fp16: 13 % 7 + 6 - 2 + 1 + 1 + 1 + 50 * -4 + 0.0 = -187.0
  ArgValue r = run(ArgValue::integer(4), 100, false, "fast", DType::fp16);
  EXPECT_EQ(r.kind(), ArgValue::Kind::Float);
  EXPECT_EQ(r.as_float(), -187.0);
  // a is None and flag True: the else branch with a None... raises in Python: needs Python.
  const ArgValue none_args[] = {ArgValue::none(), ArgValue::integer(1), ArgValue::boolean(true), ArgValue::string("x"),
                                ArgValue::triton_dtype(DType::fp32)};
  ArgValue ignored;
  EXPECT_EQ(program.evaluate(none_args, 5, &ignored), HeuristicProgram::Outcome::NeedsPython);

  // Encode: today's bridge translates the lambda to the same text.
  EXPECT_EQ(*text, gold) << "heuristic programs are no longer translated as format 1 wrote them: a format change "
                            "needs a new version and golden file (tests/golden/README.md)";
}

// Values the runtime reads from outside (environment variables, files, names) are checked where
// they come in: a bad one is a clear error or warning, never a crash or a silent default.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "bridge/python_select.h"
#include "settings/settings.h"
#include "store/records.h"
#include "test_util.h"
#include "triton_jit/errors.h"
#include "triton_jit/index.h"
#include "triton_jit/jit_function.h"

namespace {

using triton_jit::detail::BinaryReader;
using triton_jit::detail::BinaryWriter;
using triton_jit::detail::FormatError;
using triton_jit::detail::KernelRecord;

TEST(EnvFlag, TakesTheUsualSpellingsInAnyCase) {
  for (const char* yes : {"1", "true", "TRUE", "True", "yes", "YES", "on", "On"}) {
    EXPECT_EQ(triton_jit::detail::parse_flag(yes), std::optional<bool>(true)) << yes;
  }
  for (const char* no : {"0", "false", "FALSE", "no", "No", "off", "OFF"}) {
    EXPECT_EQ(triton_jit::detail::parse_flag(no), std::optional<bool>(false)) << no;
  }
  for (const char* bad : {"", "2", "y", "yess", "enable", " 1", "true "}) {
    EXPECT_EQ(triton_jit::detail::parse_flag(bad), std::nullopt) << bad;
  }
}

// TRITON_JIT_OFFLINE=yes was silently online: only 1, true and on were read.
TEST(EnvFlag, AnUnknownValueIsAWarningNamingTheVariableAndTheSpellings) {
  ::setenv("TRITON_JIT_TEST_FLAG", "yes", 1);
  EXPECT_TRUE(triton_jit::detail::env_flag("TRITON_JIT_TEST_FLAG", false));
  ::setenv("TRITON_JIT_TEST_FLAG", "maybe", 1);
  testing::internal::CaptureStderr();
  EXPECT_FALSE(triton_jit::detail::env_flag("TRITON_JIT_TEST_FLAG", false));
  EXPECT_TRUE(triton_jit::detail::env_flag("TRITON_JIT_TEST_FLAG", true));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("[triton_jit] warning: ignoring TRITON_JIT_TEST_FLAG=maybe: expected 1, true, yes or on, or 0, "
                     "false, no or off (any case); using off\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("using on"), std::string::npos) << err;
  ::unsetenv("TRITON_JIT_TEST_FLAG");
  EXPECT_TRUE(triton_jit::detail::env_flag("TRITON_JIT_TEST_FLAG", true));
}

// The index folder's variable: TRITON_JIT_INDEX_DIR, with its former name TRITON_JIT_CACHE_DIR
// still read. set_index_dir(std::nullopt) reads the environment again.
class IndexDirVariable : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"TRITON_JIT_INDEX_DIR", "TRITON_JIT_CACHE_DIR"}) {
      if (const char* value = std::getenv(name)) saved_.emplace_back(name, value);
      ::unsetenv(name);
    }
  }
  void TearDown() override {
    ::unsetenv("TRITON_JIT_INDEX_DIR");
    ::unsetenv("TRITON_JIT_CACHE_DIR");
    for (const auto& [name, value] : saved_) ::setenv(name.c_str(), value.c_str(), 1);
    triton_jit::set_index_dir(std::nullopt);
  }
  static std::string read_from_environment() {
    triton_jit::set_index_dir(std::nullopt);
    return triton_jit::index_dir();
  }
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(IndexDirVariable, TheNewNameIsRead) {
  ::setenv("TRITON_JIT_INDEX_DIR", "/tmp/tj-index-new", 1);
  EXPECT_EQ(read_from_environment(), "/tmp/tj-index-new");
}

TEST_F(IndexDirVariable, TheFormerNameIsStillRead) {
  ::setenv("TRITON_JIT_CACHE_DIR", "/tmp/tj-index-former", 1);
  EXPECT_EQ(read_from_environment(), "/tmp/tj-index-former");
}

TEST_F(IndexDirVariable, TheNewNameWinsWhenBothAreSet) {
  ::setenv("TRITON_JIT_INDEX_DIR", "/tmp/tj-index-new", 1);
  ::setenv("TRITON_JIT_CACHE_DIR", "/tmp/tj-index-former", 1);
  EXPECT_EQ(read_from_environment(), "/tmp/tj-index-new");
}

TEST_F(IndexDirVariable, AnEmptyValueTurnsTheIndexOffUnderEitherName) {
  ::setenv("TRITON_JIT_INDEX_DIR", "", 1);
  ::setenv("TRITON_JIT_CACHE_DIR", "/tmp/tj-index-former", 1);
  EXPECT_EQ(read_from_environment(), "");
  EXPECT_EQ(triton_jit::index_status().state, triton_jit::IndexStatus::State::Off);
  ::unsetenv("TRITON_JIT_INDEX_DIR");
  ::setenv("TRITON_JIT_CACHE_DIR", "", 1);
  EXPECT_EQ(read_from_environment(), "");
  EXPECT_EQ(triton_jit::index_status().state, triton_jit::IndexStatus::State::Off);
}

KernelRecord good_record() {
  KernelRecord r;
  r.function_path = "/k.py";
  r.function_name = "add_kernel";
  r.key.signature = "*fp32:16,i32";
  r.created_unix = 1764000000;
  r.kernel.info.name = "add_kernel";
  r.kernel.info.cubin = "\x7f"
                        "ELF";
  return r;
}

std::string written(const KernelRecord& r) {
  BinaryWriter w;
  triton_jit::detail::write_kernel_record(w, r);
  return w.take();
}

// The reason read_kernel_record gives for `bytes`, or "" when it reads them.
std::string rejection(const std::string& bytes) {
  try {
    BinaryReader r(bytes);
    triton_jit::detail::read_kernel_record(r);
    return "";
  } catch (const FormatError& e) {
    return e.what.empty() ? "(empty reason)" : e.what;
  }
}

TEST(RecordFields, AGoodRecordReadsBack) {
  const std::string bytes = written(good_record());
  ASSERT_EQ(rejection(bytes), "");
  BinaryReader r(bytes);
  const KernelRecord back = triton_jit::detail::read_kernel_record(r);
  EXPECT_EQ(back.created_unix, 1764000000);
  EXPECT_EQ(back.kernel.info.name, "add_kernel");
}

// `triton-jit cache info` (now `index info`) crashed (exit 139) on a sealed entry created past the
// year 2^31: localtime had no answer and strftime was handed none. Every number read from a record is range-checked.
TEST(RecordFields, NumbersOutOfRangeAreDamage) {
  struct Case {
    const char* field;
    void (*spoil)(KernelRecord&);
  };
  const Case cases[] = {
      {"creation time", [](KernelRecord& r) { r.created_unix = int64_t{1} << 62; }},
      {"creation time", [](KernelRecord& r) { r.created_unix = -5; }},
      {"num_warps", [](KernelRecord& r) { r.key.num_warps = -1; }},
      {"num_stages", [](KernelRecord& r) { r.key.num_stages = 100000; }},
      {"num_ctas", [](KernelRecord& r) { r.key.num_ctas = 0; }},
      {"warp size", [](KernelRecord& r) { r.key.target.warp_size = 0; }},
      {"target architecture", [](KernelRecord& r) { r.key.target.arch = -90; }},
      {"unknown backend", [](KernelRecord& r) { r.key.target.backend = "metal"; }},
      {"kernel num_warps", [](KernelRecord& r) { r.kernel.info.num_warps = 0; }},
      {"shared memory size", [](KernelRecord& r) { r.kernel.info.shared = -1; }},
      {"global scratch size", [](KernelRecord& r) { r.kernel.launch.global_scratch_size = -4096; }},
      {"cluster dimension", [](KernelRecord& r) { r.kernel.launch.cluster_dims[1] = -1; }},
  };
  for (const Case& c : cases) {
    KernelRecord r = good_record();
    c.spoil(r);
    const std::string why = rejection(written(r));
    EXPECT_NE(why.find(c.field), std::string::npos) << c.field << ": " << why;
  }
}

TEST(RecordFields, CountsBeyondTheFileAreDamage) {
  KernelRecord r = good_record();
  r.dependencies.push_back({"/k.py", 10, 1, std::string(64, 'a'), true});
  std::string bytes = written(r);
  // The dependency count follows the key; set it to 2^32-1 (the record holds one).
  const std::string one_dependency = std::string("\x01\x00\x00\x00", 4) + std::string("\x05\x00\x00\x00", 4) + "/k.py";
  const size_t at = bytes.find(one_dependency);
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 4, std::string("\xff\xff\xff\xff", 4));
  EXPECT_NE(rejection(bytes).find("bad dependency count"), std::string::npos) << rejection(bytes);
}

// `module::k` (an empty module name) ended its message at "no module named".
TEST(ModuleNames, AnEmptyModuleNameSaysSo) {
  try {
    triton_jit::TritonJitFunction::get_module("", "k");
    FAIL() << "an empty module name was accepted";
  } catch (const triton_jit::KernelLookupError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot get Triton function 'k': the module name is empty; name a module as module:MODULE:FUNCTION "
              "(module:pkg.kernels:k)");
  }
}

// `TRITON_JIT_OFFLINE=1 triton-jit compile` said "not in the kernel cache" for a kernel the index
// held: an ahead-of-time compile request, which always compiles online, answers from the index
// (or a loaded pack) offline.
TEST(OfflineCompile, ARequestTheIndexHoldsIsAnsweredFromIt) {
  const std::string dir = std::filesystem::temp_directory_path() / ("tj-offline-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  triton_jit::set_index_dir(dir);
  triton_jit::TritonJitFunction& add = triton_jit::TritonJitFunction::get(test::kernel("add.py"), "add_kernel");
  const std::string sig = "*fp32:16,*fp32:16,*fp32:16,i32,64";
  const triton_jit::KernelInfo online = add.compile(
      triton_jit::CompileRequest{sig, 4, 3, 1, {}, triton_jit::Target::parse("cuda:90")});
  const uint64_t compiles = add.stats().compiles;
  triton_jit::set_offline(true);
  const triton_jit::KernelInfo offline = add.compile(
      triton_jit::CompileRequest{sig, 4, 3, 1, {}, triton_jit::Target::parse("cuda:90")});
  EXPECT_EQ(offline.cubin, online.cubin);
  EXPECT_EQ(offline.name, online.name);
  EXPECT_EQ(add.stats().compiles, compiles);
  try {
    add.compile(triton_jit::CompileRequest{sig, 4, 3, 1, {}, triton_jit::Target::parse("cuda:80")});
    ADD_FAILURE() << "compiled offline";
  } catch (const triton_jit::MissingKernelError& e) {
    EXPECT_NE(std::string(e.what()).find("offline mode is on"), std::string::npos) << e.what();
  }
  triton_jit::set_offline(false);
  triton_jit::set_index_dir(std::nullopt);
  std::filesystem::remove_all(dir);
}

// pyenv's python3 is a bash script (a shim): the bridge looked for Python's library around the
// script and reported the Python 3.11 behind it as "not a Python 3.11".
TEST(PythonSelect, AScriptInPlaceOfPythonIsResolvedToTheInterpreterItRuns) {
  const char* tested = std::getenv("TRITON_JIT_PYTHON");
  if (tested == nullptr || *tested == '\0') GTEST_SKIP() << "needs TRITON_JIT_PYTHON (the tested python)";
  const std::string python = tested;
  const std::string dir = std::filesystem::temp_directory_path() / ("tj-shim-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string shim = dir + "/python3";
  {
    std::ofstream f(shim);
    f << "#!/bin/sh\n# like pyenv's shims: a script that runs the interpreter\nexec '" << python << "' \"$@\"\n";
  }
  std::filesystem::permissions(shim, std::filesystem::perms::owner_all);
  ::setenv("TRITON_JIT_PYTHON", shim.c_str(), 1);
  const triton_jit::bridge::PythonChoice choice = triton_jit::bridge::select_python();
  ::setenv("TRITON_JIT_PYTHON", python.c_str(), 1);
  std::filesystem::remove_all(dir);
  // What the interpreter calls itself: the tested python's path, or what its own links lead to.
  EXPECT_NE(choice.path, shim);
  EXPECT_TRUE(std::filesystem::exists(choice.path)) << choice.path;
  EXPECT_TRUE(std::filesystem::equivalent(choice.path, python)) << choice.path << " vs " << python;
  EXPECT_NE(choice.origin.find("TRITON_JIT_PYTHON, a script running " + choice.path), std::string::npos)
      << choice.origin;
}

}  // namespace

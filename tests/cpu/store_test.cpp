// The persistent kernel index and kernel packs, across processes: each case runs store_probe
// (a fresh process) against a private index directory and reads what the probe took to launch.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../support/child_process.h"
#include "store/files.h"
#include "store/index_entries.h"
#include "store/records.h"
#include "store/sha256.h"
#include "support/launch_metadata.h"
#include "test_util.h"
#include "triton_jit/triton_jit.h"

namespace fs = std::filesystem;

namespace {

using Probe = test_support::ChildRun;

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A scratch directory with a copy of the kernel sources (so they can be edited), a kernel index,
// and a stand-in `triton` package that cannot be imported.
class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("triton_jit_store_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    for (const char* f : {"scaled_add.py", "store_helpers.py"}) {
      fs::copy_file(test::kernel(std::string("store/") + f), root_ / "src" / f);
    }
    test_support::write_unimportable_triton(root_ / "no_triton");
    cache_ = (root_ / "cache").string();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  std::string kernel_file() const { return (root_ / "src" / "scaled_add.py").string(); }

  // Runs the probe; `env` is a list of VAR=value words placed before it; `file`: the kernel file
  // (default kernel_file()).
  Probe run(const std::string& env, const std::string& args = "", const std::string& cache = "",
            const std::string& file = "") const {
    return test_support::run_child("env TRITON_JIT_TEST_KEEP_INDEX_DIR=1 TRITON_JIT_INDEX_DIR='" +
                                   (cache.empty() ? cache_ : cache) + "' " + env + " '" STORE_PROBE_PATH "' '" +
                                   (file.empty() ? kernel_file() : file) + "' scaled_add " + args);
  }

  // storepkg, a package whose kernel module (storepkg.kernels, with the probe's scaled_add)
  // imports relatively a value its __init__ sets; root_/pkgroot is its folder on sys.path.
  fs::path package_root() const { return root_ / "pkgroot"; }
  std::string package_file() const { return (package_root() / "storepkg" / "kernels.py").string(); }
  void write_package() const {
    fs::create_directories(package_root() / "storepkg");
    write_text(package_root() / "storepkg" / "__init__.py", "import triton.language as tl\nFACTOR = tl.constexpr(2)\n");
    write_text(package_file(),
               "import triton\nimport triton.language as tl\n\nfrom . import FACTOR\n\n\n@triton.jit\n"
               "def scaled_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
               "    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
               "    mask = offsets < n\n"
               "    y = tl.load(y_ptr + offsets, mask=mask)\n"
               "    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + y * FACTOR, mask=mask)\n");
  }
  std::string with_package() const { return "PYTHONPATH='" + package_root().string() + "'"; }
  std::string no_python() const { return "PYTHONPATH='" + (root_ / "no_triton").string() + "'"; }

  // The python the tests use (TRITON_JIT_PYTHON, tests/support/test_env.cpp) and its virtualenv.
  static std::string tested_python() {
    const char* p = std::getenv("TRITON_JIT_PYTHON");
    return p == nullptr ? "" : p;
  }
  static std::optional<fs::path> tested_venv() {
    const fs::path venv = fs::absolute(tested_python()).parent_path().parent_path();
    if (tested_python().empty() || !fs::exists(venv / "pyvenv.cfg")) return std::nullopt;
    return venv;
  }
  static std::string python_env(const fs::path& python) { return "TRITON_JIT_PYTHON='" + python.string() + "'"; }

  std::vector<fs::path> files_under(const std::string& dir, const std::string& needle) const {
    std::vector<fs::path> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->path().filename().string().find(needle) != std::string::npos) out.push_back(it->path());
    }
    return out;
  }

  // Runs `count` probes with `args` that all miss at one moment (the ranks of a job starting
  // together): each starts Python and reads the signature, says it is ready, and waits for the go.
  std::vector<Probe> run_at_once(int count, const std::string& env, const std::string& args) const {
    const fs::path& root = root_;
    const std::string go = (root / "go").string();
    std::vector<Probe> results(count);
    std::vector<std::thread> threads;
    for (int i = 0; i < count; ++i) {
      threads.emplace_back([&, i] { results[i] = run(env, "--start-after '" + go + "' " + args); });
    }
    for (int waited = 0; waited < 240000; waited += 10) {
      int ready = 0;
      for (const auto& e : fs::directory_iterator(root))
        ready += e.path().filename().string().rfind("go.ready.", 0) == 0;
      if (ready == count) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    write_text(go, "go");
    for (auto& th : threads) th.join();
    return results;
  }

  fs::path root_;
  std::string cache_;
};

TEST(Sha256, MatchesTheStandardVectors) {
  using triton_jit::detail::sha256_hex;
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::string million(1000000, 'a');
  EXPECT_EQ(sha256_hex(million), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Fed in pieces that straddle block boundaries: the same digest.
  triton_jit::detail::Sha256 h;
  for (size_t i = 0; i < million.size(); i += 77) h.update(std::string_view(million).substr(i, 77));
  EXPECT_EQ(h.hex(), sha256_hex(million));
}

TEST(SealedFile, DetectsTruncationDamageAndVersion) {
  using namespace triton_jit::detail;
  const std::string sealed = seal("TJITTEST", 1, "payload bytes");
  EXPECT_EQ(unseal(sealed, "TJITTEST", 1), "payload bytes");
  auto reason = [&](const std::string& file, uint32_t version = 1) {
    try {
      unseal(file, "TJITTEST", version);
    } catch (const FormatError& e) {
      return e.what;
    }
    return std::string("accepted");
  };
  EXPECT_NE(reason(sealed.substr(0, sealed.size() - 3)).find("truncated"), std::string::npos);
  std::string flipped = sealed;
  flipped.back() ^= 1;
  EXPECT_NE(reason(flipped).find("checksum"), std::string::npos);
  EXPECT_NE(reason(sealed, 2).find("format version 1"), std::string::npos);
  EXPECT_NE(reason("short").find("truncated"), std::string::npos);
}

// A listing skips an entry whose file is gone when it is read (another process's prune or clear
// removed it after the folder was listed, even if a writer stored it again since), and reports
// one that is there but damaged.
TEST(IndexListing, AnEntryGoneWhenReadIsNoEntryAndADamagedOneIsCorrupt) {
  using namespace triton_jit::detail;
  const fs::path dir = fs::temp_directory_path() / ("tj_describe_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  EXPECT_FALSE(describe_entry((dir / "gone.tjk").string()).has_value());
  std::ofstream((dir / "damaged.tjk").string()) << "not an entry";
  const std::optional<triton_jit::IndexEntry> damaged = describe_entry((dir / "damaged.tjk").string());
  ASSERT_TRUE(damaged.has_value());
  EXPECT_EQ(damaged->state, triton_jit::IndexEntry::State::Corrupt);
  EXPECT_FALSE(damaged->problem.empty());
  fs::remove_all(dir);
}

TEST_F(StoreTest, ANewProcessLaunchesFromTheIndexWithoutPython) {
  const Probe cold = run("");
  ASSERT_EQ(cold.status, 0) << cold.output;
  EXPECT_EQ(cold["compiles"], "1");
  EXPECT_EQ(cold["python_used"], "1");

  // Python cannot import triton here: the launch must not need it.
  const Probe warm = run(no_python());
  ASSERT_EQ(warm.status, 0) << warm.output;
  EXPECT_EQ(warm["compiles"], "0");
  EXPECT_EQ(warm["index_hits"], "1");
  EXPECT_EQ(warm["launches"], "1");
  EXPECT_EQ(warm["python_used"], "0");
  EXPECT_EQ(warm["cubin_sha256"], cold["cubin_sha256"]);
  EXPECT_EQ(warm["metadata_sha256"], cold["metadata_sha256"]);
}

// Whether the tests' Python imports torch: a torch-spelled dtype needs it to compile.
bool torch_importable() {
  static const bool importable = [] {
    const char* python = std::getenv("TRITON_JIT_PYTHON");
    return python != nullptr && test_support::run_child("'" + std::string(python) + "' -c 'import torch'").status == 0;
  }();
  return importable;
}

TEST_F(StoreTest, DTypeConstexprsLaunchFromTheIndexWithoutPython) {
  // X_dtype left to its default (tl.float16: the stored signature must hold it), given as
  // Triton's dtype, and in torch's spelling.
  for (const std::string args : {"--function scaled_add_dtype", "--function scaled_add_dtype --dtype tl:bf16",
                                 "--function scaled_add_dtype --dtype torch:float16"}) {
    SCOPED_TRACE(args);
    if (args.find("torch:") != std::string::npos && !torch_importable()) continue;
    const Probe cold = run("", args);
    ASSERT_EQ(cold.status, 0) << cold.output;
    EXPECT_EQ(cold["compiles"], "1");
    const Probe warm = run(no_python(), args);
    ASSERT_EQ(warm.status, 0) << warm.output;
    EXPECT_EQ(warm["compiles"], "0");
    EXPECT_EQ(warm["index_hits"], "1");
    EXPECT_EQ(warm["python_used"], "0");
    EXPECT_EQ(warm["cubin_sha256"], cold["cubin_sha256"]);
  }
}

TEST(StoredSignature, DTypeDefaultsReadBackFromTheirRepr) {
  using namespace triton_jit;
  StaticSignature s;
  s.function = "k";
  s.file = "/k.py";
  auto add = [&](const char* name, const DefaultValue& d) {
    ParamInfo p;
    p.name = name;
    p.index = static_cast<int>(s.params.size());
    p.is_constexpr = true;
    p.default_value = d;
    s.params.push_back(p);
  };
  DefaultValue torch_default;
  torch_default.kind = ArgValue::Kind::DType;
  torch_default.dtype_value = DType::bf16;
  torch_default.torch_dtype = true;
  torch_default.repr = "torch.bfloat16";
  add("A", torch_default);
  // As written before dtypes had a C++ form: no kind, not representable, the repr only.
  DefaultValue old_style;
  old_style.repr = "triton.language.float16";
  old_style.representable = false;
  add("B", old_style);
  DefaultValue other;  // still without a C++ form
  other.repr = "(16, 16)";
  other.representable = false;
  add("C", other);
  DefaultValue text;  // a string that only looks like a dtype
  text.kind = ArgValue::Kind::String;
  text.string_value = "torch.float16";
  text.repr = "'torch.float16'";
  add("D", text);

  detail::BinaryWriter w;
  detail::write_signature(w, s);
  detail::BinaryReader r(w.bytes());
  const StaticSignature back = detail::read_signature(r);
  ASSERT_EQ(back.params.size(), 4u);
  const DefaultValue& a = *back.params[0].default_value;
  EXPECT_EQ(a.kind, ArgValue::Kind::DType);
  EXPECT_TRUE(a.representable);
  EXPECT_EQ(a.to_arg().dtype(), DType::bf16);
  EXPECT_TRUE(a.to_arg().is_torch_dtype());
  const DefaultValue& b = *back.params[1].default_value;
  EXPECT_EQ(b.kind, ArgValue::Kind::DType);
  EXPECT_TRUE(b.representable);
  EXPECT_EQ(b.dtype_value, DType::fp16);
  EXPECT_FALSE(b.torch_dtype);
  EXPECT_FALSE(back.params[2].default_value->representable);
  EXPECT_EQ(back.params[2].default_value->repr, "(16, 16)");
  EXPECT_EQ(back.params[3].default_value->kind, ArgValue::Kind::String);
  EXPECT_EQ(back.params[3].default_value->string_value, "torch.float16");
}

TEST_F(StoreTest, EditingADependencyInvalidatesButTouchingDoesNot) {
  ASSERT_EQ(run("")["compiles"], "1");
  const fs::path helpers = root_ / "src" / "store_helpers.py";

  // Same content, new mtime: the content hash decides, the entry still serves.
  const std::string text = read_text(helpers);
  fs::last_write_time(helpers, fs::last_write_time(helpers) + std::chrono::seconds(5));
  const Probe touched = run(no_python());
  EXPECT_EQ(touched["index_hits"], "1") << touched.output;

  // The helper module (not the kernel's own file) changes: recompile.
  std::string edited = text;
  edited.replace(edited.find("SCALE = tl.constexpr(2)"), 23, "SCALE = tl.constexpr(3)");
  write_text(helpers, edited);
  const Probe stale = run("");
  ASSERT_EQ(stale.status, 0) << stale.output;
  EXPECT_EQ(stale["compiles"], "1");
  EXPECT_NE(stale["cubin_sha256"], touched["cubin_sha256"]);
  // ... and the new kernel is what the next process gets.
  const Probe again = run(no_python());
  EXPECT_EQ(again["index_hits"], "1") << again.output;
  EXPECT_EQ(again["cubin_sha256"], stale["cubin_sha256"]);
}

TEST_F(StoreTest, ADamagedEntryIsIgnoredAndRebuilt) {
  ASSERT_EQ(run("")["compiles"], "1");
  const std::vector<fs::path> entries = files_under(cache_, ".tjk");
  ASSERT_EQ(entries.size(), 1u);
  for (int damage = 0; damage < 2; ++damage) {
    std::string bytes = read_text(entries[0]);
    if (damage == 0) {
      bytes.resize(bytes.size() / 2);  // truncated
    } else {
      bytes[bytes.size() / 2] ^= 0x5a;  // one byte flipped
    }
    write_text(entries[0], bytes);
    const Probe p = run("");
    ASSERT_EQ(p.status, 0) << p.output;
    EXPECT_EQ(p["compiles"], "1") << "damage " << damage;
    EXPECT_NE(p.output.find("ignoring the damaged index entry"), std::string::npos) << p.output;
    EXPECT_EQ(run(no_python())["index_hits"], "1") << "rebuilt entry, damage " << damage;
  }
}

TEST_F(StoreTest, AnUnwritableDirectoryDegradesToMemoryWithOneWarning) {
  // Below a regular file no directory can be made, even for root.
  write_text(root_ / "a_file", "x");
  const Probe p = run("", "", (root_ / "a_file" / "cache").string());
  ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_EQ(p["compiles"], "1");
  EXPECT_EQ(p["launches"], "1");
  size_t warnings = 0;
  for (size_t at = 0; (at = p.output.find("cannot write the kernel index", at)) != std::string::npos; ++at) ++warnings;
  EXPECT_EQ(warnings, 1u) << p.output;  // the signature and the kernel both failed to store
}

TEST_F(StoreTest, AnUntrustedDirectoryIsRefusedAndTheLaunchCompiles) {
  // World-writable without the sticky bit: anyone could plant a kernel there (docs/FORMATS.md#trust).
  fs::create_directories(cache_);
  fs::permissions(cache_, fs::perms(0777));
  const Probe p = run("");
  ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_EQ(p["compiles"], "1");
  EXPECT_EQ(p["launches"], "1");
  size_t warnings = 0;
  for (size_t at = 0; (at = p.output.find("not using the kernel index", at)) != std::string::npos; ++at) ++warnings;
  EXPECT_EQ(warnings, 1u) << p.output;
  EXPECT_NE(p.output.find("is writable by others (mode 0777)"), std::string::npos) << p.output;
  EXPECT_TRUE(files_under(cache_, ".tj").empty()) << "nothing is stored in a refused index";
  EXPECT_TRUE(files_under(cache_, ".key").empty()) << "nor Triton's installation key";

  // Shared on purpose: accepted.
  const Probe shared = run("TRITON_JIT_TRUST_SHARED_INDEX=1");
  ASSERT_EQ(shared.status, 0) << shared.output;
  EXPECT_EQ(shared.output.find("not using the kernel index"), std::string::npos) << shared.output;
  EXPECT_FALSE(files_under(cache_, ".tjk").empty());
}

TEST_F(StoreTest, TheInstallationKeyFileIsNotReadOrWrittenThroughALink) {
  const Probe first = run("");
  ASSERT_EQ(first.status, 0) << first.output;
  const auto keys = files_under(cache_, ".key");
  if (keys.empty()) GTEST_SKIP() << "this Triton stores no installation key";
  ASSERT_EQ(keys.size(), 1u);
  // The key file replaced by a link to a file of the user's: a new compile must neither read it
  // as a key nor write the key into it.
  const fs::path victim = root_ / "victim.txt";
  write_text(victim, "mine");
  fs::remove(keys[0]);
  fs::create_symlink(victim, keys[0]);
  fs::remove_all(fs::path(cache_) / "v3" / "kernels");  // a compile, not a hit
  const Probe again = run("");
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_EQ(again["compiles"], "1");
  EXPECT_EQ(read_text(victim), "mine");
  EXPECT_FALSE(fs::is_symlink(keys[0])) << "the key is stored in place of the link";
  // A link in place of the installations folder: nothing is written through it.
  const fs::path elsewhere = root_ / "elsewhere";
  fs::create_directories(elsewhere);
  fs::remove_all(fs::path(cache_) / "v3" / "installations");
  fs::create_directory_symlink(elsewhere, fs::path(cache_) / "v3" / "installations");
  fs::remove_all(fs::path(cache_) / "v3" / "kernels");
  const Probe linked = run("");
  ASSERT_EQ(linked.status, 0) << linked.output;
  EXPECT_TRUE(fs::is_empty(elsewhere));
}

TEST_F(StoreTest, ConcurrentWritersLeaveOneValidEntry) {
  constexpr int kWriters = 4;
  std::vector<Probe> results(kWriters);
  std::vector<std::thread> threads;
  for (int i = 0; i < kWriters; ++i) threads.emplace_back([&, i] { results[i] = run(""); });
  for (auto& t : threads) t.join();
  for (const Probe& p : results) ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_TRUE(files_under(cache_, ".tmp.").empty());
  triton_jit::set_index_dir(cache_);
  const auto entries = triton_jit::list_index();
  triton_jit::set_index_dir(std::nullopt);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].state, triton_jit::IndexEntry::State::Valid) << entries[0].problem;
  EXPECT_EQ(entries[0].function_name, "scaled_add");
  const Probe reader = run(no_python());
  EXPECT_EQ(reader["index_hits"], "1") << reader.output;
}

// ---- processes sharing one index: each kernel compiled once ----

int total(const std::vector<Probe>& results, const std::string& field) {
  int sum = 0;
  for (const Probe& p : results) {
    EXPECT_EQ(p.status, 0) << p.output;
    sum += std::atoi(p[field].c_str());
  }
  return sum;
}

TEST_F(StoreTest, ProcessesMissingAKernelAtOnceCompileItOnce) {
  const auto results = run_at_once(3, "", "");
  EXPECT_EQ(total(results, "compiles"), 1) << "one process compiles; the others wait for its lock";
  EXPECT_EQ(total(results, "index_hits"), 2) << "and take the kernel from the index";
  EXPECT_EQ(total(results, "launches"), 3);
  std::set<std::string> cubins;
  for (const Probe& p : results) cubins.insert(p["cubin_sha256"]);
  EXPECT_EQ(cubins.size(), 1u);
}

TEST_F(StoreTest, WithTheLockTimeoutZeroEachProcessCompilesWhatItMisses) {
  // The control of the test above: without the lock both compile.
  const auto results = run_at_once(2, "TRITON_JIT_COMPILE_LOCK_TIMEOUT=0", "");
  EXPECT_EQ(total(results, "compiles"), 2);
}

TEST_F(StoreTest, ProcessesPreparingTheSameKernelsAtOnceCompileEachOnce) {
  // prepare() of four kernels on two worker processes each, in two processes at once.
  const auto results = run_at_once(2, "", "--prepare 2");
  EXPECT_EQ(total(results, "prepare_compiled"), 4);
  EXPECT_EQ(total(results, "prepare_from_index"), 4);
  EXPECT_EQ(total(results, "compiles"), 4) << "the launch after prepare() finds its kernel in memory";
}

// ---- one index, several Triton installations ----

TEST_F(StoreTest, AnotherTritonInstallationHasEntriesOfItsOwn) {
  const auto venv = tested_venv();
  if (!venv) GTEST_SKIP() << "needs TRITON_JIT_PYTHON to be a virtualenv's python, not " << tested_python();
  // The same virtualenv under another path: to the runtime, another installation of Triton
  // (its triton/__init__.py has another path), which may hold another version.
  fs::create_directory_symlink(*venv, root_ / "other_env");
  const std::string mine = python_env(tested_python());
  const std::string other = python_env(root_ / "other_env" / "bin" / fs::path(tested_python()).filename());
  const Probe first = run(mine);
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_EQ(first["compiles"], "1");
  const Probe second = run(other);
  ASSERT_EQ(second.status, 0) << second.output;
  EXPECT_EQ(second["index_hits"], "0") << "a kernel compiled by another Triton installation was served";
  EXPECT_EQ(second["compiles"], "1");
  EXPECT_EQ(second["triton"], first["triton"]);
  // Each installation finds its own entry without Python; neither overwrote the other.
  for (const std::string& env : {mine, other}) {
    const Probe warm = run(env + " " + no_python());
    ASSERT_EQ(warm.status, 0) << warm.output;
    EXPECT_EQ(warm["index_hits"], "1") << env;
    EXPECT_EQ(warm["python_used"], "0") << env;
  }
  EXPECT_EQ(files_under(cache_, ".tjk").size(), 2u);
}

TEST_F(StoreTest, TritonChangedInPlaceInvalidatesButTritonGoneDoesNot) {
  const auto venv = tested_venv();
  if (!venv) GTEST_SKIP() << "needs TRITON_JIT_PYTHON to be a virtualenv's python, not " << tested_python();
  // A virtualenv of our own whose triton/__init__.py (the file that holds __version__, recorded
  // with every kernel) can be edited: the rest of the package, and its dist-info (which names
  // Triton's backends), are linked from the tested one.
  const fs::path env = root_ / "env";
  fs::create_directories(env / "bin");
  fs::copy_file(*venv / "pyvenv.cfg", env / "pyvenv.cfg");
  fs::create_symlink(fs::canonical(tested_python()), env / "bin" / "python");
  fs::path package;
  for (const auto& lib : fs::directory_iterator(*venv / "lib")) {
    const fs::path triton = lib.path() / "site-packages" / "triton";
    if (!fs::exists(triton / "__init__.py")) continue;
    package = env / "lib" / lib.path().filename() / "site-packages" / "triton";
    fs::create_directories(package);
    for (const auto& item : fs::directory_iterator(triton)) {
      if (item.path().filename() == "__init__.py") {
        fs::copy_file(item.path(), package / "__init__.py");
      } else {
        fs::create_symlink(item.path(), package / item.path().filename());
      }
    }
    for (const auto& item : fs::directory_iterator(triton.parent_path())) {
      const std::string name = item.path().filename().string();
      if (name.rfind("triton-", 0) == 0 && name.size() > 10 && name.substr(name.size() - 10) == ".dist-info") {
        fs::create_symlink(item.path(), package.parent_path() / name);
      }
    }
  }
  ASSERT_FALSE(package.empty()) << "no triton package in " << *venv;
  const std::string python = python_env(env / "bin" / "python");
  const Probe first = run(python);
  ASSERT_EQ(first.status, 0) << first.output;
  ASSERT_EQ(first["compiles"], "1");
  EXPECT_EQ(run(python + " " + no_python())["index_hits"], "1");

  // Triton upgraded in place: its __init__.py changes, the kernel compiles again.
  std::ofstream(package / "__init__.py", std::ios::app) << "\n# upgraded\n";
  const Probe upgraded = run(python);
  ASSERT_EQ(upgraded.status, 0) << upgraded.output;
  EXPECT_EQ(upgraded["index_hits"], "0") << "a kernel of the Triton replaced in place was served";
  EXPECT_EQ(upgraded["compiles"], "1");

  // Triton uninstalled (a deployment without it): the kernels it compiled still serve.
  fs::rename(package, package.parent_path() / "triton_uninstalled");
  const Probe gone = run(python);
  ASSERT_EQ(gone.status, 0) << gone.output;
  EXPECT_EQ(gone["index_hits"], "1");
  EXPECT_EQ(gone["python_used"], "0");
}

// ---- functions named by module ----

TEST_F(StoreTest, AModuleNamedFunctionLaunchesFromTheIndexWithoutPython) {
  write_package();
  const Probe cold = run(with_package(), "--module storepkg.kernels");
  ASSERT_EQ(cold.status, 0) << cold.output;
  EXPECT_EQ(cold["compiles"], "1");
  EXPECT_EQ(cold["python_used"], "1");

  // No triton and no storepkg on this Python's path: the index maps the module to its file.
  const Probe warm = run(no_python(), "--module storepkg.kernels");
  ASSERT_EQ(warm.status, 0) << warm.output;
  EXPECT_EQ(warm["compiles"], "0");
  EXPECT_EQ(warm["index_hits"], "1");
  EXPECT_EQ(warm["python_used"], "0");
  EXPECT_EQ(warm["cubin_sha256"], cold["cubin_sha256"]);
  // The module's file, named by path, is the same function with the same index entries.
  const Probe by_file = run(no_python(), "", "", package_file());
  ASSERT_EQ(by_file.status, 0) << by_file.output;
  EXPECT_EQ(by_file["index_hits"], "1");
  EXPECT_EQ(by_file["python_used"], "0");

  // An index that never saw the module, and no Python to import it: a lookup error naming it.
  const Probe unknown = run(no_python(), "--module storepkg.kernels", root_ / "fresh_cache");
  EXPECT_EQ(unknown.status, 3) << unknown.output;
  EXPECT_NE(unknown.output.find("of the module storepkg.kernels: Python cannot import it"), std::string::npos)
      << unknown.output;
  const Probe offline = run("TRITON_JIT_OFFLINE=1", "--module storepkg.kernels", root_ / "fresh_cache_2");
  EXPECT_EQ(offline.status, 3) << offline.output;
  EXPECT_NE(offline.output.find("offline mode is on"), std::string::npos) << offline.output;
  EXPECT_NE(offline.output.find("module:storepkg.kernels:scaled_add SIGNATURE"), std::string::npos) << offline.output;
  EXPECT_EQ(offline["python_used"], "0");
}

TEST_F(StoreTest, AModuleMovedAwayIsResolvedAgainThroughPython) {
  write_package();
  ASSERT_EQ(run(with_package(), "--module storepkg.kernels").status, 0);
  // The recorded file is gone: the module is imported from where it is now.
  const fs::path moved = root_ / "moved";
  fs::create_directories(moved);
  fs::rename(package_root() / "storepkg", moved / "storepkg");
  const Probe p = run("PYTHONPATH='" + moved.string() + "'", "--module storepkg.kernels");
  ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_EQ(p["compiles"], "1");  // another file: its own index entries
  EXPECT_EQ(p["python_used"], "1");
}

// ---- packs ----

class PackTest : public StoreTest {
 protected:
  // Builds a pack of scaled_add for the launch the probe makes (BLOCK=256) in this process.
  std::string build(const std::string& extra = "") {
    auto& fn = triton_jit::TritonJitFunction::get(kernel_file(), "scaled_add");
    const triton_jit::LaunchConfig config{triton_jit::Grid(4)};
    const auto req = triton_jit::request(fn, config, reinterpret_cast<const float*>(0x10000),
                                         reinterpret_cast<const float*>(0x20000), reinterpret_cast<float*>(0x30000),
                                         1000, 256);
    write_text(root_ / "manifest.txt", "# kernels of the store tests\n\nsrc/scaled_add.py:scaled_add " + req.signature +
                                           " num_warps=4 " + extra + "  # the probe's launch\n");
    const std::string pack = (root_ / "kernels.tjp").string();
    triton_jit::PrepareOptions quiet;
    quiet.progress = triton_jit::Progress::Never;
    triton_jit::build_pack((root_ / "manifest.txt").string(), pack, quiet);
    return pack;
  }
  std::string empty_cache() const { return (root_ / "empty_cache").string(); }
};

TEST_F(PackTest, APackServesAProcessWithoutPythonWithTheSameBinary) {
  const std::string pack = build("target=cuda:90");
  const triton_jit::PackInfo info = triton_jit::read_pack_info(pack);
  EXPECT_EQ(info.kernels, 1u);
  ASSERT_EQ(info.targets.size(), 1u);
  EXPECT_EQ(info.targets[0].arch, 90);

  const Probe compiled = run("", "", empty_cache() + "_jit");  // a fresh compile, for reference
  ASSERT_EQ(compiled.status, 0) << compiled.output;
  for (const std::string how : {"--pack '" + pack + "'", std::string()}) {
    const std::string env = no_python() + (how.empty() ? " TRITON_JIT_PACKS='" + pack + "'" : "");
    const Probe p = run(env, how, empty_cache());
    ASSERT_EQ(p.status, 0) << p.output;
    EXPECT_EQ(p["pack_hits"], "1");
    EXPECT_EQ(p["compiles"], "0");
    EXPECT_EQ(p["python_used"], "0");
    EXPECT_EQ(p["cubin_sha256"], compiled["cubin_sha256"]);
    EXPECT_EQ(p["metadata_sha256"], compiled["metadata_sha256"]);
  }
}

TEST_F(PackTest, DTypeConstexprsFromAManifestServeAProcessWithoutPython) {
  // Manifest signatures in both spellings, as triton-jit specialize and MissingKernelError print them.
  std::string manifest = "src/scaled_add.py:scaled_add_dtype *fp32:16,*fp32:16,*fp32:16,i32,256,"
                         "triton.language.float16 num_warps=4 target=cuda:90\n";
  const bool torch = torch_importable();
  if (torch) {
    manifest += "src/scaled_add.py:scaled_add_dtype *fp32:16,*fp32:16,*fp32:16,i32,256,torch.float16 num_warps=4\n";
  }
  write_text(root_ / "manifest.txt", manifest);
  const std::string pack = (root_ / "kernels.tjp").string();
  triton_jit::PrepareOptions quiet;
  quiet.progress = triton_jit::Progress::Never;
  EXPECT_EQ(triton_jit::build_pack((root_ / "manifest.txt").string(), pack, quiet).kernels, torch ? 2u : 1u);
  for (const std::string dtype : {"", "--dtype torch:float16"}) {
    if (!dtype.empty() && !torch) continue;
    SCOPED_TRACE(dtype);
    const Probe p = run(no_python(), "--function scaled_add_dtype --pack '" + pack + "' " + dtype, empty_cache());
    ASSERT_EQ(p.status, 0) << p.output;
    EXPECT_EQ(p["pack_hits"], "1");
    EXPECT_EQ(p["compiles"], "0");
    EXPECT_EQ(p["python_used"], "0");
  }
  // A kernel the pack lacks names the manifest line, dtype included, which reads back.
  const Probe missing = run(no_python(), "--function scaled_add_dtype --dtype tl:fp32 --pack '" + pack + "'",
                            empty_cache());
  EXPECT_EQ(missing.status, 3) << missing.output;
  const size_t at = missing.output.find("manifest_line=");
  ASSERT_NE(at, std::string::npos) << missing.output;
  const std::string line = missing.output.substr(at + 14, missing.output.find('\n', at) - at - 14);
  EXPECT_NE(line.find("*fp32:16,*fp32:16,*fp32:16,i32,256,triton.language.float32"), std::string::npos) << line;
  write_text(root_ / "suggested.txt", line + "\n");
  const auto entries = triton_jit::read_pack_manifest((root_ / "suggested.txt").string());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].signature, "*fp32:16,*fp32:16,*fp32:16,i32,256,triton.language.float32");
}

TEST_F(PackTest, APackKeepsTheLaunchInterfaceOfTheTritonThatBuiltIt) {
  // Built with this process's Triton (TRITON_JIT_PYTHON), launched by a process whose python is the
  // build's: another Triton version when scripts/test-triton-versions.sh runs this test.
  const std::string pack = build("target=cuda:90");
  const triton_jit::PackInfo info = triton_jit::read_pack_info(pack);
  auto& fn = triton_jit::TritonJitFunction::get(kernel_file(), "scaled_add");
  const auto args = test::args(reinterpret_cast<const float*>(0x10000), reinterpret_cast<const float*>(0x20000),
                               reinterpret_cast<float*>(0x30000), 1000, 256);
  const triton_jit::KernelInfo& here = fn.compile(triton_jit::LaunchConfig{triton_jit::Grid(4)}, test::span(args));
  ASSERT_EQ(info.triton_version, here.triton_version);

  const Probe p = run(python_env(TRITON_JIT_BUILD_PYTHON), "--pack '" + pack + "' --versions 1", empty_cache());
  ASSERT_EQ(p.status, 0) << p.output;
  SCOPED_TRACE("pack built by Triton " + info.triton_version + ", launched by a process with Triton " +
               p["process_triton"]);
  EXPECT_EQ(p["pack_hits"], "1");
  EXPECT_EQ(p["compiles"], "0");
  EXPECT_EQ(p["triton"], info.triton_version);
  // x, y, out, n, then the scratch pointers of the Triton that built the kernel.
  const size_t scratch = triton_jit::test::launch_metadata(here).scratch_params.size();
  EXPECT_EQ(p["scratch"], std::to_string(scratch));
  EXPECT_EQ(p["params"], std::to_string(4 + scratch));
}

TEST_F(PackTest, AModuleNamedFunctionFromAManifestServesAProcessWithoutTriton) {
  write_package();
  setenv("PYTHONPATH", package_root().c_str(), 1);  // before this process starts Python
  auto& fn = triton_jit::TritonJitFunction::get_module("storepkg.kernels", "scaled_add");
  const auto req = triton_jit::request(fn, triton_jit::LaunchConfig{triton_jit::Grid(4)},
                                       reinterpret_cast<const float*>(0x10000), reinterpret_cast<const float*>(0x20000),
                                       reinterpret_cast<float*>(0x30000), 1000, 256);
  write_text(root_ / "manifest.txt", "module:storepkg.kernels:scaled_add " + req.signature + " target=cuda:90\n");
  const std::string pack = (root_ / "kernels.tjp").string();
  triton_jit::PrepareOptions quiet;
  quiet.progress = triton_jit::Progress::Never;
  const triton_jit::PackInfo info = triton_jit::build_pack((root_ / "manifest.txt").string(), pack, quiet);
  EXPECT_EQ(info.functions, std::vector<std::string>{"module:storepkg.kernels:scaled_add"});

  const Probe compiled = run(with_package(), "--module storepkg.kernels", empty_cache() + "_jit");
  ASSERT_EQ(compiled.status, 0) << compiled.output;
  // Offline: no Python at all, the pack found by module name.
  const Probe offline = run("TRITON_JIT_OFFLINE=1", "--pack '" + pack + "' --module storepkg.kernels", empty_cache());
  ASSERT_EQ(offline.status, 0) << offline.output;
  EXPECT_EQ(offline["pack_hits"], "1");
  EXPECT_EQ(offline["python_used"], "0");
  EXPECT_EQ(offline["cubin_sha256"], compiled["cubin_sha256"]);
  // A Python without triton: it is tried (and fails), then the pack serves.
  const Probe no_triton = run(no_python(), "--pack '" + pack + "' --module storepkg.kernels", empty_cache() + "_2");
  ASSERT_EQ(no_triton.status, 0) << no_triton.output;
  EXPECT_EQ(no_triton["pack_hits"], "1");
  EXPECT_EQ(no_triton["compiles"], "0");
  // With the sources and Python, the pack matches the module's file by its hash.
  const Probe sources = run(with_package(), "--pack '" + pack + "' --module storepkg.kernels", empty_cache() + "_3");
  ASSERT_EQ(sources.status, 0) << sources.output;
  EXPECT_EQ(sources["pack_hits"], "1");
  EXPECT_EQ(sources["compiles"], "0");
}

TEST_F(PackTest, AMissingSpecializationNamesTheManifestLineThatAddsIt) {
  const std::string pack = build();
  const Probe p = run(no_python(), "--pack '" + pack + "' --block 128", empty_cache());
  EXPECT_EQ(p.status, 3) << p.output;
  EXPECT_NE(p.output.find("error=MissingKernelError"), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("no kernel for scaled_add [*fp32:16,*fp32:16,*fp32:16,i32,128]"), std::string::npos)
      << p.output;
  EXPECT_NE(p.output.find("cannot import triton"), std::string::npos) << p.output;
  EXPECT_EQ(p["python_used"], "1");  // it tried, and said why it failed
  // The suggested line is a manifest line that yields exactly the missing kernel.
  const size_t at = p.output.find("manifest_line=");
  ASSERT_NE(at, std::string::npos);
  const std::string line = p.output.substr(at + 14, p.output.find('\n', at) - at - 14);
  write_text(root_ / "suggested.txt", line + "\n");
  const auto entries = triton_jit::read_pack_manifest((root_ / "suggested.txt").string());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].function, "scaled_add");
  EXPECT_EQ(entries[0].signature, "*fp32:16,*fp32:16,*fp32:16,i32,128");
  EXPECT_EQ(test::canonical(entries[0].file), test::canonical(kernel_file()));
  ASSERT_EQ(entries[0].targets.size(), 1u);
  EXPECT_EQ(entries[0].targets[0].arch, 90);
}

TEST_F(PackTest, APackForAnotherArchitectureIsSkippedWithAMessage) {
  const std::string pack = build("target=cuda:80");
  // With Python: a warning, then the kernel compiles just in time for the (fake) sm_90 device.
  const Probe jit = run("", "--pack '" + pack + "'", empty_cache());
  ASSERT_EQ(jit.status, 0) << jit.output;
  EXPECT_NE(jit.output.find("holds kernels for sm_80 only, but the device is sm_90"), std::string::npos) << jit.output;
  EXPECT_EQ(jit["pack_hits"], "0");
  EXPECT_EQ(jit["compiles"], "1");
  // Without Python: the error says the pack has it for sm_80.
  const Probe none = run(no_python(), "--pack '" + pack + "'", empty_cache() + "_2");
  EXPECT_EQ(none.status, 3);
  EXPECT_NE(none.output.find("holds it for sm_80, not sm_90"), std::string::npos) << none.output;
}

TEST_F(PackTest, DamagedPacksAndBadManifestsAreClearErrors) {
  const std::string pack = build();
  std::string bytes = read_text(pack);
  bytes[bytes.size() - 10] ^= 1;
  write_text(root_ / "damaged.tjp", bytes);
  try {
    triton_jit::load_pack((root_ / "damaged.tjp").string());
    FAIL() << "a damaged pack loaded";
  } catch (const triton_jit::PackError& e) {
    EXPECT_NE(std::string(e.what()).find("checksum mismatch"), std::string::npos) << e.what();
    EXPECT_EQ(e.path(), (root_ / "damaged.tjp").string());
  }
  EXPECT_THROW(triton_jit::load_pack((root_ / "absent.tjp").string()), triton_jit::PackError);

  write_text(root_ / "bad.txt", "# comment\nsrc/scaled_add.py:scaled_add *fp32,*fp32,*fp32,i32,64\nno_colon_here x\n");
  try {
    triton_jit::read_pack_manifest((root_ / "bad.txt").string());
    FAIL() << "a bad manifest parsed";
  } catch (const triton_jit::PackError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt:3: 'no_colon_here' is not FILE.py:FUNCTION"), std::string::npos)
        << e.what();
  }
  write_text(root_ / "bad2.txt", "src/scaled_add.py:scaled_add *fp32,*fp32,*fp32,i32,64 num_warps=four\n");
  EXPECT_THROW(triton_jit::read_pack_manifest((root_ / "bad2.txt").string()), triton_jit::PackError);
}

}  // namespace

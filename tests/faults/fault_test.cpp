// Faults that lose nothing. Each case runs a real process (store_probe, decorated_probe, the
// triton-jit CLI; fake driver, no GPU) with fault_shim preloaded, which fails one step of a store
// (mkdir, open, write, fsync, close, rename) with ENOSPC or EIO, or stops the process there to be
// killed with SIGKILL, for every step in turn. After each: no partial or temporary file, no entry
// that does not read back whole, one warning, the run went on from memory; and a new process
// reads the index. Last, processes that read and write the index run while others prune and clear
// it: none may crash or read a damaged file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../support/child_process.h"
#include "store/binary_io.h"
#include "store/files.h"
#include "store/pack_registry.h"
#include "test_util.h"
#include "triton_jit/triton_jit.h"

extern char** environ;

namespace fs = std::filesystem;

namespace {

// A finished child: exit status (-1 when killed), whether it stopped itself at the fault, and
// what it printed (stdout and stderr together), read as KEY=VALUE words too.
struct Child {
  int status = -1;
  bool stopped = false;
  std::string output;
  std::map<std::string, std::string> fields;
  std::string operator[](const std::string& key) const {
    auto it = fields.find(key);
    return it == fields.end() ? "<missing>" : it->second;
  }
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Runs `argv` with this process's environment plus `env` (VAR=value). A child that stops itself
// (the shim's FAULT_STOP) is killed with SIGKILL, as a crash would end it.
Child spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, const fs::path& output) {
  std::vector<std::string> environment(env);
  std::set<std::string> overridden;
  for (const std::string& e : env) overridden.insert(e.substr(0, e.find('=')));
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (!overridden.count(entry.substr(0, entry.find('=')))) environment.push_back(entry);
  }
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const int out = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  Child r;
  if (out < 0) return r;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::close(out);
  int status = 0;
  ::waitpid(pid, &status, WUNTRACED);
  if (WIFSTOPPED(status)) {
    r.stopped = true;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.output = read_text(output);
  std::istringstream words(r.output);
  for (std::string w; words >> w;) {
    const size_t eq = w.find('=');
    if (eq != std::string::npos && eq > 0) r.fields.emplace(w.substr(0, eq), w.substr(eq + 1));
  }
  return r;
}

// The files below `dir`: temporary ones apart.
struct Listing {
  std::vector<fs::path> files, temporary;
};
Listing list_files(const fs::path& dir) {
  Listing l;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    (triton_jit::detail::is_temp_file(it->path().filename().string()) ? l.temporary : l.files).push_back(it->path());
  }
  return l;
}

// What is wrong with the sealed files below `dir` (docs/FORMATS.md): each must be whole (size
// and checksum) and of the kind its name says. Empty when all are.
std::string damaged_files(const fs::path& dir) {
  static const std::map<std::string, std::string> kMagic = {
      {".tjk", "TJITKRNL"}, {".tjs", "TJITSIGN"}, {".tjt", "TJITTABL"}, {".tjm", "TJITMODL"}, {".tjp", "TJITPACK"}};
  std::string problems;
  for (const fs::path& file : list_files(dir).files) {
    const std::string bytes = read_text(file);
    if (file.extension() == ".lock") continue;  // compile locks hold nothing (store/compile_lock.h)
    if (file.extension() == ".key") {           // Triton's installation key: fingerprint and key, whole
      if (!std::regex_match(bytes, std::regex("[0-9a-f]{64}\n[^\n]+\n"))) {
        problems += file.string() + ": not a whole installation key\n";
      }
      continue;
    }
    auto magic = kMagic.find(file.extension().string());
    if (magic == kMagic.end()) {
      problems += file.string() + ": not a file the store writes\n";
      continue;
    }
    try {
      triton_jit::detail::BinaryReader header(bytes);
      header.raw(8);
      triton_jit::detail::unseal(bytes, magic->second, header.u32());
    } catch (const triton_jit::detail::FormatError& e) {
      problems += file.string() + ": " + e.what + "\n";
    }
  }
  return problems;
}

const std::vector<std::string> kErrnos = {"ENOSPC", "EIO"};
// Each step fails once, ENOSPC and EIO in turn (step 1 ENOSPC, step 2 EIO, ...): the store
// treats both alike (a write that fails for good; only ENOENT, ESTALE, EINTR and EAGAIN are
// retried) and the shim fails both alike, so every step with every errno would run each case
// twice over (each run starts Python and Triton); both errnos still reach the messages checked.
bool fails_with(const std::string& e, size_t step) { return kErrnos[(step - 1) % kErrnos.size()] == e; }
std::string errno_text(const std::string& name) { return std::strerror(name == "EIO" ? EIO : ENOSPC); }

class FaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("triton_jit_faults_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    fs::copy_file(test::kernel("store/scaled_add.py"), root_ / "src" / "scaled_add.py");
    fs::copy_file(test::kernel("store/store_helpers.py"), root_ / "src" / "store_helpers.py");
    test_support::write_unimportable_triton(root_ / "no_triton");
    cache_ = root_ / "cache";
  }
  void TearDown() override {
    triton_jit::set_index_dir(std::nullopt);
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(root_, ec);
  }

  std::string kernel_file() const { return (root_ / "src" / "scaled_add.py").string(); }

  // The probes' environment: this test's index; with `fault`, the shim and its settings.
  std::vector<std::string> environment(const std::vector<std::string>& fault = {}) const {
    // No compile pool's fork server started ahead: it stores Triton's installation key in this
    // index too, and whether it does so before the probe looks for the key would change the
    // probe's own sequence of writes from run to run, and so what step N is.
    std::vector<std::string> env = {"TRITON_JIT_TEST_KEEP_INDEX_DIR=1", "TRITON_JIT_INDEX_DIR=" + cache_.string(),
                                    "TRITON_JIT_COMPILE_WORKER_START=on-demand"};
    if (!fault.empty()) {
      env.push_back("LD_PRELOAD=" FAULT_SHIM_PATH);
      // Under AddressSanitizer (scripts/sanitize.sh) its runtime must come first unless told
      // otherwise: the shim goes first, and passes each call on to ASan's interceptor.
      const char* asan = std::getenv("ASAN_OPTIONS");
      env.push_back(std::string("ASAN_OPTIONS=verify_asan_link_order=0") +
                    (asan != nullptr ? ":" + std::string(asan) : ""));
      env.insert(env.end(), fault.begin(), fault.end());
    }
    return env;
  }
  // A process that may not compile: it launches from what is stored, or fails saying so.
  std::vector<std::string> offline() const {
    auto env = environment();
    env.push_back("TRITON_JIT_OFFLINE=1");
    env.push_back("PYTHONPATH=" + (root_ / "no_triton").string());
    return env;
  }

  Child run(const std::vector<std::string>& argv, const std::vector<std::string>& env) const {
    return spawn(argv, env, root_ / "output.txt");
  }

  // The steps below `dir` that `argv` takes when nothing fails, from the shim's log; checks
  // that the store's every kind of step is among them.
  std::vector<std::string> steps(const std::vector<std::string>& argv, const fs::path& dir,
                                 const std::function<void()>& fresh) {
    fresh();
    const fs::path log = root_ / "steps.log";
    fs::remove(log);
    const Child r = run(argv, environment({"FAULT_DIR=" + dir.string(), "FAULT_LOG=" + log.string()}));
    EXPECT_EQ(r.status, 0) << r.output;
    std::vector<std::string> lines;
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::string all;
    for (const std::string& l : lines) all += l + "\n";
    for (const char* op : {" open ", " write ", " fsync ", " close ", " rename "}) {
      EXPECT_NE(all.find(op), std::string::npos) << "no" << op << "step seen below " << dir << ":\n" << all;
    }
    return lines;
  }

  // Where the index stands after a fault: no temporary file (`temporary_allowed`: a killed
  // writer's), every file whole, list_index and list_index_tables without damage.
  void expect_index_intact(const std::string& where, bool temporary_allowed) {
    SCOPED_TRACE(where);
    const Listing l = list_files(cache_);
    if (!temporary_allowed) EXPECT_TRUE(l.temporary.empty()) << "left behind: " << l.temporary.front();
    EXPECT_EQ(damaged_files(cache_), "");
    triton_jit::set_index_dir(cache_.string());
    for (const auto& e : triton_jit::list_index()) {
      EXPECT_EQ(e.state, triton_jit::IndexEntry::State::Valid) << e.file << ": " << e.problem;
    }
    for (const auto& t : triton_jit::list_index_tables()) {
      for (const auto& row : t.rows) EXPECT_EQ(row.rfind("damaged", 0), std::string::npos) << t.file << ": " << row;
    }
    triton_jit::set_index_dir(std::nullopt);
  }

  // After a killed writer: prune removes its temporary files once they are old (an hour), and
  // keeps the entries.
  void expect_prune_removes_leftovers() {
    const Listing before = list_files(cache_);
    for (const fs::path& t : before.temporary) {
      fs::last_write_time(t, fs::last_write_time(t) - std::chrono::hours(2));
    }
    triton_jit::set_index_dir(cache_.string());
    triton_jit::prune_index(365);
    triton_jit::set_index_dir(std::nullopt);
    const Listing after = list_files(cache_);
    EXPECT_TRUE(after.temporary.empty()) << "prune left " << after.temporary.front();
    EXPECT_EQ(after.files.size(), before.files.size()) << "prune removed entries, not only leftovers";
  }

  fs::path root_;
  fs::path cache_;
};

// ---- an index entry: the function's signature and the kernel record of a first launch ----

class IndexEntryFaults : public FaultTest {
 protected:
  std::vector<std::string> probe() const { return {STORE_PROBE_PATH, kernel_file(), "scaled_add"}; }
  void fresh() { fs::remove_all(cache_); }
  bool kernel_stored() const {
    for (const fs::path& f : list_files(cache_).files)
      if (f.extension() == ".tjk") return true;
    return false;
  }
  // A later process finds what was stored and launches it without compiling; when the kernel
  // did not get stored, it says it is missing.
  void expect_a_new_process_reads_the_index() {
    const Child later = run(probe(), offline());
    if (kernel_stored()) {
      EXPECT_EQ(later.status, 0) << "a stored kernel must launch without Python:\n" << later.output;
      EXPECT_EQ(later["index_hits"], "1") << later.output;
    } else {
      EXPECT_EQ(later.status, 3) << later.output;
      EXPECT_NE(later.output.find("error="), std::string::npos) << later.output;
    }
    EXPECT_EQ(later.output.find("damaged"), std::string::npos) << later.output;
  }
};

TEST_F(IndexEntryFaults, AFailedWriteAtEachStepLosesNothing) {
  const auto all = steps(probe(), cache_, [&] { fresh(); });
  ASSERT_GE(all.size(), 10u);
  for (const std::string& e : kErrnos) {
    for (size_t n = 1; n <= all.size(); ++n) {
      if (!fails_with(e, n)) continue;
      const std::string where = e + " at step " + all[n - 1];
      SCOPED_TRACE(where);
      fresh();
      const Child r = run(
          probe(), environment({"FAULT_DIR=" + cache_.string(), "FAULT_AT=" + std::to_string(n), "FAULT_ERRNO=" + e}));
      ASSERT_EQ(r.status, 0) << "the launch goes on from memory:\n" << r.output;
      EXPECT_EQ(r["compiles"], "1");
      EXPECT_EQ(r["launches"], "1");
      const std::string& step = all[n - 1];
      if (step.find("/v3/locks") != std::string::npos || step.find("/v3/installations") != std::string::npos) {
        // A compile lock or Triton's installation key that cannot be written is only a lost
        // shortcut: the kernel is stored all the same, and nothing needs saying.
        EXPECT_EQ(count_of(r.output, "warning"), 0u) << r.output;
        EXPECT_TRUE(kernel_stored()) << r.output;
      } else {
        EXPECT_EQ(count_of(r.output, "warning: cannot write the kernel index"), 1u) << r.output;
        EXPECT_NE(r.output.find(errno_text(e)), std::string::npos) << r.output;
      }
      expect_index_intact(where, false);
      expect_a_new_process_reads_the_index();
    }
  }
}

TEST_F(IndexEntryFaults, AKillAtEachStepLeavesAReadableIndex) {
  const auto all = steps(probe(), cache_, [&] { fresh(); });
  ASSERT_GE(all.size(), 10u);
  for (size_t n = 1; n <= all.size(); ++n) {
    const std::string where = "killed at step " + all[n - 1];
    SCOPED_TRACE(where);
    fresh();
    const Child killed = run(
        probe(), environment({"FAULT_DIR=" + cache_.string(), "FAULT_AT=" + std::to_string(n), "FAULT_STOP=1"}));
    ASSERT_TRUE(killed.stopped) << killed.output;
    expect_index_intact(where, true);
    expect_a_new_process_reads_the_index();
    // A new process that may compile completes the index.
    const Child again = run(probe(), environment());
    ASSERT_EQ(again.status, 0) << again.output;
    EXPECT_EQ(again.output.find("warning"), std::string::npos) << again.output;
    expect_prune_removes_leftovers();
    expect_index_intact(where + ", pruned", false);
    const Child warm = run(probe(), offline());
    EXPECT_EQ(warm.status, 0) << warm.output;
    EXPECT_EQ(warm["index_hits"], "1") << warm.output;
  }
}

// ---- a table file: a heuristic's memoized value (decorated_probe specializes, no launch) ----

class TableFaults : public FaultTest {
 protected:
  std::vector<std::string> probe(const std::string& k) const {
    return {DECORATED_PROBE_PATH,
            test::canonical(test::kernel("decorated.py")),
            "stages_kernel",
            "p:fp32",
            "i:1000",
            "i:" + k};
  }
  fs::path tables() const { return cache_ / "v3" / "tables"; }
  void fresh() { fs::remove_all(cache_); }
  // A later process without Python answers the heuristic from the table when it was stored.
  void expect_a_new_process_reads_the_table(const std::string& spec) {
    const Child later = run(probe("7"), offline());
    if (!list_files(tables()).files.empty()) {
      EXPECT_EQ(later.status, 0) << later.output;
      EXPECT_EQ(later["spec"], spec);
      EXPECT_EQ(later["heuristic_python_calls"], "0");
    } else {
      EXPECT_EQ(later.status, 3) << later.output;
      EXPECT_NE(later.output.find("has no stored value"), std::string::npos) << later.output;
    }
  }
};

TEST_F(TableFaults, AFailedWriteAtEachStepLosesNothing) {
  const auto all = steps(probe("3"), tables(), [&] { fresh(); });
  ASSERT_GE(all.size(), 5u);
  fresh();
  const std::string spec = run(probe("3"), environment())["spec"];
  for (const std::string& e : kErrnos) {
    for (size_t n = 1; n <= all.size(); ++n) {
      if (!fails_with(e, n)) continue;
      const std::string where = e + " at step " + all[n - 1];
      SCOPED_TRACE(where);
      fresh();
      const Child r = run(probe("3"), environment({"FAULT_DIR=" + tables().string(), "FAULT_AT=" + std::to_string(n),
                                                   "FAULT_ERRNO=" + e}));
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_EQ(r["spec"], spec);
      EXPECT_EQ(count_of(r.output, "warning: cannot write the kernel index"), 1u) << r.output;
      EXPECT_NE(r.output.find(errno_text(e)), std::string::npos) << r.output;
      expect_index_intact(where, false);
      expect_a_new_process_reads_the_table(spec);
    }
  }
}

TEST_F(TableFaults, AKillAtEachStepLeavesAReadableIndex) {
  const auto all = steps(probe("3"), tables(), [&] { fresh(); });
  ASSERT_GE(all.size(), 5u);
  fresh();
  const std::string spec = run(probe("3"), environment())["spec"];
  for (size_t n = 1; n <= all.size(); ++n) {
    const std::string where = "killed at step " + all[n - 1];
    SCOPED_TRACE(where);
    fresh();
    const Child killed = run(
        probe("3"), environment({"FAULT_DIR=" + tables().string(), "FAULT_AT=" + std::to_string(n), "FAULT_STOP=1"}));
    ASSERT_TRUE(killed.stopped) << killed.output;
    expect_index_intact(where, true);
    expect_a_new_process_reads_the_table(spec);
    expect_prune_removes_leftovers();
    expect_index_intact(where + ", pruned", false);
  }
}

// ---- a pack: `triton-jit pack` over an existing pack ----

#ifndef TRITON_JIT_CLI_PATH
TEST(FaultsWithTheTool, Skipped) {
  GTEST_SKIP() << "the triton-jit tool is not built (nlohmann-json not found): the pack and the concurrent "
                  "prune/clear cases need it";
}
#else
class PackFaults : public FaultTest {
 protected:
  void SetUp() override {
    FaultTest::SetUp();
    // The kernel in the index, so that packing needs no compile; then a first pack.
    const Child first = run({STORE_PROBE_PATH, kernel_file(), "scaled_add"}, environment());
    ASSERT_EQ(first.status, 0) << first.output;
    triton_jit::set_index_dir(cache_.string());
    const auto entries = triton_jit::list_index();
    triton_jit::set_index_dir(std::nullopt);
    ASSERT_EQ(entries.size(), 1u);
    std::ofstream(manifest()) << kernel_file() << ":scaled_add " << entries[0].signature << " num_warps=4\n";
    fs::create_directories(out_dir());
    const Child packed = run(pack(), environment());
    ASSERT_EQ(packed.status, 0) << packed.output;
    old_pack_ = read_text(pack_file());
    ASSERT_FALSE(old_pack_.empty());
  }
  fs::path manifest() const { return root_ / "kernels.manifest"; }
  fs::path out_dir() const { return root_ / "out"; }
  fs::path pack_file() const { return out_dir() / "kernels.tjp"; }
  std::vector<std::string> pack() const {
    return {TRITON_JIT_CLI_PATH, "pack", manifest().string(), "--out", pack_file().string()};
  }
  std::string old_pack_;
};

TEST_F(PackFaults, AFailedWriteAtEachStepKeepsThePreviousPack) {
  const auto all = steps(pack(), out_dir(), [] {});
  ASSERT_GE(all.size(), 5u);
  // Counting the steps wrote a new pack; a pack built on a GPU machine need not be byte-identical
  // to the one before it, so the pack to keep is the one on disk now.
  old_pack_ = read_text(pack_file());
  for (const std::string& e : kErrnos) {
    for (size_t n = 1; n <= all.size(); ++n) {
      if (!fails_with(e, n)) continue;
      SCOPED_TRACE(e + " at step " + all[n - 1]);
      const Child r = run(pack(), environment({"FAULT_DIR=" + out_dir().string(), "FAULT_AT=" + std::to_string(n),
                                               "FAULT_ERRNO=" + e}));
      EXPECT_NE(r.status, 0) << r.output;
      EXPECT_EQ(count_of(r.output, "cannot write the kernel pack " + pack_file().string() + ": " + errno_text(e)), 1u)
          << r.output;
      const Listing l = list_files(out_dir());
      EXPECT_TRUE(l.temporary.empty()) << "left behind: " << l.temporary.front();
      ASSERT_EQ(l.files.size(), 1u);
      EXPECT_TRUE(read_text(pack_file()) == old_pack_) << "the previous pack changed";
    }
  }
}

TEST_F(PackFaults, AKillAtEachStepLeavesTheOldPackOrTheNewOne) {
  const auto all = steps(pack(), out_dir(), [] {});
  ASSERT_GE(all.size(), 5u);
  for (size_t n = 1; n <= all.size(); ++n) {
    SCOPED_TRACE("killed at step " + all[n - 1]);
    const Child killed = run(
        pack(), environment({"FAULT_DIR=" + out_dir().string(), "FAULT_AT=" + std::to_string(n), "FAULT_STOP=1"}));
    ASSERT_TRUE(killed.stopped) << killed.output;
    // The name holds a whole pack (the previous one, or the new one when the rename was done).
    EXPECT_EQ(damaged_files(out_dir()), "");
    EXPECT_NO_THROW(triton_jit::detail::read_pack(pack_file().string()));
    for (const fs::path& t : list_files(out_dir()).temporary) fs::remove(t);
  }
}
#endif

// ---- concurrent prune and clear while other processes read and write ----

#ifdef TRITON_JIT_CLI_PATH
TEST_F(FaultTest, PruneAndClearWhileOthersReadAndWriteCrashNoOne) {
  const std::vector<std::string> probe = {STORE_PROBE_PATH, kernel_file(), "scaled_add"};
  ASSERT_EQ(run(probe, environment()).status, 0);
  const double seconds = 6;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::mutex mutex;
  std::vector<std::string> failures;
  std::map<std::string, int> runs;
  auto record = [&](const std::string& who, const Child& r, bool ok) {
    std::lock_guard<std::mutex> lock(mutex);
    ++runs[who];
    if (!ok) failures.push_back(who + " (status " + std::to_string(r.status) + "):\n" + r.output);
  };
  auto loop = [&](const std::string& who, auto body) {
    return std::thread([&, who, body] {
      for (int i = 0; std::chrono::steady_clock::now() < end; ++i) body(who, i, root_ / (who + ".txt"));
    });
  };
  std::vector<std::thread> threads;
  // Writers of made-up kernels and table entries that read back what they wrote (index_churn).
  for (int c = 0; c < 2; ++c) {
    threads.emplace_back([&, c] {
      const std::string who = "churn" + std::to_string(c);
      const Child r = spawn({INDEX_CHURN_PATH, cache_.string(), std::to_string(seconds), who}, environment(),
                            root_ / (who + ".txt"));
      record(who, r, r.status == 0 && r.output.find("warning") == std::string::npos && r["stores"] != "0");
    });
  }
  // A process that reads the kernel without Python: a hit, or (after a clear) a clear miss.
  threads.push_back(loop("reader", [&](const std::string& who, int, const fs::path& out) {
    const Child r = spawn(probe, offline(), out);
    const bool ok = (r.status == 0 && r["index_hits"] == "1") ||
                    (r.status == 3 && r.output.find("error=") != std::string::npos);
    record(who, r, ok && r.output.find("damaged") == std::string::npos);
  }));
  // A process that compiles on a miss and stores the kernel.
  threads.push_back(loop("compiler", [&](const std::string& who, int, const fs::path& out) {
    const Child r = spawn(probe, environment(), out);
    record(who, r, r.status == 0 && r.output.find("warning") == std::string::npos);
  }));
  // triton-jit index prune, clear and list, in turn.
  threads.push_back(loop("cli", [&](const std::string& who, int i, const fs::path& out) {
    static const std::vector<std::vector<std::string>> actions = {
        {"cache", "prune", "--older-than", "0"}, {"cache", "list"}, {"cache", "clear"}, {"cache", "list"}};
    std::vector<std::string> argv = {TRITON_JIT_CLI_PATH};
    const auto& action = actions[i % actions.size()];
    argv.insert(argv.end(), action.begin(), action.end());
    const Child r = spawn(argv, environment(), out);
    record(who + " " + action[1], r, r.status == 0 && r.output.find("corrupt") == std::string::npos);
  }));
  for (std::thread& t : threads) t.join();
  for (const std::string& f : failures) ADD_FAILURE() << f;
  for (const char* who : {"churn0", "churn1", "reader", "compiler", "cli prune", "cli clear", "cli list"}) {
    EXPECT_GE(runs[who], 1) << who << " never ran";
  }
  std::string summary;
  for (const auto& [who, n] : runs) summary += " " + who + "=" + std::to_string(n);
  std::printf("processes run:%s\n", summary.c_str());
  expect_index_intact("after the run", false);
}
#endif

}  // namespace

// The compile worker pool (src/bridge/compile_pool.*): workers started once and kept across
// batches, misses sent to it while this process's interpreter is busy, kernels equal to those
// compiled in this process, a worker killed under a job replaced and the job retried once, and
// every worker ended and reaped when the process exits (compile_pool_probe, a process per case).
// Each test uses keys (BLOCK_SIZE, num_warps) no other test here uses, so the binary passes run
// whole in one process too.
#include <dirent.h>
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bridge/compile_pool.h"
#include "bridge/interpreter.h"
#include "resolve/resolver.h"
#include "test_util.h"
#include "triton_jit/triton_jit.h"

namespace {

using triton_jit::bridge::compile_pool_status;
using triton_jit::bridge::PoolStatus;

const float* const kX = reinterpret_cast<const float*>(0x10000);
const float* const kY = reinterpret_cast<const float*>(0x20000);
float* const kOut = reinterpret_cast<float*>(0x30000);

// (state, parent) of a process from /proc/PID/stat; state 0 when it does not exist.
std::pair<char, long> proc_state(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return {0, 0};
  const size_t close = line.rfind(')');  // the command may hold spaces and parentheses
  std::istringstream rest(line.substr(close + 2));
  char state = 0;
  long parent = 0;
  rest >> state >> parent;
  return {state, parent};
}

// Children of `parent` (this process by default) that exited and were never reaped.
std::vector<long> zombie_children(long parent = ::getpid()) {
  std::vector<long> zombies;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return zombies;
  while (dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    const auto [state, of] = proc_state(pid);
    if (state == 'Z' && of == parent) zombies.push_back(pid);
  }
  ::closedir(dir);
  return zombies;
}

// Whether workers should be forked by the fork server: on Linux unless this run asks for fresh
// Pythons (the ctest cpu.CompilePoolSpawned runs the suite so).
bool forking() {
  const char* start = std::getenv("TRITON_JIT_COMPILE_WORKER_START");
  return start == nullptr || std::string(start) != "spawn";
}

// No worker left unreaped, by this process or by the fork server.
void expect_no_zombies() {
  EXPECT_EQ(zombie_children(), std::vector<long>{});
  if (const int64_t server = compile_pool_status().forkserver; server != 0) {
    EXPECT_EQ(zombie_children(server), std::vector<long>{}) << "children of the fork server " << server;
  }
}

class CompilePoolTest : public ::testing::Test {
 protected:
  void SetUp() override { triton_jit::set_compile_workers(2); }
  void TearDown() override {
    ::unsetenv("TRITON_JIT_TEST_WORKER_CRASH");
    triton_jit::set_compile_workers(-1);
  }

  static const triton_jit::TritonJitFunction& add() {
    return triton_jit::TritonJitFunction::get(test::kernel("add.py"), "add_kernel");
  }
  static triton_jit::LaunchConfig config(int warps) {
    triton_jit::LaunchConfig c{triton_jit::Grid(1)};
    c.num_warps = warps;
    return c;
  }
  static triton_jit::PrepareReport prepare(std::vector<int> blocks, int warps, int jobs = 0) {
    std::vector<triton_jit::KernelRequest> requests;
    for (int b : blocks) requests.push_back(triton_jit::request(add(), config(warps), kX, kY, kOut, 1000, b));
    triton_jit::PrepareOptions options;
    options.jobs = jobs;
    options.progress = triton_jit::Progress::Never;
    return triton_jit::prepare(requests, options);
  }
  // The same kernel compiled in this process (CompileRequest always compiles here).
  static triton_jit::KernelInfo compiled_here(int block, int warps) {
    triton_jit::CompileRequest r;
    r.signature = "*fp32:16,*fp32:16,*fp32:16,i32," + std::to_string(block);  // 1000: not a multiple of 16
    r.num_warps = warps;
    return add().compile(r);
  }
};

TEST_F(CompilePoolTest, WorkersAreStartedOnceAndKeptAcrossBatches) {
  const triton_jit::PrepareReport first = prepare({16, 32, 64}, 1);
  EXPECT_EQ(first.compiled, 3u);
  EXPECT_EQ(first.workers, 2);
  const PoolStatus s1 = compile_pool_status();
  EXPECT_EQ(s1.limit, 2);
  ASSERT_EQ(s1.pids.size(), 2u);
  EXPECT_EQ(s1.idle, 2);
  // Forked by the fork server, this process's child; or each this process's child.
  EXPECT_EQ(s1.forkserver != 0, forking());
  if (s1.forkserver != 0) EXPECT_EQ(proc_state(s1.forkserver).second, ::getpid());
  for (int64_t pid : s1.pids) {
    const auto [state, parent] = proc_state(pid);
    EXPECT_NE(state, 0) << pid;
    EXPECT_NE(state, 'Z') << pid;
    EXPECT_EQ(parent, s1.forkserver != 0 ? s1.forkserver : ::getpid()) << pid;
  }
  // A second batch reuses them: no process started.
  const triton_jit::PrepareReport second = prepare({128, 256, 512}, 1);
  EXPECT_EQ(second.compiled, 3u);
  const PoolStatus s2 = compile_pool_status();
  EXPECT_EQ(s2.pids, s1.pids);
  EXPECT_EQ(s2.started, s1.started);
  EXPECT_EQ(s2.jobs, s1.jobs + 3);
}

TEST_F(CompilePoolTest, ABatchAskingForMoreJobsGrowsThePoolForItselfOnly) {
  const triton_jit::PrepareReport r = prepare({16, 32, 64}, 32, 3);  // 3 jobs over a limit of 2
  EXPECT_EQ(r.compiled, 3u);
  EXPECT_EQ(r.workers, 3);
  const PoolStatus s = compile_pool_status();
  EXPECT_EQ(s.pids.size(), 2u);  // the third worker ended with the batch
  EXPECT_EQ(s.idle, 2);
  expect_no_zombies();
  // A lowered limit ends the idle workers beyond it at the pool's next use.
  triton_jit::set_compile_workers(1);
  EXPECT_EQ(prepare({128, 256}, 32, 2).compiled, 2u);
  EXPECT_EQ(compile_pool_status().limit, 1);
  EXPECT_EQ(compile_pool_status().pids.size(), 1u);
}

TEST_F(CompilePoolTest, StartCompileWorkersBootsThemAheadOfTheFirstBatch) {
  triton_jit::start_compile_workers();  // returns at once
  PoolStatus s = compile_pool_status();
  for (int i = 0; i < 6000 && s.idle < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    s = compile_pool_status();
  }
  ASSERT_EQ(s.idle, 2) << "the workers did not boot within a minute";
  ASSERT_EQ(s.pids.size(), 2u);
  const triton_jit::PrepareReport r = prepare({4096, 8192}, 1);
  EXPECT_EQ(r.compiled, 2u);
  EXPECT_EQ(compile_pool_status().started, s.started);  // the batch started none
  EXPECT_EQ(compile_pool_status().pids, s.pids);
}

TEST_F(CompilePoolTest, AMissWhileTheInterpreterIsBusyCompilesOnTheWorkers) {
  using triton_jit::detail::InterpreterSlot;
  const triton_jit::Stats before = add().stats();
  const int64_t jobs_before = compile_pool_status().jobs;
  // As if another thread were compiling in this process: every miss goes to the pool, each
  // thread waiting for its own job.
  ASSERT_TRUE(InterpreterSlot::try_claim());
  const int blocks[] = {16, 32, 64, 128};
  std::vector<const triton_jit::KernelInfo*> got(4, nullptr);
  std::vector<std::string> errors(4);
  {
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
      threads.emplace_back([&, i] {
        try {
          got[i] = &add().compile(config(2), kX, kY, kOut, 1000, blocks[i]);
        } catch (const std::exception& e) {
          errors[i] = e.what();
        }
      });
    }
    for (auto& t : threads) t.join();
  }
  InterpreterSlot::release();
  for (int i = 0; i < 4; ++i) ASSERT_EQ(errors[i], "") << i;
  EXPECT_EQ(compile_pool_status().jobs, jobs_before + 4);
  EXPECT_EQ(add().stats().compiles, before.compiles + 4);
  EXPECT_EQ(add().stats().misses, before.misses + 4);
  // The workers' kernels are the ones this process compiles for the same keys.
  for (int i = 0; i < 4; ++i) {
    const triton_jit::KernelInfo here = compiled_here(blocks[i], 2);
    EXPECT_EQ(got[i]->hash, here.hash) << blocks[i];
    EXPECT_EQ(got[i]->cubin, here.cubin) << blocks[i];
    EXPECT_EQ(got[i]->name, here.name) << blocks[i];
    EXPECT_EQ(got[i]->shared, here.shared) << blocks[i];
  }
  // A lone miss compiles in this process: the pool answers nothing more.
  const int64_t jobs_after = compile_pool_status().jobs;
  const uint64_t compiles_after = add().stats().compiles;
  add().compile(config(2), kX, kY, kOut, 1000, 256);
  EXPECT_EQ(compile_pool_status().jobs, jobs_after);
  EXPECT_EQ(add().stats().compiles, compiles_after + 1);
}

TEST_F(CompilePoolTest, ConcurrentMissesOnDifferentKeysEachCompileOnce) {
  const triton_jit::Stats before = add().stats();
  const int blocks[] = {16, 32, 64, 128, 256, 512};
  std::vector<const triton_jit::KernelInfo*> got(12, nullptr);
  std::atomic<int> failures{0};
  std::mutex m;
  std::condition_variable cv;
  bool go = false;
  std::vector<std::thread> threads;
  for (int i = 0; i < 12; ++i) {  // two threads per key
    threads.emplace_back([&, i] {
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return go; });
      }
      try {
        got[i] = &add().compile(config(4), kX, kY, kOut, 1000, blocks[i % 6]);
      } catch (...) {
        ++failures;
      }
    });
  }
  {
    std::lock_guard<std::mutex> lock(m);
    go = true;
  }
  cv.notify_all();
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(add().stats().compiles, before.compiles + 6);
  for (int i = 6; i < 12; ++i) EXPECT_EQ(got[i], got[i - 6]) << i;
  for (int i = 0; i < 6; ++i) {
    ASSERT_NE(got[i], nullptr);
    EXPECT_EQ(got[i]->hash, compiled_here(blocks[i], 4).hash) << blocks[i];
  }
  expect_no_zombies();
}

TEST_F(CompilePoolTest, AWorkerKilledUnderAJobIsReplacedAndTheJobRetriedOnce) {
  char dir[] = "/tmp/tj_pool_XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string marker = std::string(dir) + "/crashed";
  // The first worker to take a job of add_kernel kills itself (SIGKILL) before answering.
  ::setenv("TRITON_JIT_TEST_WORKER_CRASH", ("add_kernel@" + marker).c_str(), 1);
  const PoolStatus before = compile_pool_status();
  const triton_jit::PrepareReport r = prepare({16, 32, 64}, 8);
  EXPECT_EQ(r.compiled, 3u);
  EXPECT_EQ(std::ifstream(marker).good(), true) << "the hook never fired";
  const PoolStatus after = compile_pool_status();
  EXPECT_EQ(after.replaced, before.replaced + 1);
  EXPECT_EQ(after.jobs, before.jobs + 3);
  EXPECT_LE(after.pids.size(), 2u);
  for (int64_t pid : after.pids) EXPECT_EQ(proc_state(pid).first == 'Z', false) << pid;
  expect_no_zombies();
  // The kernels are right: a launch-equivalent lookup finds them in memory.
  const triton_jit::Stats s = add().stats();
  for (int b : {16, 32, 64}) add().compile(config(8), kX, kY, kOut, 1000, b);
  EXPECT_EQ(add().stats().compiles, s.compiles);
  std::remove(marker.c_str());
  ::rmdir(dir);
}

TEST_F(CompilePoolTest, AJobThatKillsEveryWorkerFailsWithAClearErrorAndThePoolRecovers) {
  ::setenv("TRITON_JIT_TEST_WORKER_CRASH", "add_kernel", 1);
  const PoolStatus before = compile_pool_status();
  try {
    prepare({16, 32}, 16);
    FAIL() << "compiled although every worker died";
  } catch (const triton_jit::CompileError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("WorkerError"), std::string::npos) << what;
    EXPECT_NE(what.find("died on this job twice"), std::string::npos) << what;
    EXPECT_NE(what.find("exit status -9"), std::string::npos) << what;
    EXPECT_NE(what.find("add_kernel"), std::string::npos) << what;
    EXPECT_NE(what.find("1 more of the 2 compiles failed too"), std::string::npos) << what;
  }
  const PoolStatus after = compile_pool_status();
  EXPECT_EQ(after.replaced, before.replaced + 4);  // each job: its worker, then the retry's
  EXPECT_EQ(after.pids.size(), 0u);
  expect_no_zombies();
  // Nothing half-cached: the same keys compile once the hook is gone, on fresh workers.
  ::unsetenv("TRITON_JIT_TEST_WORKER_CRASH");
  const triton_jit::PrepareReport r = prepare({16, 32}, 16);
  EXPECT_EQ(r.compiled, 2u);
  EXPECT_EQ(compile_pool_status().pids.size(), 2u);
}

TEST_F(CompilePoolTest, WorkersThatDiedIdleAreNeverSentAJobAndAKilledForkServerIsReplaced) {
  EXPECT_EQ(prepare({8192, 16384}, 16).compiled, 2u);
  const PoolStatus before = compile_pool_status();
  ASSERT_EQ(before.idle, 2);
  // Killing the fork server kills the workers it forked (PR_SET_PDEATHSIG); spawned workers are
  // killed one by one.
  if (before.forkserver != 0) {
    ASSERT_EQ(::kill(static_cast<pid_t>(before.forkserver), SIGKILL), 0);
  } else {
    for (int64_t pid : before.pids) ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
  }
  for (int64_t pid : before.pids) {
    for (int i = 0; i < 500 && proc_state(pid).first != 0 && proc_state(pid).first != 'Z'; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(proc_state(pid).first == 0 || proc_state(pid).first == 'Z') << "worker " << pid << " still runs";
  }
  // No job goes to a dead worker, and this process survives writing to one (no SIGPIPE).
  const triton_jit::PrepareReport r = prepare({8192, 16384}, 32);
  EXPECT_EQ(r.compiled, 2u);
  const PoolStatus after = compile_pool_status();
  EXPECT_EQ(after.replaced, before.replaced);  // no job died with a worker
  EXPECT_EQ(after.jobs, before.jobs + 2);
  for (int64_t pid : before.pids) {
    EXPECT_EQ(std::find(after.pids.begin(), after.pids.end(), pid), after.pids.end()) << pid;
  }
  if (before.forkserver != 0) {
    // The workers after the failed fork were spawned; the next one comes from a new server. (A
    // batch need not start one: its jobs may all fit on the idle workers.)
    triton_jit::set_compile_workers(3);
    triton_jit::start_compile_workers();
    PoolStatus grown = compile_pool_status();
    for (int i = 0; i < 6000 && grown.idle < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      grown = compile_pool_status();
    }
    ASSERT_EQ(grown.idle, 3) << "the third worker did not boot within a minute";
    EXPECT_NE(grown.forkserver, 0);
    EXPECT_NE(grown.forkserver, before.forkserver);
    EXPECT_EQ(prepare({8192, 16384, 32768}, 64, 3).compiled, 3u);
  }
  expect_no_zombies();
  EXPECT_NE(proc_state(before.forkserver).first, 'Z');  // the dead server was reaped too
}

TEST_F(CompilePoolTest, AFileWhoseModuleTheHostHandedOverNeverRunsInAWorker) {
  namespace py = pybind11;
  char dir[] = "/tmp/tj_adopt_XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/adopted.py", runs = std::string(dir) + "/runs.log";
  {
    std::ifstream add(test::kernel("add.py"));
    std::stringstream text;
    text << add.rdbuf();
    // Each execution of the file appends a line: a worker importing it would add one.
    std::ofstream(path) << "import os\nwith open(" << '"' << runs << '"'
                        << ", 'a') as f:\n    f.write(str(os.getpid()) + '\\n')\n"
                        << text.str();
  }
  {
    // What the Python package's jit() does: the host imports the file and hands the module over.
    triton_jit::bridge::GilGuard gil;
    py::module_& b = triton_jit::bridge::bridge();
    py::module_ util = py::module_::import("importlib.util");
    py::object spec = util.attr("spec_from_file_location")("adopted_by_host", path);
    py::object module = util.attr("module_from_spec")(spec);
    py::module_::import("sys").attr("modules")["adopted_by_host"] = module;
    spec.attr("loader").attr("exec_module")(module);
    b.attr("adopt_module")(path, module);
  }
  const auto& fn = triton_jit::TritonJitFunction::get(path, "add_kernel");
  const int64_t jobs_before = compile_pool_status().jobs;
  // A miss while the interpreter is busy, and a batch: both compile in this process.
  ASSERT_TRUE(triton_jit::detail::InterpreterSlot::try_claim());
  std::string error;
  try {
    fn.compile(config(4), kX, kY, kOut, 1000, 16);
  } catch (const std::exception& e) {
    error = e.what();
  }
  triton_jit::detail::InterpreterSlot::release();
  EXPECT_EQ(error, "");
  std::vector<triton_jit::KernelRequest> requests;
  for (int b : {32, 64, 128}) requests.push_back(triton_jit::request(fn, config(4), kX, kY, kOut, 1000, b));
  triton_jit::PrepareOptions options;
  options.jobs = 2;
  options.progress = triton_jit::Progress::Never;
  EXPECT_EQ(triton_jit::prepare(requests, options).compiled, 3u);
  EXPECT_EQ(fn.stats().compiles, 4u);
  EXPECT_EQ(compile_pool_status().jobs, jobs_before);
  std::ifstream log(runs);
  std::string line, lines;
  int count = 0;
  while (std::getline(log, line)) lines += line + " ", ++count;
  EXPECT_EQ(count, 1) << "the file ran in processes " << lines;
  EXPECT_EQ(lines, std::to_string(::getpid()) + " ");
  std::remove(runs.c_str());
  std::remove(path.c_str());
  ::rmdir(dir);
}

TEST_F(CompilePoolTest, NoWorkersMeansEveryCompileInThisProcess) {
  triton_jit::set_compile_workers(0);
  EXPECT_EQ(triton_jit::compile_workers(), 0);
  const int64_t jobs = compile_pool_status().jobs;
  const triton_jit::PrepareReport r = prepare({1024, 2048}, 4, 0);
  EXPECT_EQ(r.compiled, 2u);
  EXPECT_EQ(r.workers, 1);
  EXPECT_EQ(compile_pool_status().jobs, jobs);
  triton_jit::set_compile_workers(-1);
  if (std::getenv("TRITON_JIT_COMPILE_WORKERS") == nullptr) {
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    EXPECT_EQ(triton_jit::compile_workers(), std::min(std::max(cores, 1), triton_jit::kMaxDefaultCompileWorkers));
  }
}

// Runs the probe (with `env`, VAR=VALUE words, before it); its stdout and stderr, and its wait
// status in *status.
std::string run_probe(const std::string& mode, int* status, const std::string& env = "") {
  const std::string out = "/tmp/tj_pool_probe_" + std::to_string(::getpid()) + "_" + mode;
  // A probe stuck at its exit is ended, and seen as exit status 124.
  const std::string cmd = env + " timeout 120 " + std::string(COMPILE_POOL_PROBE_PATH) + " " + mode + " >" + out +
                          " 2>&1";
  *status = std::system(cmd.c_str());
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(out.c_str());
  return text.str();
}

// The number after "NAME=" in a probe's output, or -1.
long field_of(const std::string& text, const std::string& name) {
  const size_t at = text.find(name + "=");
  return at == std::string::npos ? -1 : std::strtol(text.c_str() + at + name.size() + 1, nullptr, 10);
}

std::vector<long> pids_of(const std::string& text) {
  std::vector<long> pids;
  const size_t at = text.find("pids=");
  if (at == std::string::npos) return pids;
  std::istringstream in(text.substr(at + 5));
  long pid = 0;
  char comma = 0;
  while (in >> pid) {
    pids.push_back(pid);
    if (!(in >> comma) || comma != ',') break;
  }
  return pids;
}

void expect_gone(const std::vector<long>& pids) {
  for (long pid : pids) {
    errno = 0;
    EXPECT_EQ(::kill(static_cast<pid_t>(pid), 0), -1) << "worker " << pid << " outlived its process";
    EXPECT_EQ(errno, ESRCH) << pid;
  }
}

TEST(CompilePoolExit, AProcessReturningFromMainEndsAndReapsItsIdleWorkers) {
  int status = 0;
  const std::string out = run_probe("idle", &status);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  ASSERT_EQ(WEXITSTATUS(status), 0) << out;
  std::vector<long> pids = pids_of(out);
  ASSERT_EQ(pids.size(), 2u) << out;
  EXPECT_EQ(field_of(out, "forkserver") > 0, forking()) << out;
  if (forking()) pids.push_back(field_of(out, "forkserver"));
  expect_gone(pids);
}

TEST(CompilePoolExit, AProcessExitingWhileWorkersCompileEndsAndReapsThem) {
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  const std::string out = run_probe("busy", &status);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(WIFEXITED(status)) << out;
  ASSERT_EQ(WEXITSTATUS(status), 0) << out;
  std::vector<long> pids = pids_of(out);
  ASSERT_EQ(pids.size(), 2u) << out;
  if (forking()) pids.push_back(field_of(out, "forkserver"));
  expect_gone(pids);
  EXPECT_LT(seconds, 60) << out;
}

// Python threads left running at exit would run on while later exit handlers tear down the
// libraries they use (a thread hashing under OpenSSL after its cleanup crashed the "busy" probe
// now and then): the runtime's exit handler stops them. Later exit handlers on the exiting thread
// may still take the GIL: torch's static destructors do.
TEST(CompilePoolExit, NoPythonThreadRunsAfterTheRuntimesExitHandler) {
  int status = 0;
  const std::string out = run_probe("python-thread", &status);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  ASSERT_EQ(WEXITSTATUS(status), 0) << out;
  EXPECT_GE(field_of(out, "counted"), 1000) << out;
  EXPECT_EQ(field_of(out, "python_stopped"), 1) << out;
  EXPECT_EQ(field_of(out, "gil_taken_after"), 1) << out;  // the exiting thread can still take it
}

TEST(CompilePoolForkServer, ConcurrentFirstMissesInAFreshProcessLoadPythonOnceAndStartOneForkServer) {
  int status = 0;
  const std::string out = run_probe("concurrent", &status);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  ASSERT_EQ(WEXITSTATUS(status), 0) << out;
  EXPECT_EQ(field_of(out, "compiles"), 4) << out;
  // Started ahead by a miss bound for the pool, or by the pool itself: never both.
  EXPECT_EQ(field_of(out, "servers"), forking() ? 1 : 0) << out;
  std::vector<long> pids = pids_of(out);
  if (forking()) pids.push_back(field_of(out, "forkserver"));
  expect_gone(pids);
}

// The runs below name the way workers start: they hold under the spawned-worker suite too.
constexpr const char* kAhead = "TRITON_JIT_COMPILE_WORKER_START=ahead";

TEST(CompilePoolForkServer, ReadingAKernelThroughPythonStartsTheServerAheadAndThePoolTakesIt) {
  int status = 0;
  const std::string out = run_probe("ahead", &status, kAhead);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  ASSERT_EQ(WEXITSTATUS(status), 0) << out;
  EXPECT_EQ(field_of(out, "servers_read"), 1) << out;  // booting before any miss
  // The miss's worker came from that server: no second one was started.
  EXPECT_EQ(field_of(out, "servers"), 1) << out;
  EXPECT_EQ(field_of(out, "forkserver"), field_of(out, "server")) << out;
  EXPECT_EQ(field_of(out, "jobs"), 1) << out;
  std::vector<long> pids = pids_of(out);
  pids.push_back(field_of(out, "forkserver"));
  expect_gone(pids);
}

TEST(CompilePoolForkServer, OnDemandTheServerStartsWithThePoolsFirstWorker) {
  int status = 0;
  const std::string out = run_probe("ahead", &status, "TRITON_JIT_COMPILE_WORKER_START=on-demand");
  ASSERT_TRUE(WIFEXITED(status)) << out;
  ASSERT_EQ(WEXITSTATUS(status), 0) << out;
  EXPECT_EQ(field_of(out, "servers_read"), 0) << out;
  EXPECT_EQ(field_of(out, "servers"), 1) << out;
  EXPECT_EQ(field_of(out, "jobs"), 1) << out;
}

TEST(CompilePoolForkServer, AServerThePoolDoesNotTakeInTimeIsEndedAndReapedAndALaterPoolStartsItsOwn) {
  int status = 0;
  const std::string out = run_probe("unused", &status,
                                    std::string(kAhead) + " TRITON_JIT_TEST_UNUSED_FORK_SERVER_MS=1000");
  ASSERT_TRUE(WIFEXITED(status)) << out;
  ASSERT_EQ(WEXITSTATUS(status), 0) << out;
  // Seen after the read unless the read took the whole second (a loaded machine): the test of
  // the start ahead is the one above; this one is about the end.
  EXPECT_LE(field_of(out, "servers_read"), 1) << out;
  EXPECT_EQ(field_of(out, "servers_waited"), 0) << out;
  EXPECT_EQ(field_of(out, "zombies"), 0) << out;
  EXPECT_EQ(field_of(out, "jobs"), 1) << out;
  EXPECT_EQ(field_of(out, "servers"), 1) << out;
  EXPECT_NE(field_of(out, "forkserver"), field_of(out, "server")) << out;
}

TEST(CompilePoolForkServer, AForkedChildsExitLeavesItsParentsServerToItsParent) {
  // An index of the probe's own, which the child's exit handlers do not remove (the test
  // environment's per-process index would be removed by the child's as well).
  char index[] = "/tmp/tj_fork_probe_XXXXXX";
  ASSERT_NE(::mkdtemp(index), nullptr);
  int status = 0;
  const std::string out = run_probe(
      "fork", &status, std::string(kAhead) + " TRITON_JIT_TEST_KEEP_INDEX_DIR=1 TRITON_JIT_INDEX_DIR=" + index);
  std::filesystem::remove_all(index);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  ASSERT_EQ(WEXITSTATUS(status), 0) << out;
  ASSERT_GT(field_of(out, "server"), 0) << out;
  EXPECT_EQ(field_of(out, "child_exit"), 0) << out;
  EXPECT_EQ(field_of(out, "servers_after_child"), 1) << out;
  EXPECT_EQ(field_of(out, "forkserver"), field_of(out, "server")) << out;
  EXPECT_EQ(field_of(out, "servers"), 1) << out;
}

TEST(CompilePoolForkServer, AProcessExitingRightAfterStartingAServerAheadLeavesNoServerBehind) {
  int status = 0;
  const std::string out = run_probe("read", &status, kAhead);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  ASSERT_EQ(WEXITSTATUS(status), 0) << out;
  ASSERT_GT(field_of(out, "server"), 0) << out;
  expect_gone({field_of(out, "server")});
}

}  // namespace

namespace {

TEST(CompilePoolLimit, TheEnvironmentSetsTheLimitAndABadValueIsIgnoredWithAWarning) {
  int status = 0;
  std::string out = run_probe("limit", &status, "TRITON_JIT_COMPILE_WORKERS=3");
  EXPECT_NE(out.find("compile_workers=3 python_used=0"), std::string::npos) << out;
  out = run_probe("limit", &status, "TRITON_JIT_COMPILE_WORKERS=0");
  EXPECT_NE(out.find("compile_workers=0 "), std::string::npos) << out;
  out = run_probe("limit", &status, "TRITON_JIT_COMPILE_WORKERS=many");
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  const int fallback = std::min(std::max(cores, 1), triton_jit::kMaxDefaultCompileWorkers);
  EXPECT_NE(out.find("compile_workers=" + std::to_string(fallback) + " "), std::string::npos) << out;
  EXPECT_NE(out.find("ignoring TRITON_JIT_COMPILE_WORKERS=many"), std::string::npos) << out;
}

}  // namespace

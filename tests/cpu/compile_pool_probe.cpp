// A process of its own for compile_pool_test's exit cases: starts two compile workers, prints
// `pids=P1,P2 forkserver=P`, then exits, either returning from main with the workers idle
// ("idle") or calling std::exit while they compile ("busy"). The test then checks that no worker
// outlived it. "limit" prints compile_workers() as the environment sets it. "concurrent": four
// threads miss four kernels at once before this process has started Python; prints the fork
// servers it started (`servers=N`, children running _forkserver_main) and the compiles. "ahead":
// reads a kernel through Python, prints the fork servers then running (`servers_read=N`), then
// sends a miss to the pool and prints the servers and the pool's. "unused": reads a kernel, waits
// for the server to be ended unused, then misses on the pool. "read": reads a kernel and exits.
// "fork": reads a kernel, forks a child that exits at once, then misses on the pool.
// "python-thread": reads a kernel, starts a Python thread counting as fast as it can, then exits;
// an exit handler that runs after the runtime's prints `python_stopped=1` when the count no longer
// moves there (`counted=N`: the thread had run), then `gil_taken_after=1` once it took the GIL.
#include <dirent.h>
#include <pybind11/eval.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bridge/compile_pool.h"
#include "bridge/interpreter.h"
#include "resolve/resolver.h"
#include "test_util.h"
#include "triton_jit/triton_jit.h"

namespace {

void print_pids() {
  std::string line = "pids=";
  const auto s = triton_jit::bridge::compile_pool_status();
  for (size_t i = 0; i < s.pids.size(); ++i) line += (i ? "," : "") + std::to_string(s.pids[i]);
  std::printf("%s forkserver=%lld\n", line.c_str(), static_cast<long long>(s.forkserver));
  std::fflush(stdout);
}

const triton_jit::TritonJitFunction& add() {
  return triton_jit::TritonJitFunction::get(test::kernel("add.py"), "add_kernel");
}

// Children of this process whose command line runs the fork server (their ids in *pids), and
// children that ended unreaped (*zombies).
int fork_servers_started(std::vector<long>* pids = nullptr, int* zombies = nullptr) {
  int count = 0;
  if (zombies != nullptr) *zombies = 0;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return -1;
  while (dirent* e = ::readdir(dir)) {
    const std::string pid = e->d_name;
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    char state = 0;
    long parent = 0;
    rest >> state >> parent;
    std::ifstream cmdline("/proc/" + pid + "/cmdline");
    const std::string command((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (parent != ::getpid()) continue;
    if (state == 'Z' && zombies != nullptr) ++*zombies;
    if (command.find("_forkserver_main") != std::string::npos) {
      ++count;
      if (pids != nullptr) pids->push_back(std::stol(pid));
    }
  }
  ::closedir(dir);
  return count;
}

// Four threads released at once, each missing its own kernel.
int concurrent_misses() {
  std::atomic<int> ready{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      ++ready;
      while (ready.load() < 4) std::this_thread::yield();
      try {
        triton_jit::LaunchConfig config{triton_jit::Grid(1)};
        config.num_warps = 4;
        add().compile(config, reinterpret_cast<const float*>(0x10000), reinterpret_cast<const float*>(0x20000),
                      reinterpret_cast<float*>(0x30000), 1000, 16 << i);
      } catch (const std::exception& e) {
        std::printf("error=%s\n", e.what());
        ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  std::printf("servers=%d compiles=%llu\n", fork_servers_started(),
              static_cast<unsigned long long>(add().stats().compiles));
  print_pids();
  return failures == 0 ? 0 : 1;
}

// One miss compiled on the pool: this process's interpreter is claimed, as by another thread.
void miss_on_the_pool(int block) {
  if (!triton_jit::detail::InterpreterSlot::try_claim()) throw std::runtime_error("the interpreter slot is taken");
  struct Release {
    ~Release() { triton_jit::detail::InterpreterSlot::release(); }
  } release;
  triton_jit::LaunchConfig config{triton_jit::Grid(1)};
  config.num_warps = 4;
  add().compile(config, reinterpret_cast<const float*>(0x10000), reinterpret_cast<const float*>(0x20000),
                reinterpret_cast<float*>(0x30000), 1000, block);
}

// Reads a kernel through Python and prints the fork servers then running (`servers_read=N
// server=PID`).
void read_a_kernel() {
  add();
  std::vector<long> servers;
  fork_servers_started(&servers);
  std::printf("servers_read=%zu server=%ld\n", servers.size(), servers.empty() ? 0L : servers.front());
  std::fflush(stdout);
}

// Misses on the pool, then prints the fork servers, the pool's jobs and its processes.
int miss_and_print() {
  miss_on_the_pool(64);
  std::printf("servers=%d jobs=%lld\n", fork_servers_started(),
              static_cast<long long>(triton_jit::bridge::compile_pool_status().jobs));
  print_pids();
  return 0;
}

// Reads a kernel through Python, then misses on the pool; with `wait_ms`, that long in between.
// With a negative `wait_ms`, exits right after the read instead.
int read_then_miss(int wait_ms) {
  read_a_kernel();
  if (wait_ms < 0) return 0;
  std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  int zombies = 0;
  std::printf("servers_waited=%d ", fork_servers_started(nullptr, &zombies));
  std::printf("zombies=%d\n", zombies);
  return miss_and_print();
}

// Reads a kernel (the server starts ahead), forks a child that exits at once through exit() (its
// exit handlers run), then misses on the pool: the server must have outlived the child's exit,
// and the pool must take it.
int read_fork_then_miss() {
  read_a_kernel();
  const pid_t child = ::fork();
  if (child == 0) std::exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  std::printf("child_exit=%d servers_after_child=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
              fork_servers_started());  // a killed one is a zombie: no command line
  return miss_and_print();
}

// Written by a Python thread through ctypes; read without the GIL by the exit handler.
volatile long g_python_count = 0;

// Then takes the GIL on the exiting thread, as torch's static destructors do at exit.
void print_whether_python_stopped() {
  const long before = g_python_count;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::printf("counted=%ld python_stopped=%d\n", before, g_python_count == before ? 1 : 0);
  std::fflush(stdout);
  const PyGILState_STATE state = PyGILState_Ensure();
  PyGILState_Release(state);
  std::printf("gil_taken_after=1\n");
  std::fflush(stdout);
}

int exit_with_a_python_thread_running() {
  std::atexit(print_whether_python_stopped);  // before the runtime's handlers: runs after them
  read_a_kernel();
  {
    triton_jit::bridge::GilGuard gil;
    pybind11::dict scope;
    scope["address"] = reinterpret_cast<uintptr_t>(&g_python_count);
    pybind11::exec(R"(
import ctypes, threading
count = ctypes.c_long.from_address(address)
def run():
    while True:
        count.value += 1
threading.Thread(target=run, daemon=True).start()
)",
                   scope);
  }
  while (g_python_count < 1000) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::exit(0);
}

void prepare(std::initializer_list<int> blocks, int warps) {
  const auto& fn = add();
  std::vector<triton_jit::KernelRequest> requests;
  triton_jit::LaunchConfig config{triton_jit::Grid(1)};
  config.num_warps = warps;
  for (int b : blocks) {
    requests.push_back(triton_jit::request(fn, config, reinterpret_cast<const float*>(0x10000),
                                           reinterpret_cast<const float*>(0x20000), reinterpret_cast<float*>(0x30000),
                                           1000, b));
  }
  triton_jit::PrepareOptions options;
  options.jobs = 2;
  options.load = false;
  options.progress = triton_jit::Progress::Never;
  triton_jit::prepare(requests, options);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "limit") {  // the limit TRITON_JIT_COMPILE_WORKERS gives; starts no Python
    std::printf("compile_workers=%d python_used=%d\n", triton_jit::compile_workers(), triton_jit::python_used());
    return 0;
  }
  triton_jit::set_compile_workers(2);
  try {
    if (mode == "idle") {
      prepare({16, 32}, 1);
      print_pids();
      return 0;
    }
    if (mode == "concurrent") return concurrent_misses();
    if (mode == "ahead") return read_then_miss(0);
    if (mode == "unused") return read_then_miss(2500);
    if (mode == "read") return read_then_miss(-1);
    if (mode == "fork") return read_fork_then_miss();
    if (mode == "python-thread") return exit_with_a_python_thread_running();
    if (mode == "busy") {
      std::thread([] {
        try {
          prepare({16, 32, 64, 128, 256, 512, 1024, 2048}, 2);
        } catch (...) {
        }
      }).detach();
      // Until both workers run, then exit in the middle of the batch.
      for (int i = 0; i < 6000 && triton_jit::bridge::compile_pool_status().pids.size() < 2; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      print_pids();
      std::exit(0);
    }
  } catch (const std::exception& e) {
    std::printf("error=%s\n", e.what());
    return 3;
  }
  std::fprintf(stderr, "usage: compile_pool_probe idle|busy|concurrent|ahead|unused|read|fork|python-thread|limit\n");
  return 2;
}

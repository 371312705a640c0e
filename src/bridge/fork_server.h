#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

// Starts the compile pool's fork server (the bridge's _forkserver_main): a Python process that
// imports Triton and its compiler once and then forks each compile worker on request, so that a
// worker starts in milliseconds instead of paying a fresh Python's start and Triton's import
// (most of a second, and 16 of them at once contend for the machine). Started from C++, without
// the GIL, so that it can boot while another thread still starts this process's own interpreter.
namespace triton_jit::bridge {

struct ForkServerProcess {
  pid_t pid = -1;    // a child of this process
  int control = -1;  // this process's end of the SOCK_SEQPACKET pair the server serves
};

// `python -c BOOT` with the bridge's source and `index_dir` (where Triton's installation key may
// be stored) on its input; nullopt when the process cannot be started. The caller owns both the
// process (reap it) and the descriptor.
std::optional<ForkServerProcess> spawn_fork_server(const std::string& python, const std::string& index_dir);

// How compile workers start: TRITON_JIT_COMPILE_WORKER_START, read at each use. Unset (or an
// unknown value, which warns once): Ahead where the pool may run kAheadMinWorkers or more
// (compile_workers()), else OnDemand.
enum class WorkerStart {
  Ahead,     // "ahead": forked by a fork server that starts, in the background, as soon as this
             // process reads a kernel through Python, since compiles usually follow
  OnDemand,  // "on-demand": the same, but the server starts with the pool's first worker
  Spawn,     // "spawn": each a fresh Python (as on platforms without a fork server)
};
WorkerStart worker_start();

// Below this many workers a burst of misses gains little from a server booted ahead, and on so
// few cores its boot (a fifth of a second of CPU or more) competes with the process's own start.
inline constexpr int kAheadMinWorkers = 4;

// Whether workers are to be forked by a fork server (any start but Spawn).
inline bool fork_server_wanted() { return worker_start() != WorkerStart::Spawn; }

}  // namespace triton_jit::bridge

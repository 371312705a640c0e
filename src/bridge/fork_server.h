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

// Whether workers are to be forked by a fork server: unless TRITON_JIT_COMPILE_WORKER_START is
// "spawn" (each worker then a fresh Python, as on platforms without one).
bool fork_server_wanted();

}  // namespace triton_jit::bridge

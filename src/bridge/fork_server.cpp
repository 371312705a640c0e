#include "bridge/fork_server.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "bridge/embedded_modules.h"
#include "triton_jit/settings.h"

extern char** environ;

namespace triton_jit::bridge {
namespace {

// The server reads "INDEX_DIR\0" and the bridge's module table (serialized_module_table) from its
// input (fd 0), imports the bridge from that table and serves fd 3. Anything Triton prints goes to
// stderr: fd 1 of its workers carries nothing.
constexpr const char* kBoot = "import importlib, os, socket, sys\n"
                              "os.dup2(2, 1)\n"
                              "index_dir, *parts = sys.stdin.buffer.read().decode().split('\\0')\n"
                              "os.dup2(os.open(os.devnull, os.O_RDONLY), 0)\n"
                              "table = [tuple(parts[i:i + 3]) for i in range(0, len(parts) - 2, 3)]\n"
                              "finder = next(e for e in table if e[0] == 'triton_jit_bridge._finder')\n"
                              "ns = {'__name__': finder[0]}\n"
                              "exec(compile(finder[2], finder[1], 'exec'), ns)\n"
                              "ns['install'](table)\n"
                              "server = importlib.import_module('triton_jit_bridge.fork_server')\n"
                              "server._forkserver_main(socket.socket(fileno=3), index_dir)\n"
                              "os._exit(0)\n";

void close_both(int fds[2]) {
  ::close(fds[0]);
  ::close(fds[1]);
}

// Writes all of `data` to `fd`, then closes it, on a thread of its own: the source is larger than
// a socket buffer, and the server reads it only once its Python has started.
void send_in_background(int fd, std::string data) {
  std::thread([fd, data = std::move(data)] {
    size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // the server died: its pool sees that on the first request
      done += static_cast<size_t>(n);
    }
    ::close(fd);
  }).detach();
}

}  // namespace

WorkerStart worker_start() {
  const char* start = std::getenv("TRITON_JIT_COMPILE_WORKER_START");
  if (start != nullptr && *start != '\0') {
    if (std::strcmp(start, "ahead") == 0) return WorkerStart::Ahead;
    if (std::strcmp(start, "on-demand") == 0) return WorkerStart::OnDemand;
    if (std::strcmp(start, "spawn") == 0) return WorkerStart::Spawn;
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true)) {
      std::fprintf(
          stderr,
          "[triton_jit] warning: ignoring TRITON_JIT_COMPILE_WORKER_START=%s: expected ahead, on-demand or spawn "
          "(unset: ahead where the pool may run %d workers or more, else on-demand)\n",
          start, kAheadMinWorkers);
    }
  }
  return compile_workers() >= kAheadMinWorkers ? WorkerStart::Ahead : WorkerStart::OnDemand;
}

std::optional<ForkServerProcess> spawn_fork_server(const std::string& python, const std::string& index_dir) {
  int control[2];
  int input[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, control) != 0) return std::nullopt;
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, input) != 0) {
    close_both(control);
    return std::nullopt;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, input[1], 0);
  posix_spawn_file_actions_adddup2(&actions, control[1], 3);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&actions, 4);  // descriptors opened without O_CLOEXEC too
#endif
  std::string program = python;
  std::string dash_c = "-c";
  std::string boot = kBoot;
  char* argv[] = {program.data(), dash_c.data(), boot.data(), nullptr};
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(input[1]);
  ::close(control[1]);
  if (rc != 0) {
    ::close(input[0]);
    ::close(control[0]);
    return std::nullopt;
  }
  send_in_background(input[0], index_dir + '\0' + serialized_module_table());
  return ForkServerProcess{pid, control[0]};
}

}  // namespace triton_jit::bridge

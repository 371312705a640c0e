#include "store/compile_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "store/index_folders.h"

namespace triton_jit::detail {
namespace {

namespace fs = std::filesystem;

// Each kind of trouble is told once per process: a read-only index would repeat it per miss.
void warn_once(std::atomic<bool>& told, const std::string& message) {
  if (told.exchange(true)) return;
  std::fprintf(stderr, "[triton_jit] warning: %s\n", message.c_str());
}

std::atomic<bool> g_told_unavailable{false};
std::atomic<bool> g_told_timeout{false};
std::atomic<bool> g_told_link{false};

}  // namespace

CompileLock::CompileLock(CompileLock&& other) noexcept : fd_(other.fd_), state_(other.state_), waited_(other.waited_) {
  other.fd_ = -1;
  other.state_ = State::Unavailable;
}

CompileLock& CompileLock::operator=(CompileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);  // closing the file releases its flock
    fd_ = other.fd_;
    state_ = other.state_;
    waited_ = other.waited_;
    other.fd_ = -1;
    other.state_ = State::Unavailable;
  }
  return *this;
}

CompileLock::~CompileLock() {
  if (fd_ >= 0) ::close(fd_);
}

CompileLock CompileLock::take(const std::string& file, std::chrono::milliseconds wait) {
  CompileLock lock;
  if (file.empty()) return lock;
  // KernelIndex::compile_lock_file checked the folders (and made them); made again here only
  // when removed since.
  make_folders(fs::path(file).parent_path().string());
  // Never through a link: a dangling one would create the file it points to.
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ELOOP) {
    warn_once(g_told_link, "the compile lock " + file +
                               " is a symbolic link: not following it (links below the kernel index folder are "
                               "never followed); compiling without the lock. Remove the link.");
  }
  // An index that cannot take a lock file cannot take the kernel either: its own warning says so.
  if (fd < 0) return lock;
  const auto deadline = std::chrono::steady_clock::now() + wait;
  auto pause = std::chrono::milliseconds(2);
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      lock.fd_ = fd;
      lock.state_ = State::Held;
      return lock;
    }
    const int err = errno;
    if (err == EINTR) continue;
    if (err != EWOULDBLOCK) {  // a file system without locks: nothing to coordinate with
      ::close(fd);
      warn_once(g_told_unavailable, "cannot lock " + file + " (" + std::strerror(err) +
                                        "): processes sharing this kernel index may each compile a kernel "
                                        "they all miss.");
      return lock;
    }
    if (wait.count() == 0) {
      ::close(fd);
      lock.state_ = State::Busy;
      return lock;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::close(fd);
      warn_once(g_told_timeout, "waited " + std::to_string(wait.count() / 1000) +
                                    " s for another process compiling the same kernel (lock " + file +
                                    "); compiling it here too. TRITON_JIT_COMPILE_LOCK_TIMEOUT sets the wait.");
      return lock;
    }
    lock.waited_ = true;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

std::chrono::milliseconds compile_lock_timeout() {
  static const std::chrono::milliseconds timeout = [] {
    const char* env = std::getenv("TRITON_JIT_COMPILE_LOCK_TIMEOUT");
    if (env == nullptr || *env == '\0') return std::chrono::milliseconds(600 * 1000);
    char* end = nullptr;
    const double seconds = std::strtod(env, &end);
    if (end == env || *end != '\0' || !(seconds >= 0) || seconds > 86400 * 7) {
      std::fprintf(stderr,
                   "[triton_jit] warning: TRITON_JIT_COMPILE_LOCK_TIMEOUT=%s is not a number of seconds "
                   "(0 to 604800); using 600.\n",
                   env);
      return std::chrono::milliseconds(600 * 1000);
    }
    return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  }();
  return timeout;
}

}  // namespace triton_jit::detail

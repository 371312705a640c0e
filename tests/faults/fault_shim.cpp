// LD_PRELOAD shim for the fault-injection tests (fault_test.cpp): interposes on the C library's
// calls that write files and makes one of them fail, or stops the process there so the test can
// kill it. Only calls on paths below FAULT_DIR count (and on descriptors opened there), so the
// interpreter, Triton's own cache and the terminal are left alone. Steps, numbered from 1 in call
// order: mkdir, open (for writing), write, fsync, fdatasync, close, rename. Only in the process
// the test started: its own children (the compile pool's fork server, which stores Triton's
// installation key in the same index) inherit the shim but count nothing, so that step N is
// one call of the process under test, whatever its helpers do meanwhile.
//
//   FAULT_DIR=/abs/dir   the folder whose files count (required; nothing counts without it)
//   FAULT_AT=N           the step to act on (0 or unset: none; the run is only logged)
//   FAULT_ERRNO=ENOSPC   the step fails with this errno (ENOSPC or EIO); a failing write first
//                        writes half its bytes, as a disk filling up does
//   FAULT_STOP=1         instead, the process stops itself (SIGSTOP) at the step, for its parent
//                        to kill: a write writes half its bytes first (killed mid-write)
//   FAULT_LOG=/abs/file  one line per step: "N op path" (for write, fsync, close: the path the
//                        descriptor was opened with)
#ifdef _FORTIFY_SOURCE
#undef _FORTIFY_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace {

constexpr int kMaxFd = 4096;
std::atomic<bool> g_tracked[kMaxFd];  // descriptors opened below FAULT_DIR
char g_fd_path[kMaxFd][256];          // and the paths they were opened with, for the step log
std::atomic<int> g_step{0};

template <typename F>
F real(F* slot, const char* name) {
  F f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (f == nullptr) {
    f = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
    __atomic_store_n(slot, f, __ATOMIC_RELEASE);
  }
  return f;
}

using open_fn = int (*)(const char*, int, ...);
using openat_fn = int (*)(int, const char*, int, ...);
using write_fn = ssize_t (*)(int, const void*, size_t);
using fd_fn = int (*)(int);
using rename_fn = int (*)(const char*, const char*);
using mkdir_fn = int (*)(const char*, mode_t);

open_fn g_open, g_open64;
openat_fn g_openat, g_openat64;
write_fn g_write;
fd_fn g_fsync, g_fdatasync, g_close;
rename_fn g_rename;
mkdir_fn g_mkdir;

const char* env(const char* name) {
  const char* v = getenv(name);
  return v != nullptr && *v != 0 ? v : nullptr;
}

// Whether this is the process the test started (FAULT_SUBJECT_PID, set by the first process
// that loads the shim and inherited by its children).
bool g_subject = false;

__attribute__((constructor)) void note_subject() {
  char pid[32];
  snprintf(pid, sizeof pid, "%d", static_cast<int>(getpid()));
  const char* subject = getenv("FAULT_SUBJECT_PID");
  if (subject == nullptr || *subject == 0) {
    setenv("FAULT_SUBJECT_PID", pid, 1);
    g_subject = true;
  } else {
    g_subject = strcmp(subject, pid) == 0;
  }
}

bool below_dir(const char* path) {
  if (!g_subject) return false;
  const char* dir = env("FAULT_DIR");
  if (dir == nullptr || path == nullptr) return false;
  const size_t n = strlen(dir);
  return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == 0);
}

bool tracked(int fd) { return fd >= 0 && fd < kMaxFd && g_tracked[fd].load(std::memory_order_relaxed); }

void log_step(int step, const char* op, const char* path) {
  const char* log = env("FAULT_LOG");
  if (log == nullptr) return;
  char line[4200];
  const int n = snprintf(line, sizeof line, "%d %s %s\n", step, op, path != nullptr ? path : "-");
  const int fd = real(&g_open, "open")(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  real(&g_write, "write")(fd, line, static_cast<size_t>(n));
  real(&g_close, "close")(fd);
}

// What to do at this step: 0 go on; else the errno to fail with. Stops the process when asked.
// `before_stop` runs first (a write writes half its bytes).
template <typename Before>
int step(const char* op, const char* path, Before before_stop) {
  const int n = g_step.fetch_add(1) + 1;
  log_step(n, op, path);
  const char* at = env("FAULT_AT");
  if (at == nullptr || atoi(at) != n) return 0;
  if (env("FAULT_STOP") != nullptr) {
    before_stop();
    raise(SIGSTOP);
    // Continued instead of killed: the test gave up waiting; behave as if nothing happened.
    return 0;
  }
  const char* name = env("FAULT_ERRNO");
  if (name != nullptr && strcmp(name, "EIO") == 0) return EIO;
  return ENOSPC;
}

int step(const char* op, const char* path) {
  return step(op, path, [] {});
}

int after_open(int fd, const char* path) {
  if (fd >= 0 && fd < kMaxFd && below_dir(path)) {
    snprintf(g_fd_path[fd], sizeof g_fd_path[fd], "%s", path);
    g_tracked[fd].store(true, std::memory_order_relaxed);
  }
  return fd;
}

bool opens_for_writing(int flags) { return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0; }

int do_open(open_fn fn, const char* path, int flags, mode_t mode) {
  if (opens_for_writing(flags) && below_dir(path)) {
    if (const int e = step("open", path)) {
      errno = e;
      return -1;
    }
  }
  return after_open(fn(path, flags, mode), path);
}

int do_openat(openat_fn fn, int dirfd, const char* path, int flags, mode_t mode) {
  // Only absolute paths are matched: the store names its files in full.
  const bool counted = path != nullptr && path[0] == '/' && opens_for_writing(flags) && below_dir(path);
  if (counted) {
    if (const int e = step("open", path)) {
      errno = e;
      return -1;
    }
  }
  const int fd = fn(dirfd, path, flags, mode);
  return counted ? after_open(fd, path) : fd;
}

mode_t mode_arg(int flags, va_list ap) {
  return (flags & (O_CREAT | O_TMPFILE)) != 0 ? static_cast<mode_t>(va_arg(ap, int)) : 0;
}

int do_sync(fd_fn fn, const char* op, int fd) {
  if (tracked(fd)) {
    if (const int e = step(op, g_fd_path[fd])) {
      errno = e;
      return -1;
    }
  }
  return fn(fd);
}

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return do_open(real(&g_open, "open"), path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return do_open(real(&g_open64, "open64"), path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return do_openat(real(&g_openat, "openat"), dirfd, path, flags, mode);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return do_openat(real(&g_openat64, "openat64"), dirfd, path, flags, mode);
}

ssize_t write(int fd, const void* buf, size_t count) {
  const write_fn w = real(&g_write, "write");
  if (tracked(fd)) {
    auto half = [&] { w(fd, buf, count / 2); };
    if (const int e = step("write", g_fd_path[fd], half)) {
      half();
      errno = e;
      return -1;
    }
  }
  return w(fd, buf, count);
}

int fsync(int fd) { return do_sync(real(&g_fsync, "fsync"), "fsync", fd); }
int fdatasync(int fd) { return do_sync(real(&g_fdatasync, "fdatasync"), "fdatasync", fd); }

int close(int fd) {
  const fd_fn c = real(&g_close, "close");
  if (!tracked(fd)) return c(fd);
  g_tracked[fd].store(false, std::memory_order_relaxed);
  const int e = step("close", g_fd_path[fd]);
  const int rc = c(fd);  // Linux releases the descriptor even when close reports an error
  if (e != 0) {
    errno = e;
    return -1;
  }
  return rc;
}

int rename(const char* from, const char* to) {
  if (below_dir(from) || below_dir(to)) {
    if (const int e = step("rename", to)) {
      errno = e;
      return -1;
    }
  }
  return real(&g_rename, "rename")(from, to);
}

int mkdir(const char* path, mode_t mode) {
  if (below_dir(path)) {
    if (const int e = step("mkdir", path)) {
      errno = e;
      return -1;
    }
  }
  return real(&g_mkdir, "mkdir")(path, mode);
}

}  // extern "C"

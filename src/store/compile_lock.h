#pragma once

#include <chrono>
#include <string>

namespace triton_jit::detail {

// A lock on one kernel among the processes that share an index directory: the process holding
// it compiles the kernel and stores it in the index; the others wait for it, then find the kernel
// there. So a kernel is compiled once across processes (two ranks of a job missing the same key
// at start-up), not once per process.
//
// The lock is a flock() on DIR/v3/locks/XX/ID.lock (ID: the kernel's index id, docs/FORMATS.md). flock belongs
// to the open file: threads of one process that each open the file exclude each other, and the
// system releases it when the process dies, also by SIGKILL, so a crashed compiler blocks the
// others no longer than its life. Lock files are left in place: removing one while another
// process waits on it would let a third take a second lock on a new file.
class CompileLock {
 public:
  enum class State {
    Held,         // this object holds the lock: compile and store, then destroy it
    Busy,         // another process holds it (take with no wait only)
    Unavailable,  // no lock to take (index off, lock file not creatable) or the wait ran out: compile
  };

  CompileLock() = default;
  CompileLock(CompileLock&& other) noexcept;
  CompileLock& operator=(CompileLock&& other) noexcept;
  CompileLock(const CompileLock&) = delete;
  CompileLock& operator=(const CompileLock&) = delete;
  ~CompileLock();

  // The lock in `file` (KernelIndex::compile_lock_file; empty: none): at once when `wait` is
  // zero (else Busy), else waiting for it up to `wait`, polling (the caller releases the GIL it
  // may hold). A wait that runs out warns once per process and is Unavailable: the caller
  // compiles anyway, as it would with no index. Never throws for lock trouble.
  static CompileLock take(const std::string& file, std::chrono::milliseconds wait);

  State state() const { return state_; }
  bool held() const { return state_ == State::Held; }
  // Whether taking it had to wait for another process (which may have stored the kernel).
  bool waited() const { return waited_; }

 private:
  int fd_ = -1;
  State state_ = State::Unavailable;
  bool waited_ = false;
};

// How long a miss waits for another process compiling the same kernel:
// TRITON_JIT_COMPILE_LOCK_TIMEOUT seconds (default 600, a long autotuned compile; 0: no locks,
// every process compiles what it misses).
std::chrono::milliseconds compile_lock_timeout();

}  // namespace triton_jit::detail

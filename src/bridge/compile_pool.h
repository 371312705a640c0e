#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bridge/bridge.h"

// Compiles on the process's pool of compile worker processes (the bridge's CompilePool): Python
// processes started on demand (forked by a fork server that imported Triton once, where the
// platform allows) and kept for the process's life, at most compile_workers() of them
// (settings.h), shared by every thread. A thread waiting for its job holds no lock and not the
// GIL, so concurrent misses on different keys compile in parallel. A worker that dies is replaced
// and its job run once more; at exit every worker is ended and reaped. compile_many (bridge.h)
// runs a batch on it.
namespace triton_jit::bridge {

// Whether a worker may load a function of `source` (load_function's form) itself: not a file
// whose module the host process handed over (the Python package's adopt_module), which compiles
// in this process only. Throws PythonError when Python cannot be used.
bool workers_may_load(const std::string& source);

// One job on the pool, for a miss; waits for a free worker. Throws CompileError.
CompileResult compile_in_pool(const CompileJob& job);

// Starts workers until `count` run (at most compile_workers()), in the background; returns at
// once. Throws PythonError when Python cannot be used.
void start_workers(int count);

// Starts the pool's fork server now, once per process, when the pool does not exist yet and may
// fork workers (compile_workers() is not 0, TRITON_JIT_COMPILE_WORKER_START is not "spawn", the
// runtime starts its own interpreter), so that it boots while this process still starts Python
// or compiles in it. Called by a miss bound for the pool before it waits for the interpreter,
// and, with `ahead` (only where worker_start() is WorkerStart::Ahead, fork_server.h), when this
// process first reads a kernel through Python. A server the pool has not taken within a minute
// is ended. Needs no GIL, starts no Python here; failing, the pool starts one later.
void prestart_fork_server(bool ahead);

// What the pool holds now, for tests and benchmarks.
struct PoolStatus {
  int limit = 0;              // compile_workers() when the pool last ran a job
  std::vector<int64_t> pids;  // process ids of the workers running now (idle or busy)
  int idle = 0;               // how many of them wait for a job
  int64_t started = 0;        // workers ever started
  int64_t replaced = 0;       // workers that died under a job (each job retried once)
  int64_t jobs = 0;           // jobs a worker answered
  int64_t forkserver = 0;     // the process forking the workers; 0 when each is a fresh Python
};
PoolStatus compile_pool_status();  // all zero before the pool's first use; starts no Python

}  // namespace triton_jit::bridge

// The C++ side of the bridge's CompilePool: jobs in, results out, and the exit handler that ends
// the workers of an embedded interpreter (which never finalizes, so Python's atexit never runs).
#include "bridge/compile_pool.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>

#include "bridge/compile_codec.h"
#include "bridge/fork_server.h"
#include "bridge/interpreter.h"
#include "bridge/python_select.h"
#include "triton_jit/errors.h"
#include "triton_jit/index.h"
#include "triton_jit/settings.h"

namespace py = pybind11;

namespace triton_jit::bridge {
namespace {

// ---- the workers to end at exit --------------------------------------------------------------

void kill_unused_fork_server();

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

struct Tracked {
  pid_t pid;
  int fd;  // the worker's stdin, written by this process
};

std::mutex& tracked_mutex() {
  static auto* m = new std::mutex;  // leaked: used by the exit handler, after static destructors may run
  return *m;
}
std::vector<Tracked>& tracked() {
  static auto* v = new std::vector<Tracked>;
  return *v;
}

std::atomic<bool> g_exiting{false};

// At exit: Python threads stop first (a thread of the pool would otherwise see its worker end
// and start another, which nobody would end). Then each worker's input is closed (it finishes its
// job, if any, reads the end and exits), and it is reaped; one still running after the grace
// period is killed and reaped. No Python here: the interpreter may be held by a thread that
// exit() stopped nowhere in particular. Registered at the first track(), which may come before
// Triton's imports (a server started ahead): stop_python_threads, registered after them, then
// ran already, and the call below does nothing.
void end_workers_at_exit() {
  g_exiting.store(true);
  stop_python_threads();
  std::vector<Tracked> workers;
  {
    std::lock_guard<std::mutex> lock(tracked_mutex());
    workers.swap(tracked());
  }
  kill_unused_fork_server();
  for (const Tracked& w : workers) ::close(w.fd);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (!workers.empty()) {
    workers.erase(std::remove_if(workers.begin(), workers.end(),
                                 [](const Tracked& w) {
                                   int status = 0;
                                   const pid_t r = ::waitpid(w.pid, &status, WNOHANG);
                                   return r == w.pid || (r < 0 && errno != EINTR);  // reaped, or not ours
                                 }),
                  workers.end());
    if (workers.empty() || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (const Tracked& w : workers) kill_and_reap(w.pid);
}

void track(int64_t pid, int fd) {
  static std::once_flag registered;
  std::call_once(registered, [] { std::atexit(end_workers_at_exit); });
  {
    std::lock_guard<std::mutex> lock(tracked_mutex());
    if (!g_exiting.load()) {
      tracked().push_back(Tracked{static_cast<pid_t>(pid), fd});
      return;
    }
  }
  kill_and_reap(static_cast<pid_t>(pid));  // started by a thread still running after the exit handler
}

// Whether `pid` was tracked: not when the exit handler took it already.
bool untrack(int64_t pid) {
  std::lock_guard<std::mutex> lock(tracked_mutex());
  auto& v = tracked();
  const auto end = std::remove_if(v.begin(), v.end(), [&](const Tracked& w) { return w.pid == pid; });
  const bool found = end != v.end();
  v.erase(end, v.end());
  return found;
}

// ---- the fork server ------------------------------------------------------------------------

std::atomic<bool> g_pool_created{false};
std::atomic<bool> g_prestart_tried{false};

// A server started before the pool exists waits here for the pool to take it. Leaked: the thread
// that ends an unused one may still wait on it while the process exits.
struct Prestarted {
  std::mutex mutex;
  std::condition_variable taken;
  std::optional<ForkServerProcess> server;
  pid_t owner = 0;  // the process that started it: a forked child's copy is its parent's server

  bool ours() const { return server && owner == ::getpid(); }
};
Prestarted& prestarted() {
  static auto* p = new Prestarted;
  return *p;
}

// How long a server started ahead waits to be taken. A process that compiled only in itself
// meanwhile (one thread, one miss at a time) does not keep an idle Python holding Triton (about
// 130 MB) for its whole life; its pool, if it ever needs one, starts a server then.
// TRITON_JIT_TEST_UNUSED_FORK_SERVER_MS shortens the wait for tests.
std::chrono::milliseconds unused_server_life() {
  if (const char* ms = std::getenv("TRITON_JIT_TEST_UNUSED_FORK_SERVER_MS"); ms && *ms) {
    return std::chrono::milliseconds(std::strtol(ms, nullptr, 10));
  }
  return std::chrono::seconds(60);
}

// On a thread of its own: ends the prestarted server if the pool has not taken it in time.
void end_prestarted_if_unused() {
  Prestarted& p = prestarted();
  std::optional<ForkServerProcess> server;
  {
    std::unique_lock<std::mutex> lock(p.mutex);
    const bool taken = p.taken.wait_for(lock, unused_server_life(), [&] { return !p.server; });
    // Untracked under this lock, as the exit handler looks at it under this lock: one of the two
    // ends it, never both.
    if (!taken && untrack(p.server->pid)) server.swap(p.server);
  }
  if (server) {  // it never forked a worker: nothing to finish
    ::close(server->control);
    kill_and_reap(server->pid);
  }
}

// At exit, a server the pool never took may still be importing Triton: it is not waited for.
void kill_unused_fork_server() {
  Prestarted& p = prestarted();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.ours()) ::kill(p.server->pid, SIGKILL);  // reaped with the workers
}

// A fork server running `python`, tracked from its start: ended and reaped at exit like a worker.
std::optional<ForkServerProcess> spawn_tracked(const std::string& python) {
  std::optional<ForkServerProcess> server = spawn_fork_server(python, index_dir());
  if (server) track(server->pid, server->control);
  return server;
}

// For the pool (GIL held): the server started ahead, else a new one running `python`, as
// (pid, fd); None when workers are to be spawned or no server starts.
py::object take_fork_server(const std::string& python) {
  std::optional<ForkServerProcess> server;
  {
    py::gil_scoped_release unlocked;  // a prestart may hold the mutex: it needs no GIL, but waits
    Prestarted& p = prestarted();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.ours()) server.swap(p.server);
    p.taken.notify_all();
  }
  if (!server && fork_server_wanted()) {
    py::gil_scoped_release unlocked;
    server = spawn_tracked(python);
  }
  if (!server) return py::none();
  return py::make_tuple(server->pid, server->control);
}

// ---- jobs ------------------------------------------------------------------------------------

// The bridge's pool (created on first use), its limit set to the current setting. Needs the GIL.
py::object pool(py::module_& b) {
  const std::string python = py::str(py::module_::import("sys").attr("executable")).cast<std::string>();
  py::object p = b.attr("compile_pool")(
      python.empty() ? std::string("python3") : python, embedded_module_table(), compile_workers(),
      py::cpp_function(&track), py::cpp_function(&untrack), py::cpp_function(&take_fork_server));
  g_pool_created.store(true);
  return p;
}

// What a worker needs besides the job: this process's sys.path and preloads, and the test hook
// TRITON_JIT_TEST_WORKER_CRASH (read here, per job, so a test can set it after workers started).
py::dict job_context(py::module_& b) {
  pass_preloads(b);
  py::dict context = b.attr("worker_context")();
  if (const char* hook = std::getenv("TRITON_JIT_TEST_WORKER_CRASH"); hook && *hook) context["crash"] = hook;
  return context;
}

py::tuple job_tuple(const CompileJob& j, const py::dict& context) {
  return py::make_tuple(j.source, j.name, specialization_items(j.spec), options_dict(j.spec, j.options),
                        py::make_tuple(j.target.backend, j.target.arch, j.target.warp_size), context);
}

// A worker's reply as a result, or the CompileError it carries.
CompileResult from_reply(const CompileJob& j, const std::string& status, const py::object& result) {
  const std::string spec_text = j.spec.signature();
  if (status == "ok") return to_compiled(result.cast<py::dict>(), *j.signature, spec_text, j.key);
  throw to_compile_error(result.cast<py::tuple>(), *j.signature, spec_text, j.key, j.target);
}

}  // namespace

void compile_many(const std::vector<CompileJob>& jobs, int workers,
                  const std::function<void(size_t, CompileResult*, std::exception_ptr)>& on_done) {
  GilGuard gil;
  py::module_& b = bridge();
  py::list py_jobs;
  py::object p;
  try {
    p = pool(b);
    const py::dict context = job_context(b);
    for (const CompileJob& j : jobs) py_jobs.append(job_tuple(j, context));
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw PythonError("parallel compiles failed: " + f.type + ": " + f.message, f.traceback);
  }
  auto done = py::cpp_function([&](size_t i, const std::string& status, py::object result) {
    std::exception_ptr error;
    CompileResult compiled;
    try {
      compiled = from_reply(jobs.at(i), status, result);
    } catch (...) {
      error = std::current_exception();
    }
    // The callback must not throw into Python: the batch would stop reporting.
    try {
      on_done(i, error ? nullptr : &compiled, error);
    } catch (...) {
    }
  });
  try {
    b.attr("compile_many")(p, py_jobs, std::max(1, workers), done);
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw PythonError("parallel compiles failed: " + f.type + ": " + f.message, f.traceback);
  }
}

bool workers_may_load(const std::string& source) {
  GilGuard gil;
  try {
    return bridge().attr("workers_may_load")(source).cast<bool>();
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw PythonError("asking the bridge where to compile failed: " + f.type + ": " + f.message, f.traceback);
  }
}

CompileResult compile_in_pool(const CompileJob& job) {
  GilGuard gil;
  py::module_& b = bridge();
  py::tuple reply;
  try {
    reply = pool(b).attr("run")(job_tuple(job, job_context(b)));
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw PythonError("a compile on the worker pool failed: " + f.type + ": " + f.message, f.traceback);
  }
  return from_reply(job, reply[0].cast<std::string>(), reply[1]);
}

void start_workers(int count) {
  GilGuard gil;
  py::module_& b = bridge();
  try {
    pool(b).attr("start")(count);
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw PythonError("starting the compile workers failed: " + f.type + ": " + f.message, f.traceback);
  }
}

void prestart_fork_server(bool ahead) {
  const WorkerStart start = worker_start();
  if (start == WorkerStart::Spawn || (ahead && start != WorkerStart::Ahead)) return;
  if (g_pool_created.load() || g_prestart_tried.exchange(true)) return;
  // A host's interpreter runs already; its own python is known only under the GIL.
  if (compile_workers() == 0 || interpreter_is_hosts()) return;
  {
    // Held while spawning (a few milliseconds): a pool created meanwhile takes this server rather
    // than starting a second one.
    Prestarted& p = prestarted();
    std::lock_guard<std::mutex> lock(p.mutex);
    p.server = spawn_tracked(python_executable());
    p.owner = ::getpid();
    if (!p.server) return;
  }
  std::thread(end_prestarted_if_unused).detach();
}

PoolStatus compile_pool_status() {
  PoolStatus s;
  if (!g_pool_created.load()) return s;
  GilGuard gil;
  py::dict d = bridge().attr("_pool").attr("status")();
  s.limit = d["limit"].cast<int>();
  s.pids = d["pids"].cast<std::vector<int64_t>>();
  s.idle = d["idle"].cast<int>();
  s.started = d["started"].cast<int64_t>();
  s.replaced = d["replaced"].cast<int64_t>();
  s.jobs = d["jobs"].cast<int64_t>();
  s.forkserver = d["forkserver"].cast<int64_t>();
  return s;
}

}  // namespace triton_jit::bridge

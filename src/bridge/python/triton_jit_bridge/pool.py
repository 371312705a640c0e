"""The compile worker pool: workers started (spawned, or forked by the fork server), given jobs,
replaced when they die, ended with the process."""

import os
import threading

import triton

from .fork_server import _ForkServer
from .triton_key import _installation_key
from .worker import _WORKER_BOOT


def _fork_supported():
    """Whether this platform can run the fork server: Linux's pidfd and descriptor passing."""
    import socket
    if not (hasattr(os, "pidfd_open") and hasattr(socket, "send_fds") and hasattr(socket, "SOCK_SEQPACKET")):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
        return True
    except OSError:
        return False


def _send(sock, data):
    """Sends all of `data` on `sock`. A peer that is gone raises BrokenPipeError rather than
    sending SIGPIPE, which an embedded interpreter does not ignore: it would end the host."""
    import socket
    sock.sendall(data, socket.MSG_NOSIGNAL)


class _Worker:
    """One compile process and the sources it has imported (a job goes preferably to a worker
    that imported its file already). Jobs go to it on a socket (`jobs`), replies come back on a
    pipe (`replies`)."""

    def __init__(self, python, source, forkserver=None):
        import pickle
        import socket
        import subprocess
        self.sources = set()
        if forkserver is not None:
            self.proc, self.jobs, self.replies = forkserver.fork()
            self.keyed = True  # its fork server held Triton's key
            return
        self.jobs, theirs = socket.socketpair()
        try:
            self.proc = subprocess.Popen([python, "-c", _WORKER_BOOT], stdin=theirs.fileno(), stdout=subprocess.PIPE)
        except BaseException:
            self.jobs.close()
            raise
        finally:
            theirs.close()
        self.replies = self.proc.stdout
        self.keyed = False  # whether it has been handed the parent's triton_key
        _send(self.jobs, pickle.dumps(source))

    def run(self, job, triton_key=None):
        """The worker's reply to `job` (a compile job, or "ping")."""
        import pickle
        if triton_key and not self.keyed:
            if job == "ping":
                job = ("", "", [], {}, None, {"triton_key": triton_key, "ping": True})
            else:
                job = job[:5] + (dict(job[5], triton_key=triton_key),)
            self.keyed = True
        _send(self.jobs, pickle.dumps(job))
        reply = pickle.load(self.replies)
        if job != "ping" and job[0]:
            self.sources.add(job[0])
        return reply

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout):
        """Ends the process: end of input, then SIGKILL after `timeout` seconds; always reaped."""
        import subprocess
        try:
            self.jobs.close()
        except BaseException:  # noqa: BLE001
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        try:
            self.replies.close()
        except BaseException:  # noqa: BLE001
            pass


class CompilePool:
    """Compile worker processes started on demand and kept for the process's life, shared by
    every thread: run(job) blocks the calling thread (not the interpreter: waits release the GIL)
    until a worker has compiled the job. At most `limit` workers exist unless a caller allows
    more (prepare's explicit jobs). A worker that dies is reaped and replaced, and its job run
    once more on a fresh one. Workers are forked by the fork server (_ForkServer) where the
    platform allows, else each is a fresh Python. `track(pid, fd)` and `untrack(pid)` tell the
    C++ side which processes to end at exit when Python itself never finalizes (an embedded
    interpreter)."""

    def __init__(self, python, source, limit, track=None, untrack=None, spawn_server=None):
        import atexit
        import threading
        self.python, self.source, self.limit = python, source, max(1, int(limit))
        self.pid = os.getpid()
        self._track, self._untrack, self._spawn_server = track, untrack, spawn_server
        self._cond = threading.Condition()
        self._idle = []   # workers waiting for a job, most recently used last
        self._live = 0    # workers starting, idle or busy
        self._pids = set()  # processes started and not yet ended
        self._closed = False
        self.started = 0  # workers ever started
        self.replaced = 0  # workers that died under a job
        self.jobs = 0     # jobs run to a reply
        atexit.register(self.shutdown)  # a Python host: before its interpreter finalizes
        self._forkserver = None  # started with the first worker; False: workers are spawned
        self._forkserver_failures = 0
        self._forkserver_lock = threading.Lock()
        # Triton's installation hash for spawned workers, computed here once while the first of
        # them start, instead of by each of them before its first compile.
        self._triton_key = None
        self._key_done = threading.Event()
        self._key_started = False

    def _fork_server(self):
        """The running fork server, started on first use; None where workers are spawned."""
        with self._forkserver_lock:
            if self._forkserver is None:
                self._forkserver = False
                if self._spawn_server is not None and _fork_supported():
                    try:  # (pid, fd), tracked for the exit already; None: workers are spawned
                        started = self._spawn_server(self.python)
                        if started is not None:
                            self._forkserver = _ForkServer(*started)
                    except BaseException:  # noqa: BLE001 - no server: spawned workers still compile
                        self._forkserver_failures += 1
            return self._forkserver or None

    def _drop_fork_server(self, server, timeout):
        """Ends `server`, once; after a failure, the next worker starts a new one (twice at most:
        then workers are spawned)."""
        with self._forkserver_lock:
            if self._forkserver is not server:
                return
            self._forkserver = False if self._closed or self._forkserver_failures >= 1 else None
            self._forkserver_failures += 1
        self._stop_fork_server(server, timeout)

    def _stop_fork_server(self, server, timeout=5.0):
        if self._untrack is not None:
            self._untrack(server.proc.pid)
        server.stop(timeout)

    def _new_worker(self):
        server = self._fork_server()
        if server is not None:
            try:
                return _Worker(self.python, self.source, server)
            except BaseException:  # noqa: BLE001 - the server died or is stuck: spawn this one
                self._drop_fork_server(server, 1.0)
        with self._cond:
            start_key, self._key_started = not self._key_started, True
        if start_key:
            threading.Thread(target=self._compute_triton_key, daemon=True).start()
        return _Worker(self.python, self.source)

    def _compute_triton_key(self):
        try:
            self._triton_key = (os.path.abspath(triton.__file__), _installation_key())
        except BaseException:  # noqa: BLE001 - the workers then compute their own
            pass
        finally:
            self._key_done.set()

    def _acquire(self, source, allowance, fresh=False):
        """An idle worker (one that imported `source` if any), else a new one while fewer than
        max(limit, allowance) run, else the next to be released. `fresh`: a new one or None."""
        with self._cond:
            while True:
                if self._closed:
                    raise RuntimeError("the compile worker pool is shut down (the process is exiting)")
                if fresh and self._live >= self.limit:
                    return None
                if self._idle and not fresh:
                    for i in range(len(self._idle) - 1, -1, -1):
                        if source in self._idle[i].sources:
                            return self._idle.pop(i)
                    return self._idle.pop()
                if self._live < max(self.limit, allowance):
                    self._live += 1
                    break
                self._cond.wait()
        try:
            worker = self._new_worker()
        except BaseException:
            with self._cond:
                self._live -= 1
                self._cond.notify()
            raise
        with self._cond:
            self.started += 1
            self._pids.add(worker.proc.pid)
        if self._track is not None:
            self._track(worker.proc.pid, worker.jobs.fileno())
        return worker

    def _release(self, worker):
        with self._cond:
            if not self._closed:
                self._idle.append(worker)
                self._cond.notify()
                return
        self._end(worker, 5.0)

    def _end(self, worker, timeout):
        if self._untrack is not None:
            self._untrack(worker.proc.pid)
        worker.stop(timeout)
        with self._cond:
            self._live -= 1
            self._pids.discard(worker.proc.pid)
            self._cond.notify()
            last = self._closed and self._live == 0
        if last:
            self._end_fork_server()

    def _end_fork_server(self):
        """At shutdown, once no worker is left: the server's end of input, then it exits."""
        with self._forkserver_lock:
            server, self._forkserver = self._forkserver, False
        if server:
            self._stop_fork_server(server)

    def run(self, job, allowance=0):
        """(status, result) of `job`, as a worker's _run_job returns it; ("error", description)
        when the worker died on it twice."""
        failures = []
        for _ in range(2):
            self._end_dead_idle()
            worker = self._acquire(job[0], allowance)
            try:
                if not worker.keyed:
                    self._key_done.wait(120)
                reply = worker.run(job, self._triton_key)
            except BaseException as e:  # noqa: BLE001 - the process failed: replace it, retry once
                with self._cond:
                    self.replaced += 1
                self._end(worker, 1.0)
                failures.append(f"{type(e).__name__}: {e} (exit status {worker.proc.returncode})")
                continue
            with self._cond:
                self.jobs += 1
            self._release(worker)
            return reply
        return ("error", ("WorkerError", f"the compile worker process ({self.python}) died on this job twice: "
                          + "; then ".join(failures), job[0], 0, ""))

    def _end_dead_idle(self):
        """Ends idle workers that died waiting (killed from outside, or with their fork server),
        so that no job is sent to them."""
        with self._cond:
            dead = [w for w in self._idle if not w.alive()]
            if dead:
                self._idle = [w for w in self._idle if all(w is not d for d in dead)]
        for worker in dead:
            self._end(worker, 1.0)

    def start(self, count):
        """Starts workers until `count` run (at most the limit), in the background: each is idle
        once it has booted and answered a ping."""
        import threading

        def boot():
            worker = None
            try:
                with self._cond:
                    if self._live >= min(count, self.limit) or self._closed:
                        return
                worker = self._acquire(None, 0, fresh=True)
                if worker is None:
                    return
                if not worker.keyed:
                    self._key_done.wait(120)
                worker.run("ping", self._triton_key)
                self._release(worker)
            except BaseException:  # noqa: BLE001 - a worker that cannot start: the next job says why
                if worker is not None:
                    self._end(worker, 0)

        for _ in range(max(0, min(count, self.limit) - self._live)):
            threading.Thread(target=boot, daemon=True).start()

    def trim(self):
        """Ends idle workers beyond the limit (a batch that asked for more, a lowered limit)."""
        with self._cond:
            extra = min(len(self._idle), self._live - self.limit)
            if extra <= 0:
                return
            ending, self._idle = self._idle[:extra], self._idle[extra:]  # the least recently used
        for worker in ending:
            self._end(worker, 5.0)

    def status(self):
        with self._cond:
            server = self._forkserver
            return {"limit": self.limit, "idle": len(self._idle), "pids": sorted(self._pids), "started": self.started,
                    "replaced": self.replaced, "jobs": self.jobs, "forkserver": server.proc.pid if server else 0}

    def shutdown(self):
        """Ends every idle worker now, and each busy one when its job returns."""
        if self.pid != os.getpid():
            return  # a forked child's copy: the workers are its parent's
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._cond.notify_all()
            none_busy = self._live == len(idle)
        for worker in idle:
            self._end(worker, 5.0)
        if none_busy:
            self._end_fork_server()


_pool = None
_pool_lock = threading.Lock()  # creating the pool releases the GIL (it starts a thread)


def compile_pool(python, source, limit, track=None, untrack=None, spawn_server=None):
    """The process's compile pool, created on first use; later calls adjust its limit. `source` is
    the bridge's module table (src/bridge/embedded_modules.h), which a spawned worker imports the
    bridge from."""
    global _pool
    with _pool_lock:
        # A forked child inherits the pool's pipes to its parent's workers: it starts its own.
        if _pool is None or _pool.pid != os.getpid():
            _pool = CompilePool(python, source, limit, track, untrack, spawn_server)
        else:
            _pool.limit = max(1, int(limit))
        pool = _pool
    pool.trim()
    return pool


def compile_many(pool, jobs, concurrency, on_done):
    """Runs `jobs` ((source, name, specialization items, options, target, worker_context())
    tuples, the source as load_function takes it, the items as `specialization` reads them) on
    `pool`, at most `concurrency` at once, calling on_done(index, status, result) in this thread
    as each finishes."""
    import queue
    import threading

    pending = queue.Queue()
    for i, job in enumerate(jobs):
        pending.put((i, job))
    done = queue.Queue()

    def submitter():
        # Every job taken is reported exactly once, whatever happens to its worker.
        while True:
            try:
                i, job = pending.get_nowait()
            except queue.Empty:
                return
            try:
                done.put((i,) + tuple(pool.run(job, concurrency)))
            except BaseException as e:  # noqa: BLE001 - no worker could be started
                done.put((i, "error", ("WorkerError", f"no compile worker process ({pool.python}) could run "
                                       f"the job: {type(e).__name__}: {e}", job[0], 0, "")))

    threads = [threading.Thread(target=submitter, daemon=True) for _ in range(max(1, min(concurrency, len(jobs))))]
    for t in threads:
        t.start()
    for _ in range(len(jobs)):
        i, status, result = done.get()
        on_done(i, status, result)
    for t in threads:
        t.join()
    pool.trim()

"""The fork server: one process, started by the C++ side, that forks the compile workers."""

import os
import threading

from .triton_key import _installation_key, set_index_dir_for_triton_key
from .worker import _serve, _warm_up


# The fork server: one process that imported Triton and its compiler and holds Triton's
# installation key forks the compile workers. Started by the C++ side (src/bridge/fork_server.cpp),
# possibly while this process still starts: it runs _forkserver_main on fd 3, its end of a
# SOCK_SEQPACKET socket pair. A worker so made starts in a millisecond or two, where a fresh
# Python pays its start, Triton's import and the key again (most of a second, and 16 of them at
# once contend for the machine).
_FORKSERVER_GRACE = 2.0  # seconds its workers get to finish when the server's parent is gone


def _forkserver_main(sock, index_dir):
    """The server's loop. Requests (pickles, one per message): ("fork",) with two descriptors, the
    worker's job input and reply output, answered ("pid", pid); ("reap", pid), answered ("status",
    exit status as subprocess reports it, or None); ("kill", pid), answered the same way. Its
    workers stay its children until reaped on request, so their ids are never reused while the
    parent may still signal them. End of input: the parent is gone or shutting the pool down."""
    import pickle
    import signal
    import socket
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the parent's to handle
    set_index_dir_for_triton_key(index_dir)
    try:
        _installation_key()  # the stored copy, or computed here once for every worker
    except BaseException:  # noqa: BLE001 - each worker then computes it at its first compile
        pass
    _warm_up()
    live = set()
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(sock, 4096, 2)
        except OSError:
            break
        if not message:
            for fd in fds:
                os.close(fd)
            break
        request = pickle.loads(message)
        if request[0] == "fork" and len(fds) == 2:
            reply = ("pid", _fork_worker(sock, fds))
            live.add(reply[1])
        elif request[0] in ("reap", "kill") and request[1] in live:
            if request[0] == "kill":
                os.kill(request[1], signal.SIGKILL)
            live.discard(request[1])
            reply = ("status", _reap(request[1], 5.0))
        else:
            reply = ("status", None)
        for fd in fds:
            os.close(fd)
        sock.send(pickle.dumps(reply))
    _end_forked(live)


def _fork_worker(sock, fds):
    """Forks a worker serving jobs from fds[0] and replies to fds[1]; returns its process id."""
    pid = os.fork()
    if pid:
        return pid
    try:
        sock.close()
        _die_with_parent()
        _serve(os.fdopen(fds[0], "rb"), os.fdopen(fds[1], "wb"), warm_up=False)
    finally:
        os._exit(0)


def _die_with_parent():
    """A forked worker is killed when its fork server dies (Linux's PR_SET_PDEATHSIG): never an
    orphan that nothing reaps in order."""
    try:
        import ctypes
        import signal
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    except BaseException:  # noqa: BLE001 - elsewhere the worker still ends with its input
        pass


def _reap(pid, timeout):
    """The exit status of child `pid` (-N: killed by signal N) once it ends, or None after
    `timeout` seconds."""
    import time
    deadline = time.monotonic() + timeout
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            return None
        time.sleep(0.002)


def _end_forked(live):
    """At the server's end: its workers' input ended with the parent's, so they exit once their
    job is done; one still running after the grace period is killed. All are reaped."""
    import signal
    import time
    deadline = time.monotonic() + _FORKSERVER_GRACE
    for pid in live:
        if _reap(pid, max(0.0, deadline - time.monotonic())) is None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _reap(pid, 5.0)


class _ForkServer:
    """The pool's handle on a fork server the C++ side started (process `pid`, a child of this
    process, serving the socket `fd`, which this handle owns from now on); fork() is safe from
    any thread."""

    def __init__(self, pid, fd):
        import socket
        self.proc = _Child(pid)
        self.sock = socket.socket(fileno=fd)
        self.sock.settimeout(120)  # its boot, on a loaded machine: beyond that it is stuck
        self._lock = threading.Lock()

    def _request(self, request, fds=()):
        import pickle
        import socket
        with self._lock:
            socket.send_fds(self.sock, [pickle.dumps(request)], list(fds), socket.MSG_NOSIGNAL)
            reply = self.sock.recv(4096)
        if not reply:
            raise OSError(f"the compile fork server (process {self.proc.pid}) exited "
                          f"(exit status {self.proc.poll()})")
        return pickle.loads(reply)

    def fork(self):
        """A new worker, booted (it serves jobs at once): (process, job socket, reply file)."""
        import socket
        jobs, their_jobs = socket.socketpair()
        reply_read, reply_write = os.pipe()
        try:
            kind, pid = self._request(("fork",), (their_jobs.fileno(), reply_write))
            if kind != "pid":
                raise OSError(f"the compile fork server answered {kind!r} to a fork")
            pidfd = os.pidfd_open(pid)
        except BaseException:
            jobs.close()
            os.close(reply_read)
            raise
        finally:
            their_jobs.close()
            os.close(reply_write)
        return _ForkedProcess(self, pid, pidfd), jobs, os.fdopen(reply_read, "rb")

    def status_of(self, pid, kill=False):
        """The exit status of a worker that ended (killed first when `kill`), or None."""
        try:
            return self._request(("kill" if kill else "reap", pid))[1]
        except (OSError, EOFError):
            return None

    def stop(self, timeout=5.0):
        """Ends the server: end of input, then SIGKILL after `timeout` seconds; reaped."""
        self.sock.close()
        if self.proc.wait(timeout) is None:
            self.proc.kill()
            self.proc.wait()


class _Child:
    """A child process this one did not start with subprocess (the fork server)."""

    def __init__(self, pid):
        self.pid, self.returncode = pid, None

    def poll(self):
        if self.returncode is None:
            try:
                done, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere
                done, status = self.pid, 0
            if done:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout=None):
        """The exit status once the process ended; None after `timeout` seconds."""
        import time
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                return None
            time.sleep(0.002)
        return self.returncode

    def kill(self):
        import signal
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)  # still unreaped: the id is still its own


class _ForkedProcess:
    """A worker forked by the fork server, with the parts of subprocess.Popen the pool uses. It is
    the server's child, not this process's: its end is seen through a pidfd, and the server, which
    holds its id until it reaps it, signals it and reports its exit status."""

    def __init__(self, server, pid, pidfd):
        self.server, self.pid, self._pidfd = server, pid, pidfd
        self.returncode = None  # once ended: as subprocess reports it, or "unknown" (its server died)

    def poll(self):
        import select
        if self._pidfd is not None and select.select([self._pidfd], [], [], 0)[0]:
            self._collect(kill=False)
        return self.returncode

    def wait(self, timeout=None):
        import select
        import subprocess
        if self._pidfd is not None:
            if not select.select([self._pidfd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(f"compile worker {self.pid}", timeout)
            self._collect(kill=False)
        return self.returncode

    def kill(self):
        if self._pidfd is not None:
            self._collect(kill=True)

    def _collect(self, kill):
        status = self.server.status_of(self.pid, kill)
        self.returncode = "unknown" if status is None else status
        os.close(self._pidfd)
        self._pidfd = None

"""Parallel compiles in worker processes: what a compile worker runs (its boot, its job loop,
its warm-up) and the context it is given."""

import os
import sys

from .compiler import compile
from .errors import describe_exception
from .loading import KernelLookupFailure, _preload_pending, _preloaded, load_function, set_preload
from .targets import specialization
from .triton_key import _use_triton_key


# A worker is `python -c _WORKER_BOOT`: it reads this bridge's module table (the C++ side's, see
# _finder.py) from stdin, imports the bridge from it, then serves compile jobs until its stdin
# ends. Messages are pickles; the worker's own stdout is moved to stderr so that anything Triton
# prints cannot corrupt the stream. Its input ending at any point (the parent exiting) ends it
# quietly: os._exit, as there is nothing to flush to a parent that is gone.
_WORKER_BOOT = (
    "import importlib, os, pickle, sys\n"
    "out = os.fdopen(os.dup(1), 'wb'); os.dup2(2, 1)\n"
    "try:\n"
    "    table = pickle.load(sys.stdin.buffer)\n"
    "except Exception:\n"
    "    os._exit(0)\n"
    "finder = next(e for e in table if e[0] == 'triton_jit_bridge._finder')\n"
    "ns = {'__name__': finder[0]}\n"
    "exec(compile(finder[2], finder[1], 'exec'), ns)\n"
    "ns['install'](table)\n"
    "importlib.import_module('triton_jit_bridge.worker')._serve(sys.stdin.buffer, out)\n"
    "os._exit(0)\n")


def _serve(inp, out, warm_up=True):
    import pickle
    if warm_up:
        _warm_up()
    while True:
        try:
            job = pickle.load(inp)
        except (EOFError, pickle.UnpicklingError):  # the parent closed the pipe, mid-message or not
            return
        if job is None:
            return
        reply = ("ok", None) if job == "ping" else _run_job(job)
        try:
            pickle.dump(reply, out)
            out.flush()
        except BrokenPipeError:
            return


def _warm_up():
    """Imports what every first compile imports (the code generator, the backends' compilers),
    while the parent still computes Triton's installation hash for the first job."""
    try:
        import triton.compiler.code_generator  # noqa: F401
        import triton.compiler.compiler  # noqa: F401
        from triton.backends import backends
        for backend in backends.values():
            backend.compiler  # noqa: B018 - the backend's compiler module, imported
    except BaseException:  # noqa: BLE001 - only a head start: a job reports any real failure
        pass


def worker_context():
    """What a worker needs to import kernels as this process does: its sys.path (package roots
    added at run time, folders of kernels imported by path) and the modules to preload."""
    return {"sys_path": list(sys.path), "preload": list(_preloaded) + list(_preload_pending)}


def _apply_context(context):
    # The parent's sys.path exactly: a worker's own first entry (its working directory, as for
    # any `python -c`) could make a file the parent imported on its own look like a package's.
    sys.path[:] = context["sys_path"]
    set_preload(context["preload"])


def _crash_hook(name, hook):
    """Test hook (TRITON_JIT_TEST_WORKER_CRASH, passed in the job's context): "NAME" kills the
    worker on every job of function NAME; "NAME@FILE" only on the job that first creates FILE."""
    target, _, marker = hook.partition("@")
    if target != name:
        return
    if marker:
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return
    import signal
    os.kill(os.getpid(), signal.SIGKILL)


_worker_functions = {}  # (source, name) -> JITFunction, in a worker


def _run_job(job):
    path, name, items, options, target, context = job
    fn = None
    try:
        if context.get("crash"):
            _crash_hook(name, context["crash"])
        if context.get("triton_key"):
            _use_triton_key(*context["triton_key"])
        if context.get("ping"):
            return ("ok", None)
        _apply_context(context)
        fn = _worker_functions.get((path, name))
        if fn is None:
            # Loaded once per worker, as the parent loads a function once per process; the
            # descriptions load_function also builds are not needed again.
            fn = _worker_functions[(path, name)] = load_function(path, name)[0]
        return ("ok", compile(fn, specialization(items), options, target))
    except KernelLookupFailure as e:
        return ("error", ("KernelLookupFailure", str(e), path, 0, e.tb or str(e)))
    except BaseException as e:  # noqa: BLE001 - reported to the parent whole
        return ("error", describe_exception(e, fn))

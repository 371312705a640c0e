"""triton_jit.install(): every launch of the process (`kernel[grid](...)`, the Autotuner's and
Heuristics' `fn.run`, a LibEntry miss) through the runtime's C++ launcher, by replacing
triton.runtime.jit.JITFunction.run, and JITFunction.__getitem__ so that `kernel[grid](...)` reaches
it without Triton's lambda (_C.InstalledGridCall; the same call, see _run_with_grid). It also
replaces ConstexprFunction.__call__, so that a grid function's `triton.cdiv(n, meta["BLOCK"])` calls
the wrapped function without Triton's unwrapping, where that returns the arguments unchanged
(_C.InstalledConstexprCall).

The installed run hands a call to the runtime's Kernel of the JITFunction (made once, kept on the
JITFunction), which builds the key Triton's binder builds and launches Triton's compiled kernel on
the framework's current stream. Whatever the runtime cannot do exactly goes to Triton's own run for
that call (a fallback, counted per reason in install_stats()): warmup, pre-run hooks, compile hooks,
async compiles, TRITON_DEBUG, an instrumentation mode, the deprecated stream/device options,
arguments the runtime does not convert, a kernel the runtime refuses or cannot compile, a Triton
version outside the tested range.

JITFunction.run is the C++ run (_C.InstalledRun, python/src/installed_run.cpp): the common call (the
entry made, its own launcher in place, none of the conditions below holding) launches from C++
without a Python frame; every other call goes to _installed_run_python, the reference of these
semantics, which decides the fallback. Both read the settings of this module at each call
(_version_ok, _knobs, _async_active, _instrumentation), so what a test or a program changes here
holds for both."""
import logging
import threading

from . import _C
from .errors import (ArchitectureMismatchError, ArgumentError, CompileError, CudaError, KernelLookupError,
                     LaunchConfigError, PythonError)

_log = logging.getLogger("triton_jit")

_patch_lock = threading.Lock()
_stats_lock = threading.Lock()
_triton_run = None  # Triton's own JITFunction.run while installed
_stats = {}
_ENTRY = "_triton_jit_install_entry"
# Set at install(): this Triton's version is in the tested range; its async-compile check.
_version_ok = True
_async_active = None
_async_default = None  # the checker install() set, which the C++ run reads without calling it ...
_async_var = None  # ... through this ContextVar (None: it calls _async_active)
_knobs = None  # triton.knobs.runtime
_instrumentation = None  # triton.knobs.compilation, where it has instrumentation_mode


# What the installed run keeps on one JITFunction: the runtime's Kernel (None when the runtime refuses
# the function, with the reason), its launcher, whether it launched, the fallback reasons already
# logged. A C type, which the C++ run reads; a copy of a JITFunction gets none (see its __reduce__).
_Entry = _C.InstallEntry


class _LaunchedKernel:
    """What the installed run returns for a launch: Triton's run returns the CompiledKernel it
    launched, which wrappers keep (FlagGems' LibEntry launches it itself on later calls). Made on
    first use, by Triton's own run with warmup=True for the same call (the same key: the same
    compiled kernel, from Triton's table or its disk cache); a caller that ignores the return
    value pays only for this object."""
    __slots__ = ("_fn", "_args", "_kwargs", "_compiled")

    def __init__(self, fn, args, kwargs):
        self._fn, self._args, self._kwargs, self._compiled = fn, args, kwargs, None

    def _resolve(self):
        if self._compiled is None:
            self._compiled = _resolve_launched(self._fn, self._args, self._kwargs)
            self._args = self._kwargs = None
        return self._compiled

    def __getattr__(self, name):
        return getattr(self._resolve(), name)

    def __getitem__(self, grid):
        # compiled[grid](*args): FlagGems' LibEntry launches the kernel it kept this way (a special
        # method, which __getattr__ does not reach).
        return self._resolve()[grid]

    def __repr__(self):
        return repr(self._resolve())


def _resolve_launched(fn, args, kwargs):
    """The CompiledKernel Triton's run returns for the call fn.run(*args, **kwargs): what a launch
    returns (_LaunchedKernel here, _C.LaunchedKernel from the C++ run) is made of it on first use."""
    return _triton_run(fn, *args, grid=None, warmup=True, **kwargs)


def _entry_for(fn):
    """The _Entry of JITFunction `fn`, made at its first installed launch."""
    from ._jit import _where
    try:
        entry = _Entry(_C.get(*_where(fn)), None)
    except KernelLookupError as e:
        entry = _Entry(None, "refused")
        _log.debug("triton_jit.install: %s goes to Triton's own run: %s", _name(fn), e)
    vars(fn)[_ENTRY] = entry
    return entry


def _name(fn):
    inner = getattr(fn, "fn", None)
    return getattr(inner, "__qualname__", None) or repr(fn)


def _fallback(fn, entry, reason, args, grid, warmup, kwargs):
    with _stats_lock:
        _stats[reason] = _stats.get(reason, 0) + 1
        first = entry is not None and reason not in entry.logged
        if first:
            entry.logged.add(reason)
    if first:
        _log.debug("triton_jit.install: %s: a call goes to Triton's own run (%s)", _name(fn), reason)
    return _triton_run(fn, *args, grid=grid, warmup=warmup, **kwargs)


_NOT_PRESENT = object()


def _check_globals(fn):
    """Triton's run refuses a launch once a global the kernel read at its compile has changed
    (JITFunction.used_global_vals, filled where Triton computes the function's cache key, which
    the runtime's compile does too): the same check, the same error."""
    for (name, _), (val, globals_dict) in fn.used_global_vals.items():
        if (new_val := globals_dict.get(name, _NOT_PRESENT)) != val:
            raise RuntimeError(
                f"Global variable {name} has changed since we compiled this kernel, from {val} to {new_val}")


# The errors of a launch that raised before anything launched, which a fallback handles
# (_launch_failed); any other error is the call's own.
_LAUNCH_FALLBACK_ERRORS = (ArgumentError, LaunchConfigError, CudaError, ArchitectureMismatchError, KernelLookupError,
                           CompileError, PythonError)


def _installed_run_python(self, *args, grid, warmup, **kwargs):
    """JITFunction.run while triton_jit.install() is in effect, for the calls the C++ run does not
    take (_C.InstalledRun): the reference of the installed run's semantics."""
    entry = self.__dict__.get(_ENTRY)
    if entry is None:
        entry = _entry_for(self)
    launch = entry.launch  # read once: another thread may refuse the function meanwhile
    if warmup:
        reason = "warmup"  # Triton's CompiledKernel is what warmup returns: Triton's run makes it
    elif launch is None:
        reason = entry.refused
    elif not _version_ok:
        reason = "triton_version"
    elif self.pre_run_hooks:
        reason = "pre_run_hooks"
    elif _knobs.jit_cache_hook is not None or _knobs.jit_post_compile_hook is not None:
        reason = "compile_hooks"
    elif kwargs and ("stream" in kwargs or "device" in kwargs or "device_type" in kwargs):
        reason = "deprecated_option"  # Triton refuses them (an AssertionError at compile): its error
    elif _async_active():
        reason = "async_compile"
    elif _knobs.debug:
        reason = "debug"
    elif _instrumentation.instrumentation_mode:
        reason = "instrumentation"  # Triton keys each call by the knob's current value
    else:
        if self.used_global_vals:
            _check_globals(self)
        try:
            launch(grid)(*args, **kwargs)
        except _LAUNCH_FALLBACK_ERRORS as e:
            return _launch_failed(self, entry, e, args, grid, warmup, kwargs)
        entry.launched = True
        return _LaunchedKernel(self, args, kwargs)
    return _fallback(self, entry, reason, args, grid, warmup, kwargs)


def _launch_failed(self, entry, e, args, grid, warmup, kwargs):
    """A launch raised `e`, one of _LAUNCH_FALLBACK_ERRORS, before anything launched (called while
    `e` is handled, by either run)."""
    if isinstance(e, (ArgumentError, LaunchConfigError)):
        # An argument the runtime does not convert, or a call Triton refuses too; Triton's run
        # launches it, or raises its own error.
        return _fallback(self, entry, "argument", args, grid, warmup, kwargs)
    if isinstance(e, (CudaError, ArchitectureMismatchError)):
        # A driver call before or at the launch failed (no device, a module that does not load, a
        # launch the driver refused): nothing ran. Triton's run raises Triton's error for it (an
        # Autotuner skips a config on Triton's OutOfResources, not on ours), or launches.
        return _fallback(self, entry, "cuda_error", args, grid, warmup, kwargs)
    # KernelLookupError, CompileError, PythonError: the runtime could not load or compile what the
    # call needs. Triton's run compiles it, or raises Triton's own error. At the function's first
    # launch, the runtime refuses the function: Triton's run from now on.
    if not entry.launched:
        entry.kernel = entry.launch = None
        entry.refused = "refused"
        _log.debug("triton_jit.install: %s goes to Triton's own run: %s", _name(self), e)
        return _fallback(self, entry, "refused", args, grid, warmup, kwargs)
    return _fallback(self, entry, "compile", args, grid, warmup, kwargs)


def _run_with_grid(fn, grid, /, *args, **kwargs):
    """fn[grid](*args, **kwargs) as Triton's KernelInterface.__getitem__ makes it (its lambda's
    body): the call of an InstalledGridCall that the C++ run does not take (Triton's run since
    uninstall(), a subclass's own run, or grid= / warmup= among the keywords, Triton's TypeError)."""
    return fn.run(grid=grid, warmup=False, *args, **kwargs)


# JITFunction.run while installed: the C++ run over the Python one. JITFunction.__getitem__: fn[grid]
# as an InstalledGridCall, which calls the C++ run without the frame and keyword dict of Triton's
# lambda.
_installed_run = _C._installed_run(_installed_run_python, globals())
_installed_getitem = _C._installed_getitem(_run_with_grid)
_ABSENT = object()
_triton_getitem = _ABSENT  # JITFunction's own __getitem__ while installed (_ABSENT: it inherits KernelInterface's)
# ConstexprFunction (triton.cdiv's type) and its own __call__, while install() has replaced that by
# _C.InstalledConstexprCall (a grid function's triton.cdiv without Triton's unwrapping); None where
# this Triton's __call__ is not one the bridge knows (versions.constexpr_function_type).
_constexpr_function = None
_triton_constexpr_call = None


def install():
    """Routes every JITFunction.run of this process through the runtime's C++ launcher (see the
    module's doc). Idempotent; thread-safe."""
    global _triton_run, _triton_getitem, _version_ok, _async_active, _async_default, _async_var, _knobs
    global _instrumentation, _constexpr_function, _triton_constexpr_call
    with _patch_lock:
        from triton.runtime.jit import JITFunction
        if JITFunction.run is _installed_run:
            return
        from triton import knobs
        import importlib
        from ._bridge import runtime_bridge
        runtime_bridge()  # loaded first: it also watches Triton's launch hooks for the runtime's launches
        versions = importlib.import_module("triton_jit_bridge.versions")
        _version_ok = versions.install_supported()
        _async_active = _async_default = versions.async_compile_checker()
        _async_var = versions.async_compile_mode_var()
        _knobs = knobs.runtime
        _instrumentation = versions.instrumentation_knobs()
        _triton_run = JITFunction.run
        _triton_getitem = JITFunction.__dict__.get("__getitem__", _ABSENT)
        JITFunction.run = _installed_run
        JITFunction.__getitem__ = _installed_getitem
        _constexpr_function = versions.constexpr_function_type() if _version_ok else None
        if _constexpr_function is not None:
            _triton_constexpr_call = _constexpr_function.__dict__["__call__"]
            _constexpr_function.__call__ = _C._installed_constexpr_call(_triton_constexpr_call)


def uninstall():
    """Restores Triton's own JITFunction.run (and what install() replaced with it). Idempotent;
    thread-safe."""
    global _constexpr_function, _triton_constexpr_call
    with _patch_lock:
        from triton.runtime.jit import JITFunction
        if JITFunction.run is _installed_run:
            JITFunction.run = _triton_run
            if _triton_getitem is _ABSENT:
                del JITFunction.__getitem__
            else:
                JITFunction.__getitem__ = _triton_getitem
            if _constexpr_function is not None:
                _constexpr_function.__call__ = _triton_constexpr_call
                _constexpr_function = _triton_constexpr_call = None


def installed():
    """Whether install() is in effect."""
    from triton.runtime.jit import JITFunction
    return JITFunction.run is _installed_run


def install_stats():
    """Calls the installed run handed to Triton's own run, per reason (a new dict)."""
    with _stats_lock:
        return dict(_stats)

"""Triton's launch hooks (triton.knobs.runtime.launch_enter_hook / launch_exit_hook: proton, vLLM's
and SGLang's monitors) around the runtime's launches.

Watched, not polled: the C++ launch path reads one atomic word per launch, which this module sets
whenever a hook may be set (install_launch_hook_observer). Every way Triton 3.4 to 3.9 lets code
set a hook goes through something watched here:
  - assigning or deleting the knob (`knobs.runtime.launch_enter_hook = f`, 3.4's only way):
    runtime_knobs gets a __setattr__/__delattr__ that re-reads the hooks afterwards;
  - `knobs.runtime.scope()`, which restores the knobs' __dict__ directly on exit: wrapped, and the
    hooks re-read after it;
  - a HookChain's add/remove (3.5 and newer; proton's way) and any other change of its `calls`:
    the list is an _ObservedList, and HookChain's __setattr__ wraps a new one.
Writing into `knobs.runtime.__dict__` or replacing `triton.knobs.runtime` itself is not seen.

Called as Triton's launch calls them (compiler.CompiledKernel.launch_metadata and the driver's
launcher): both hooks read before either runs; the enter hook, when set, with a LazyDict of name,
function and stream, to which the function's own launch_metadata(grid, metadata, args) is added
lazily; the exit hook with the same object (None when there is no enter hook)."""

import contextlib
import json
import threading

from . import versions

_HOOK_NAMES = ("launch_enter_hook", "launch_exit_hook")
_notify = None  # the C++ side's set_python_launch_hooks(bool)
_metadata = {}  # kernel id -> its KernelMetadata namedtuple, built once
_host = threading.local()  # .call: the Python package's current launch (begin_host_call)


def _knobs():
    from triton import knobs
    return knobs


def hooks_active():
    """Whether a launch would call a hook that does something."""
    runtime = _knobs().runtime
    return any(versions.launch_hook_set(getattr(runtime, name, None)) for name in _HOOK_NAMES)


def _refresh():
    if _notify is not None:
        _notify(hooks_active())


def _observing(name):
    base = getattr(list, name)

    def method(self, *args):
        result = base(self, *args)
        _refresh()
        return result

    method.__name__ = name
    return method


# A HookChain's list of hooks that tells the C++ side when it changes.
_ObservedList = type("_ObservedList", (list,), {
    name: _observing(name)
    for name in ("append", "extend", "insert", "remove", "pop", "clear", "__setitem__", "__delitem__", "__iadd__",
                 "__imul__")
})


def _observe_chains(chain_type):
    """Makes every HookChain's `calls` an _ObservedList, now (the knobs' defaults) and whenever one
    is assigned (a new HookChain's __init__ assigns it)."""
    if chain_type is None or chain_type.__dict__.get("_triton_jit_observed"):
        return
    base_setattr = chain_type.__setattr__

    def __setattr__(self, name, value):
        if name == "calls" and isinstance(value, list) and not isinstance(value, _ObservedList):
            value = _ObservedList(value)
        base_setattr(self, name, value)
        if name == "calls":
            _refresh()

    chain_type.__setattr__ = __setattr__
    chain_type._triton_jit_observed = True


def _observe_knobs(cls):
    """Re-reads the hooks after every assignment or deletion of one, and after scope()."""
    if cls.__dict__.get("_triton_jit_observed"):
        return
    base_setattr, base_delattr, base_scope = cls.__setattr__, cls.__delattr__, cls.scope

    def __setattr__(self, name, value):
        base_setattr(self, name, value)
        if name in _HOOK_NAMES:
            _observe_value(value)
            _refresh()

    def __delattr__(self, name):
        base_delattr(self, name)
        if name in _HOOK_NAMES:
            _refresh()

    @contextlib.contextmanager
    def scope(self):
        try:
            with base_scope(self):
                yield
        finally:
            _refresh()

    cls.__setattr__ = __setattr__
    cls.__delattr__ = __delattr__
    cls.scope = scope
    cls._triton_jit_observed = True


def _observe_value(hook):
    chain_type = versions.hook_chain_type()
    if chain_type is not None and isinstance(hook, chain_type) and not isinstance(hook.calls, _ObservedList):
        hook.calls = _ObservedList(hook.calls)


def install_launch_hook_observer(notify):
    """Watches Triton's launch hooks from now on; `notify(active)` is told each time they may have
    changed, and once now."""
    global _notify
    knobs = _knobs()
    _observe_chains(versions.hook_chain_type())
    _observe_knobs(type(knobs.runtime))
    for name in _HOOK_NAMES:
        _observe_value(type(knobs.runtime).__dict__.get(name))
        _observe_value(getattr(knobs.runtime, name, None))
    _notify = notify
    _refresh()


def _kernel_metadata(kernel_id, metadata_json):
    """The compiled kernel's `metadata` as Triton's CompiledKernel builds it from its JSON."""
    md = _metadata.get(kernel_id)
    if md is None:
        md = _metadata[kernel_id] = versions.kernel_metadata(json.loads(metadata_json))
    return md


def begin_host_call(call):
    """For the Python package's launch: `call` is the list [the caller's objects by parameter
    name, the grid as given (None until a grid callable has returned it)], which launch_metadata
    gets in place of the runtime's stand-ins, until end_host_call."""
    previous = getattr(_host, "call", None)
    _host.call = call
    return previous


def end_host_call(previous):
    """Ends the Python package's launch; returns the exception a hook raised in it (the package
    raises that one, as Triton's launch does), or None."""
    _host.call = previous
    error = getattr(_host, "error", None)
    _host.error = None
    return error


def _call_hook(hook, metadata):
    try:
        hook(metadata)
    except BaseException as e:
        if getattr(_host, "call", None) is not None:
            _host.error = e
        raise


def launch_enter(fn, kernel_id, metadata_json, name, function, stream, grid, names, values):
    """Before a launch: returns (exit hook, metadata) for launch_exit, or None."""
    runtime = _knobs().runtime
    enter, exit_hook = runtime.launch_enter_hook, runtime.launch_exit_hook
    metadata = None
    if enter is not None:
        from triton.compiler import LazyDict
        metadata = LazyDict({"name": name, "function": function, "stream": stream})
        launch_metadata = getattr(fn, "launch_metadata", None)
        if launch_metadata is not None:
            args = dict(zip(names, values))
            host = getattr(_host, "call", None)
            if host is not None:
                objects, host_grid = host
                args.update((k, v) for k, v in objects.items() if k in args)
                if host_grid is not None:
                    grid = host_grid
            metadata.add(launch_metadata, (grid, _kernel_metadata(kernel_id, metadata_json), args))
        _call_hook(enter, metadata)
    if exit_hook is None:
        return None
    return exit_hook, metadata


def launch_exit(state):
    exit_hook, metadata = state
    _call_hook(exit_hook, metadata)

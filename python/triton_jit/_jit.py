"""triton_jit.jit and triton_jit.kernel: from a Triton function object, or a file and a name, to
the runtime's Kernel.

The runtime loads a kernel by its file and the name it has there (that is how its signature is
stored and how compile workers find it), so jit() finds the module-level name that holds the
object it is given; the module the caller already imported is handed to the runtime, so it is
not imported a second time.
"""
import os
import sys

from . import _C
from ._bridge import runtime_bridge
from .errors import KernelLookupError


def _runtime_path(path, caller):
    """`path` (str, bytes or os.PathLike) as the runtime takes it: a str that is valid UTF-8 and
    holds no NUL (C++ would cut the path there and load another file). `caller` names the call
    in the errors."""
    try:
        path = os.fspath(path)
    except TypeError:
        raise TypeError(f"{caller}: path must be a str, bytes or os.PathLike, not {type(path).__name__}") from None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if "\0" in path:
        raise ValueError(f"{caller}: path {path!r} contains a NUL character; no file has such a name")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{caller}: path {path!r} is not valid UTF-8 (its bytes: {os.fsencode(path)!r}): "
                         f"libtriton_jit names kernel files by UTF-8 paths; rename the file or its folder") from None
    return path


def _name_argument(value, what, caller):
    """A function or module name: a str without NUL."""
    if not isinstance(value, str):
        raise TypeError(f"{caller}: {what} must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise ValueError(f"{caller}: {what} {value!r} contains a NUL character")
    return value


def _base_function(obj):
    """The @triton.jit function under autotune/heuristics wrappers (each keeps it as `.fn`)."""
    from triton.runtime.jit import JITFunction
    seen = 0
    while not isinstance(obj, JITFunction):
        obj = getattr(obj, "fn", None)
        seen += 1
        if obj is None or seen > 16:
            return None
    return obj


def _name_in_module(module, obj):
    """The name under which `module` holds `obj`: "kernel", or "kernel.fn" for the function under a
    wrapper the module holds. None when the module does not hold it."""
    found = None
    for name, value in vars(module).items():
        path, current = name, value
        for _ in range(17):
            if current is obj:
                if found is None or path.count(".") < found.count("."):
                    found = path
                break
            current = getattr(current, "fn", None)
            if current is None:
                break
            path += ".fn"
        if found is not None and "." not in found:
            break
    return found


def _adopt_module(path, module):
    """Hands the caller's module object to the runtime's bridge for `path`, so that the runtime
    compiles the very functions the caller holds instead of importing the file again."""
    runtime_bridge().adopt_module(path, module)


def _source_in_file(fn):
    """The source of `fn` as its file holds it, as JITFunction reads it (dedented, from its
    `def`); None when no file holds it."""
    import inspect
    import re
    import textwrap
    try:
        text = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None
    start = re.search(r"^def\s+\w+\s*\(", text, re.MULTILINE)
    return text[start.start():] if start else None


def _live_module(base, obj, path):
    """(path, module, name) for a function that lives only in the running process: a module that
    is not in sys.modules (FlagGems' pointwise_dynamic execs a generated file with
    spec_from_file_location and patches its globals afterwards), or a JITFunction built from a
    source string (triton_kernels' define_kernel, as vLLM uses it). The module handed to the
    runtime is a namespace over the function's own globals, so the runtime compiles the live
    object with the globals the library gave it, in this process (never in a compile worker,
    which would import the file afresh). None when neither applies."""
    import hashlib
    import types
    scope = getattr(base.fn, "__globals__", None)
    source = getattr(base, "src", None)
    if not isinstance(scope, dict) or not isinstance(source, str) or not source.strip():
        return None
    if source == _source_in_file(base.fn):
        # Its file holds its source: named by that file and the name its globals hold it by
        # (FlagGems' update of the globals overwrites even __name__ and __file__), or not at all
        # (a function defined inside a function).
        holder = types.ModuleType(str(base.fn.__module__))
        vars(holder).update(scope)
        found = _name_in_module(holder, obj)
        return (path, holder, found) if found is not None else None
    # No file holds the source under the function's name: the source goes to a file of its own,
    # named by Triton's cache key of the function (its source, the functions it calls and the
    # constexpr globals it reads: the same kernel, the same file, across processes, so its index
    # entries and pack records are found again; other globals, another file), which only
    # identifies it; compiles use the live object.
    digest = hashlib.sha256(str(base.cache_key).encode("utf-8")).hexdigest()[:16]
    name = base.fn.__name__
    folder = os.path.join(os.environ.get("TRITON_JIT_LIVE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "triton_jit", "live"))
    os.makedirs(folder, exist_ok=True)
    live_path = os.path.realpath(os.path.join(folder, f"{name}_{digest}.py"))
    if not os.path.exists(live_path):
        temporary = f"{live_path}.{os.getpid()}.tmp"
        with open(temporary, "w", encoding="utf-8") as f:
            f.write(f"# The source of {base.fn.__module__}.{name}, a Triton function made at run time; written by\n"
                    f"# triton_jit.jit to name it. Its globals are the live ones of the process that made it.\n"
                    f"{source}\n")
        os.replace(temporary, live_path)
    holder = types.ModuleType(f"triton_jit_live_{name}_{digest}")
    vars(holder).update(scope)
    vars(holder)[name] = obj
    holder.__file__ = live_path
    return _runtime_path(live_path, "triton_jit.jit"), holder, name


def _where(obj):
    """(path, name) of a Triton object for the runtime: its file, and the module-level name that
    holds it (or holds a Kernel made from it); for a function that lives only in this process,
    see _live_module. Raises KernelLookupError when no name holds it."""
    base = _base_function(obj)
    path = _runtime_path(os.path.realpath(base.fn.__code__.co_filename), "triton_jit.jit")
    module_name = getattr(base, "__module__", None) or base.fn.__module__
    module = sys.modules.get(module_name)
    name = _name_in_module(module, obj) if module is not None else None
    module_file = getattr(module, "__file__", None) if module is not None else None
    if name is not None and (not module_file or os.path.realpath(module_file) != path):
        # Held by a module that is not its file's: triton_kernels registers the modules it makes
        # for its specialized kernels in sys.modules, without a file. By file and name the runtime
        # would load the template of the same name from the function's file instead.
        live = _live_module(base, obj, path)
        if live is not None:
            live_path, holder, live_name = live
            _adopt_module(live_path, holder)
            return live_path, live_name
    if name is None:
        live = _live_module(base, obj, path)
        if live is not None:
            live_path, holder, live_name = live
            _adopt_module(live_path, holder)
            return live_path, live_name
    if name is None:
        error = KernelLookupError(
            f"triton_jit.jit: {base.fn.__qualname__} (defined in {path}) is not held by a module-level name of "
            f"{module_name}: libtriton_jit loads kernels by their name in their file. Define the decorated kernel at "
            f"module level, or use triton_jit.kernel(path, name).")
        error.path, error.function = path, base.fn.__qualname__
        raise error
    module_file = getattr(module, "__file__", None)
    if module_file and os.path.realpath(module_file) == path:
        _adopt_module(path, module)
    return path, name


def _watch_launch_hooks():
    """Loads the runtime's bridge where Triton is imported: it watches Triton's launch hooks
    (triton.knobs.runtime.launch_enter_hook / launch_exit_hook), so this process's launches call
    them once they are set, also where every kernel comes from the index and nothing compiles."""
    if "triton" in sys.modules:
        runtime_bridge()


def jit(fn=None, **triton_jit_kwargs):
    """The Kernel for `fn`, a @triton.jit function (or one wrapped by @triton.autotune and
    @triton.heuristics). Call it as Triton's: ``jit(fn)[grid](*args, **kwargs)``.

    Also a decorator, in place of or above ``@triton.jit`` (keyword arguments go to triton.jit)::

        @triton_jit.jit
        def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr): ...

    The runtime loads kernels by their file and their name there: the object (or the Kernel made
    from it) must be held by a module-level name of its module. When none holds it yet (under a
    decorator), the name is looked up at the first use."""
    if fn is None:
        return lambda f: jit(f, **triton_jit_kwargs)
    if isinstance(fn, _C.Kernel):
        return fn
    if _base_function(fn) is None:
        import inspect
        if inspect.isfunction(fn):
            if fn.__name__ == "<lambda>":
                # Triton compiles a kernel from the source of its `def` statement; a lambda has none.
                raise TypeError(f"triton_jit.jit takes a @triton.jit function (or one under @triton.autotune / "
                                f"@triton.heuristics), or a function defined with `def` at module level of a .py "
                                f"file, not a lambda ({fn.__qualname__} in {fn.__code__.co_filename})")
            try:
                inspect.getsource(fn)
            except (OSError, TypeError):
                raise TypeError(f"triton_jit.jit: the source of {fn.__qualname__} cannot be read (defined in "
                                f"{fn.__code__.co_filename!r}): Triton compiles kernels from their source, so define "
                                f"the function with `def` in a .py file") from None
            import triton
            fn = triton.jit(fn, **triton_jit_kwargs)
        else:
            raise TypeError(f"triton_jit.jit takes a @triton.jit function (or one under @triton.autotune / "
                            f"@triton.heuristics) or a Python function to make one of, not {type(fn).__name__}")
    _watch_launch_hooks()
    base = _base_function(fn)
    module = sys.modules.get(getattr(base, "__module__", None) or base.fn.__module__)
    if module is not None and _name_in_module(module, fn) is not None:
        return _C.get(*_where(fn))
    return _C._lazy_kernel(fn, _where)


def kernel(path=None, name=None, *, module=None):
    """The Kernel for the function `name` of the file `path` (relative to the working directory,
    or absolute), or of the module `module` (imported the normal way): the mirror of
    TritonJitFunction::get and get_module."""
    if name is None:
        raise TypeError("triton_jit.kernel needs the function's name")
    if (path is None) == (module is None):
        raise TypeError("triton_jit.kernel takes a file path or module=, one of the two")
    name = _name_argument(name, "name", "triton_jit.kernel")
    _watch_launch_hooks()
    if module is not None:
        return _C.get_module(_name_argument(module, "module", "triton_jit.kernel"), name)
    return _C.get(_runtime_path(path, "triton_jit.kernel"), name)

"""FlagGems' @libentry() wrapper (flag_gems.utils.libentry.LibEntry), recognised by its class.

The runtime emulates LibEntry.run of FlagGems FLAGGEMS_VERSION in C++ (src/decorators/lib_entry.h):
a dispatch table per device keyed by the arguments as LibEntry keys them, and on a key's first
call the choices of the wrappers below it frozen. flag_gems is never imported here: the class is
recognised by its module and name, so a process that only loaded a FlagGems kernel module works.
"""

# The FlagGems release whose LibEntry.run the runtime reproduces (its key, what it freezes).
FLAGGEMS_VERSION = "5.0.2"

LIBENTRY_MODULE = "flag_gems.utils.libentry"
LIBENTRY_CLASS = "LibEntry"


def is_libentry(obj):
    """Whether `obj` is FlagGems' LibEntry itself. A subclass may override run(): it is not taken
    for a LibEntry."""
    cls = type(obj)
    return cls.__module__ == LIBENTRY_MODULE and cls.__name__ == LIBENTRY_CLASS


def describe_libentry(obj, fn):
    """The layer description C++ reads (bridge.cpp's to_layer). LibEntry must be the outermost
    wrapper, as FlagGems writes it (@libentry() above @triton.autotune/@triton.heuristics):
    loading._describe_decorators refuses it elsewhere."""
    from .loading import KernelLookupFailure as failure  # here: loading imports the wrappers' table
    divisibility = getattr(obj, "divisibility", 16)
    if not isinstance(divisibility, int) or isinstance(divisibility, bool) or divisibility <= 0:
        raise failure("bad_decorator", f"{fn.fn.__qualname__}: LibEntry.divisibility is {divisibility!r}, "
                      "not a positive integer")
    return {"kind": "libentry", "divisibility": divisibility, "flaggems_version": FLAGGEMS_VERSION}

"""Python's own evaluation of @triton.heuristics values, for tests/cpu/heuristic_program_test.cpp.

Loaded through the embedded interpreter; not part of the library.
"""
import math
import struct


def heuristics_of(bridge, path, name):
    """[(name, function)] of the @triton.heuristics wrappers around `name` in the file `path`."""
    from triton.runtime.jit import JITFunction
    obj = getattr(bridge.loading._import_file(path), name)
    out = []
    while not isinstance(obj, JITFunction):
        values = getattr(obj, "values", None)
        if isinstance(values, dict):
            out.extend(values.items())
        obj = obj.fn
    return out


def module_value(bridge, path, name):
    return getattr(bridge.loading._import_file(path), name)


_I64_MIN, _U64_MAX = -(2**63), 2**64 - 1


def _representable(v):
    """Whether the runtime has an ArgValue for v (HeuristicProgram can return it)."""
    if v is None or isinstance(v, (bool, float, str)):
        return True
    if isinstance(v, int):
        return _I64_MIN <= v <= _U64_MAX
    cls = type(v)
    return cls.__name__ == "dtype" and cls.__module__ in ("torch", "triton.language", "triton.language.core")


def _same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b))
    return a == b


def _big(values):
    """An integer beyond 2**53, or a float that int() would turn into one beyond 2**63."""
    return any((isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**53)
               or (isinstance(v, float) and math.isfinite(v) and abs(v) >= 2**63) for v in values)


def check(bridge, func, names, calls, ours):
    """Runs func over each call (a tuple of values, one per name), and classifies the C++ result
    `ours[i]` (a value, or the string marker "<needs python>"): "equal", "raised" (Python raised,
    C++ needs Python), "unrepresentable" (Python's result has no ArgValue: C++ needs Python),
    "string" (C++ needs Python and the heuristic read a string: string arithmetic and formatting
    are not modelled), "big" (C++ needs Python and the heuristic read an integer beyond 2**53 or a float beyond 2**63:
    an intermediate integer may leave 128 bits, or a true division is not exact in doubles), or a
    failure text. The arguments read are those bridge.heuristics._TrackingArgs records."""
    out = []
    for values, mine in zip(calls, ours):
        needs = isinstance(mine, str) and mine == "<needs python>"
        args = bridge.heuristics._TrackingArgs(zip(names, values))
        try:
            theirs = func(args)
            raised = None
        except Exception as e:  # noqa: BLE001
            raised = e
        read = [v for k, v in zip(names, values) if k in args.read]
        if raised is not None:
            out.append("raised" if needs else f"FAIL: Python raised {type(raised).__name__}: {raised}; C++ gave "
                                              f"{mine!r}")
        elif needs:
            if not _representable(theirs):
                out.append("unrepresentable")
            elif any(isinstance(v, str) for v in read):
                out.append("string")
            elif _big(read):
                out.append("big")
            else:
                out.append(f"FAIL: C++ needs Python; Python gave {theirs!r} ({type(theirs).__name__})")
        elif _same(theirs, mine):
            out.append("equal")
        else:
            out.append(f"FAIL: C++ gave {mine!r} ({type(mine).__name__}); Python gave {theirs!r} "
                       f"({type(theirs).__name__})")
    return out

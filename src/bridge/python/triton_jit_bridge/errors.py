"""Errors: a Python exception described for the C++ side (type, message, file, line, traceback)."""

import inspect
import traceback

from .loading import _def_line


def describe_exception(exc, fn=None):
    """(python type, message, file, line, traceback) of an exception raised by Triton."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    file, line = "", 0
    if fn is not None:
        file = inspect.getsourcefile(fn.fn) or ""
        line = _def_line(fn)
        node = getattr(exc, "node", None)
        lineno = getattr(node, "lineno", None)
        if lineno is not None:
            # Triton parses the dedented source of the function alone: its line 1 is the `def`.
            line = line + int(lineno) - 1
    return type(exc).__name__, _error_message(exc), file, line, tb


def _error_message(exc):
    """str(exc), followed by each exception of its chain of causes (__cause__, else __context__
    unless suppressed). A CompilationError raised in a nested @triton.jit call shows only a caret
    under that call; the reason (a failing static_assert, an undefined name) is at the end of the
    chain. Triton 3.4 leaves error_message empty when a builtin raised (the reason is only the
    __cause__); 3.5 and newer repeat the cause's text in error_message: text already in the
    message is not repeated."""
    message = str(exc).strip() or type(exc).__name__
    seen = {id(exc)}
    cause = _next_cause(exc)
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        text = str(cause).strip()
        if not text or text not in message:
            message += f"\ncaused by {type(cause).__name__}: " + (text or "(no message)")
        cause = _next_cause(cause)
    return message


def _next_cause(exc):
    """The exception `exc` was raised from, as Python's traceback printing follows the chain."""
    if exc.__cause__ is not None:
        return exc.__cause__
    return None if exc.__suppress_context__ else exc.__context__

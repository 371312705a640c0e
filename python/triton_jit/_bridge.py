"""The runtime's Python bridge as this package (and its tests) reach it: the package
triton_jit_bridge that libtriton_jit_python embeds (src/bridge/python), which the runtime installs
in this interpreter, with a finder of its own, the first time it uses Python."""

import importlib

from . import _C


_bridge = None  # the package, once loaded (the runtime loads it once per process)


def runtime_bridge():
    """The bridge package the runtime uses in this process; on the first call, starts (joins) the
    runtime's Python side, which loads it."""
    global _bridge
    if _bridge is None:
        _C.triton_version()
        _bridge = importlib.import_module("triton_jit_bridge")
    return _bridge

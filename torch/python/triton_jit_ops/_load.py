"""Finding and loading libtriton_jit_ops, the library that registers ``torch.ops.triton_jit_ops``.

Where the library is looked for, first match wins:

1. the environment variable ``TRITON_JIT_OPS_LIBRARY``: a path to the library itself (or to the
   folder holding it); when it is set, nothing else is tried, so a wrong path is an error and
   never a silent fallback to another build;
2. beside this package: ``<package>/libtriton_jit_ops.so`` or ``<package>/lib/libtriton_jit_ops.so``
   (an installed layout that ships the library with the Python files);
3. the build trees of the source checkout this package sits in (``<repo>/torch/python/triton_jit_ops``):
   ``<repo>/build/torch/ops/``, then every other ``<repo>/build*/torch/ops/``, newest first.

The Triton kernel files must sit beside the library in ``triton_jit_kernels/`` (the build and the
install put them there); the library finds them itself.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import torch

ENV_VAR = "TRITON_JIT_OPS_LIBRARY"
NAMESPACE = "triton_jit_ops"

if sys.platform == "darwin":
    LIBRARY_NAME = "libtriton_jit_ops.dylib"
elif sys.platform == "win32":
    LIBRARY_NAME = "triton_jit_ops.dll"
else:
    LIBRARY_NAME = "libtriton_jit_ops.so"

_PACKAGE_DIR = Path(__file__).resolve().parent
_REPO_DIR = _PACKAGE_DIR.parents[2]  # <repo>/torch/python/triton_jit_ops

_loaded_path: Optional[str] = None


def registered_ops() -> Tuple[str, ...]:
    """The names of the operators with a schema in the ``triton_jit_ops`` namespace, sorted.

    The library decides which operators exist (``TRITON_JIT_OPS`` in torch/ops/CMakeLists.txt);
    this asks the dispatcher what this process has registered, so nothing here lists them again.
    """
    prefix = f"{NAMESPACE}::"
    names = set()
    for qualname in torch._C._dispatch_get_all_op_names():
        if not qualname.startswith(prefix):
            continue
        name, _, overload = qualname[len(prefix):].partition(".")
        try:
            torch._C._dispatch_find_schema_or_throw(prefix + name, overload)
        except Exception:  # kernels registered for a name that has no schema
            continue
        names.add(name)
    return tuple(sorted(names))


def _registered() -> bool:
    """Whether the operators are already registered in this process (loaded by someone else)."""
    return bool(registered_ops())


def candidate_paths() -> List[Path]:
    """The paths tried, in order, when TRITON_JIT_OPS_LIBRARY is not set."""
    candidates = [_PACKAGE_DIR / LIBRARY_NAME, _PACKAGE_DIR / "lib" / LIBRARY_NAME,
                  _REPO_DIR / "build" / "torch" / "ops" / LIBRARY_NAME]
    others = [p for p in _REPO_DIR.glob(f"build*/torch/ops/{LIBRARY_NAME}") if p.parent.parent.parent.name != "build"]
    others.sort(key=lambda p: p.stat().st_mtime if p.exists() else 0.0, reverse=True)
    candidates.extend(others)
    return candidates


def find_library() -> Path:
    """The library to load; ImportError naming every place looked at when there is none."""
    env = os.environ.get(ENV_VAR)
    if env:
        path = Path(env).expanduser()
        if path.is_dir():
            path = path / LIBRARY_NAME
        if not path.is_file():
            raise ImportError(
                f"triton_jit_ops: {ENV_VAR}={env!r} does not name an existing file "
                f"(looked for {str(path)!r}); point it at {LIBRARY_NAME} "
                "(built in <build>/torch/ops/ by the CMake target triton_jit_ops) or unset it")
        return path
    tried = candidate_paths()
    for path in tried:
        if path.is_file():
            return path
    looked = "\n  ".join(str(p) for p in tried[:3]) + f"\n  {_REPO_DIR}/build*/torch/ops/{LIBRARY_NAME}"
    raise ImportError(
        f"triton_jit_ops: cannot find {LIBRARY_NAME}. Set {ENV_VAR} to its path, or build it "
        f"(cmake --build <build> --target triton_jit_ops; it lands in <build>/torch/ops/). Looked in:\n  "
        f"{looked}")


def load_library(path: Optional[os.PathLike] = None) -> str:
    """Loads the operator library (once per process) and returns the path that was loaded.

    ``path`` overrides the search described in this module's docstring.
    """
    global _loaded_path
    if _loaded_path is not None:
        return _loaded_path
    if path is None and _registered():
        _loaded_path = "<already registered in this process>"
        return _loaded_path
    lib = Path(path) if path is not None else find_library()
    try:
        torch.ops.load_library(str(lib))
    except OSError as e:  # wrong torch ABI, missing libtriton_jit, ...
        raise ImportError(f"triton_jit_ops: loading {lib} failed: {e}") from e
    _loaded_path = str(lib)
    return _loaded_path

"""Python front end of libtriton_jit_ops: PyTorch operators whose CUDA implementations launch
``@triton.jit`` kernels from C++ through libtriton_jit.

Importing this package loads the operator library (see :mod:`triton_jit_ops._load` for where it is
looked for; ``TRITON_JIT_OPS_LIBRARY`` overrides the search) and so registers the operators
``torch.ops.triton_jit_ops.<name>`` for each name in :data:`OPS` (the library decides which:
``TRITON_JIT_OPS`` in torch/ops/CMakeLists.txt). The functions here are thin wrappers over those
operators: they work with eager CUDA tensors, with meta and fake tensors (shape propagation,
``torch.compile``), and raise ``RuntimeError`` for tensors on other devices.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

import torch

from ._load import ENV_VAR, LIBRARY_NAME, NAMESPACE, candidate_paths, find_library, load_library, registered_ops

#: The path of the loaded library.
library_path: str = load_library()

#: ``torch.ops.triton_jit_ops``, the operator namespace.
ops = torch.ops.triton_jit_ops

#: The names of the operators the loaded library registered, sorted; each is also a function here.
OPS: Tuple[str, ...] = registered_ops()

# The resolved overloads: calling one skips the overload lookup an OpOverloadPacket does per call.
_add = ops.add.default
_sum = ops.sum.default
_softmax = ops.softmax.default
_matmul = ops.matmul.default


def add(a: torch.Tensor, b: torch.Tensor, *, alpha: Union[bool, int, float] = 1) -> torch.Tensor:
    """``a + alpha * b``, element-wise, with broadcasting, like :func:`torch.add`.

    Args:
        a, b: CUDA tensors on one device.
        alpha: the multiplier of ``b``.

    Returns:
        a new tensor of the broadcast shape.

    Raises:
        RuntimeError: tensors not on CUDA (or not on one device), shapes that do not broadcast,
            dtypes the kernels do not support.
    """
    return _add(a, b, alpha=alpha)


def sum(x: torch.Tensor, dim: Optional[Union[int, Sequence[int]]] = None, keepdim: bool = False, *,
        dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    """The sum of ``x`` over ``dim`` (every element when ``None``), like :func:`torch.sum`.

    Args:
        x: a CUDA tensor.
        dim: the dimension to reduce (negative counts from the end); ``None`` reduces all.
        keepdim: keep the reduced dimension with size 1.
        dtype: the dtype of the result (``x`` is cast to it before summing); by default that of
            ``x``, as torch does for floating tensors.

    Raises:
        RuntimeError: a tensor not on CUDA, an unsupported dtype; ``dim`` out of range raises
            torch's ``IndexError`` ("Dimension out of range") or a ``RuntimeError``.
    """
    if isinstance(dim, int):
        dim = [dim]
    return _sum(x, dim, keepdim, dtype=dtype)


def softmax(x: torch.Tensor, dim: int) -> torch.Tensor:
    """``exp(x) / exp(x).sum(dim, keepdim=True)``, computed stably, like :func:`torch.softmax`.

    Args:
        x: a floating CUDA tensor.
        dim: the dimension normalised over (negative counts from the end).

    Raises:
        RuntimeError: a tensor not on CUDA, a non-floating dtype; ``dim`` out of range raises
            torch's ``IndexError`` ("Dimension out of range") or a ``RuntimeError``.
    """
    return _softmax(x, dim)


def matmul(a: torch.Tensor, b: torch.Tensor, transpose_a: bool = False,
           transpose_b: bool = False) -> torch.Tensor:
    """``op(a) @ op(b)`` where ``op`` transposes the last two dimensions when asked.

    Differentiable: gradients flow to ``a`` and ``b`` through the operator's autograd formula.

    Args:
        a: ``(M, K)`` (``(K, M)`` with ``transpose_a``), a CUDA tensor.
        b: ``(K, N)`` (``(N, K)`` with ``transpose_b``), on the same device, same dtype.
        transpose_a, transpose_b: use the transpose of ``a`` / ``b``.

    Returns:
        an ``(M, N)`` tensor.

    Raises:
        RuntimeError: tensors not on CUDA, inner dimensions that differ, mismatched dtypes.
    """
    return _matmul(a, b, transpose_a, transpose_b)


def _plain_wrapper(name: str):
    """``triton_jit_ops.<name>`` for an operator without a hand-written wrapper above: its default
    overload, called with the schema's arguments."""
    overload = getattr(ops, name).default

    def call(*args, **kwargs):
        return overload(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``torch.ops.{NAMESPACE}.{name}``: ``{overload._schema}``."
    return call


for _name in OPS:
    _fn = globals().get(_name)
    if not (callable(_fn) and getattr(_fn, "__module__", None) == __name__):
        globals()[_name] = _plain_wrapper(_name)
del _name, _fn

__all__ = [*OPS, "OPS", "library_path", "load_library", "find_library", "registered_ops", "candidate_paths",
           "ENV_VAR", "LIBRARY_NAME", "ops"]

"""Shared setup of the triton_jit_ops pytest suite.

ctest runs it with TRITON_JIT_OPS_LIBRARY (the built library), PYTHONPATH (<repo>/torch/python) and
TRITON_CACHE_DIR (the build's own cache) set; run by hand, the package finds a build itself.
"""
import os
import sys

import pytest
import torch

# Run by hand from a checkout without PYTHONPATH: use the package of this checkout.
_PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "torch", "python"))
if _PYTHON_DIR not in sys.path:
    sys.path.insert(0, _PYTHON_DIR)

import triton_jit_ops  # noqa: E402,F401  (loads the operator library once for every test)

HAS_CUDA = torch.cuda.is_available()
requires_cuda = pytest.mark.skipif(not HAS_CUDA, reason="no CUDA GPU: the Triton kernels need one")

FLOAT_DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def pytest_report_header(config):
    dev = torch.cuda.get_device_name() if HAS_CUDA else "none (GPU tests skip)"
    return [f"triton_jit_ops library: {triton_jit_ops.library_path}", f"torch {torch.__version__}, CUDA GPU: {dev}"]


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    yield


def tols(dtype):
    """(rtol, atol) for results of `dtype` against a reference rounded to `dtype`."""
    return {
        torch.float16: (1e-2, 1e-2),
        torch.bfloat16: (2e-2, 2e-2),
        torch.float32: (1.3e-5, 1e-5),
        torch.float64: (1e-12, 1e-12),
    }.get(dtype, (0, 0))

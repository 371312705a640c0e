"""Helpers of the CUDA tests (inputs, comparisons); imported by the test_cuda_*.py files."""
import torch

from conftest import tols

CUDA = "cuda"


def rand(shape, dtype=torch.float32, device=CUDA):
    if dtype == torch.bool:
        return torch.rand(shape, device=device) > 0.5
    if dtype.is_floating_point:
        return torch.randn(shape, device=device).to(dtype)
    info = torch.iinfo(dtype)
    lo, hi = max(info.min, -100), min(info.max, 100)
    return torch.randint(lo, hi + 1, shape, device=device, dtype=torch.int64).to(dtype)


def assert_same(out, ref, rtol=None, atol=None):
    assert out.shape == ref.shape, (out.shape, ref.shape)
    assert out.dtype == ref.dtype, (out.dtype, ref.dtype)
    assert out.device == ref.device
    if rtol is None:
        rtol, atol = tols(ref.dtype)
    torch.testing.assert_close(out, ref, rtol=rtol, atol=atol, equal_nan=True)



NONCONTIG = {
    "transposed": lambda x: x.t(),
    "sliced": lambda x: x[::2, 1::3],
    "expanded": lambda x: x[:, :1].expand(-1, x.shape[1]),
    "permuted3d": lambda x: x.reshape(x.shape[0], -1, 2).permute(2, 0, 1),
    "offset": lambda x: x[1:, 2:],
}


def grid(core_dtypes, all_shapes, other_dtypes, few_shapes):
    """(dtype, shape) cases: every shape for the core dtypes, a few shapes for the others (each
    dtype is another set of kernel compilations, so the grid stays small enough for one run)."""
    return [(d, s) for d in core_dtypes for s in all_shapes] + [(d, s) for d in other_dtypes for s in few_shapes]

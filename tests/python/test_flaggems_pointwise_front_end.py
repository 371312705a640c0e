"""A kernel as FlagGems' pointwise_dynamic generates it, without a GPU: its module written to a file
and executed outside sys.modules with its globals patched afterwards (the scalar function it
calls added), FlagGems 5.0.2's own @libentry() above @triton.jit(do_not_specialize=[the scalar
operands]), pointers annotated `tl.tensor`, strides and tiles_per_cta annotated `int`, and its
wrapper's arguments: StridedBuffer-like objects (data_ptr(), a torch dtype, a device), a float
scalar, tile sizes and num_warps by keyword. triton_jit.jit takes the live LibEntry object and
specializes each call as Triton's own binder does (the GPU replay is
tests/python/test_flaggems_ops_gpu.py)."""
import importlib.util
import sys

import pytest

import triton_jit
import triton_reference

torch = pytest.importorskip("torch")

# What ModuleGenerator writes for `mul_func_scalar` (hopper's mul by a scalar) of rank 2, nd tiles
# without block pointers (flag_gems/utils/pointwise_dynamic.py: gen_import_function,
# gen_decorators, gen_signature, gen_body_one_tile_per_cta_without_bptr), its body shortened to one
# tile per program.
GENERATED = '''import math
import triton
from triton import language as tl
from flaggems_libentry import libentry


@libentry()
@triton.jit(do_not_specialize=['val0'])
def mul_func_scalar_kernel_rank_2(
    in0_ptr: tl.tensor, # of tl.pointer_type
    val0,
    out0_ptr: tl.tensor, # of tl.pointer_type
    in0_stride0: int, in0_stride1: int, # strides for in0
    out0_stride0: int, out0_stride1: int, # strides for out0
    s0, s1, # task_space
    num_tasks,
    tiles_per_cta: int,
    tile_size0: tl.constexpr, tile_size1: tl.constexpr,
    one_tile_per_cta: tl.constexpr,
):
    pid = tl.program_id(0)
    num_tiles1 = tl.cdiv(s1, tile_size1)
    tile_id = pid
    tile_id1 = tile_id % num_tiles1
    tile_id //= num_tiles1
    tile_id0 = tile_id
    offsets0 = tile_id0 * tile_size0 + tl.arange(0, tile_size0)
    offsets1 = tile_id1 * tile_size1 + tl.arange(0, tile_size1)
    mask0 = offsets0 < s0
    mask1 = offsets1 < s1
    mask = mask0[:, None] & mask1[None, :]
    in0 = tl.load(in0_ptr + offsets0[:, None] * in0_stride0 + offsets1[None, :] * in0_stride1, mask=mask).to(in0_ptr.type.element_ty)
    out0 = mul_func_scalar(in0, val0)
    tl.store(out0_ptr + offsets0[:, None] * out0_stride0 + offsets1[None, :] * out0_stride1, out0, mask=mask)
'''
NAME = "mul_func_scalar_kernel_rank_2"


class StridedBuffer:
    """What pointwise_dynamic passes for a tensor (flag_gems.utils.tensor_wrapper.StridedBuffer):
    no torch.Tensor, but data_ptr(), a torch dtype and a torch device."""

    def __init__(self, address, dtype, shape, strides):
        self._address, self.dtype, self.shape, self._strides = address, dtype, shape, strides
        self.device = torch.device("cuda", 0)

    def data_ptr(self):
        return self._address

    def stride(self):
        return self._strides


def _scalar_fn():
    import triton

    @triton.jit
    def mul_func_scalar(x, y):
        return x * y

    return mul_func_scalar


def _load(path):
    with open(path, "w") as f:
        f.write(GENERATED)
    spec = importlib.util.spec_from_file_location("_gen_module_mul_func_scalar_rank_2", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    scalar = _scalar_fn()
    module.__dict__.update(scalar.fn.__globals__)  # as pointwise_dynamic does: even __name__ changes
    module.__dict__["mul_func_scalar"] = scalar
    return module


def _calls():
    f32, f16 = torch.float32, torch.float16
    out = []
    for dtype, shape, strides, scalar, aligned in [(f32, (33, 517), (517, 1), 3.0, True),
                                                   (f32, (517, 33), (1, 517), 0.5, True),
                                                   (f16, (64, 64), (64, 1), -2.0, False),
                                                   (f16, (1, 4096), (4096, 1), 1.0, True)]:
        base = 0x7f0000100000 + (0 if aligned else 2)
        x = StridedBuffer(base, dtype, shape, strides)
        y = StridedBuffer(0x7f0000900000, dtype, shape, strides)
        args = [x, scalar, y, *strides, *strides, *shape, shape[0] * shape[1], 1]
        kwargs = {"tile_size0": 1 if shape[0] == 1 else 16, "tile_size1": 256, "one_tile_per_cta": True}
        out.append((args, kwargs))
    return out


def test_a_pointwise_dynamic_kernel_under_libentry_specializes_as_triton(tmp_path):
    path = str(tmp_path / "pointwise_dynamic_abc_mul_func_scalar_kernel_rank_2.py")
    module = _load(path)
    assert "_gen_module_mul_func_scalar_rank_2" not in sys.modules
    entry = getattr(module, NAME)
    assert type(entry).__name__ == "LibEntry"
    kernel = triton_jit.jit(entry)
    calls = _calls()
    expected = triton_reference.triton_specialization(entry.jit_function, calls)
    for (args, kwargs), reference in zip(calls, expected):
        spec = kernel.specialize(*args, **kwargs, num_warps=4)
        assert spec.triton_repr() == reference, (args, kwargs)
        assert spec.num_warps == 4

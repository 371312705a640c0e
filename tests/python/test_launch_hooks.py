"""Triton's launch hooks (triton.knobs.runtime.launch_enter_hook / launch_exit_hook) around the
runtime's launches from Python: what they receive is compared with what Triton's own launch of the
same kernel passes them, the kernel's launch_metadata included. Every test skips with its reason
on a machine without a CUDA GPU (the fake-driver tests of the same paths from C++:
tests/cpu/launch_hooks_test.cpp)."""
import pytest

from conftest import has_gpu

pytestmark = pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)")

if has_gpu():
    import torch
    import triton
    from triton import knobs

    import triton_jit
    import hooked_kernels


@pytest.fixture
def recorded():
    """Sets an enter and an exit hook by assignment (every Triton 3.4-3.9 takes it) and yields the
    list of (which, metadata, metadata.get()) they saw; restores Triton's hooks after."""
    saved = (knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook)
    seen = []
    knobs.runtime.launch_enter_hook = lambda md: seen.append(("enter", md, md.get() if md is not None else None))
    knobs.runtime.launch_exit_hook = lambda md: seen.append(("exit", md, None))
    try:
        yield seen
    finally:
        knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook = saved


def _launch_both(seen, grid, n=3000, block=256):
    x = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    hooked_kernels.scale_kernel[grid](x, out, n, 2.5, BLOCK=block)
    torch.cuda.synchronize()
    tritons = list(seen)
    seen.clear()
    out.zero_()
    triton_jit.jit(hooked_kernels.scale_kernel)[grid](x, out, n, 2.5, BLOCK=block)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x * 2.5)
    ours = list(seen)
    seen.clear()
    return tritons, ours


def _comparable(data):
    d = dict(data)
    assert isinstance(d.pop("function"), int)  # Triton's module and the runtime's are loaded apart
    return d


@pytest.mark.parametrize("grid_kind", ["tuple", "callable"])
def test_hooks_get_what_tritons_launch_gives(recorded, grid_kind):
    n, block = 3000, 256
    grid = (triton.cdiv(n, block), ) if grid_kind == "tuple" else (lambda meta: (triton.cdiv(n, meta["BLOCK"]), ))
    tritons, ours = _launch_both(recorded, grid, n, block)
    assert [w for w, _, _ in tritons] == ["enter", "exit"]
    assert [w for w, _, _ in ours] == ["enter", "exit"]
    assert type(ours[0][1]) is type(tritons[0][1])  # triton.compiler.LazyDict
    assert ours[1][1] is ours[0][1], "the exit hook gets the enter hook's object, as in Triton"
    assert _comparable(ours[0][2]) == _comparable(tritons[0][2])
    assert ours[0][2]["grid_seen"] == (triton.cdiv(n, block), )


def test_not_called_once_unset(recorded):
    knobs.runtime.launch_enter_hook = None
    knobs.runtime.launch_exit_hook = None
    x = torch.randn(100, device="cuda")
    triton_jit.jit(hooked_kernels.scale_kernel)[(1, )](x, torch.empty_like(x), 100, 1.0, BLOCK=128)
    torch.cuda.synchronize()
    assert recorded == []


def test_raising_enter_hook_stops_the_launch(recorded):
    def refuse(md):
        raise RuntimeError("profiler refused")

    knobs.runtime.launch_enter_hook = refuse
    x = torch.randn(100, device="cuda")
    out = torch.zeros_like(x)
    with pytest.raises(RuntimeError, match="profiler refused"):  # Triton's own launch
        hooked_kernels.scale_kernel[(1, )](x, out, 100, 2.0, BLOCK=128)
    # The runtime's launch raises the hook's own exception too.
    with pytest.raises(RuntimeError, match="profiler refused") as raised:
        triton_jit.jit(hooked_kernels.scale_kernel)[(1, )](x, out, 100, 2.0, BLOCK=128)
    assert type(raised.value) is RuntimeError
    torch.cuda.synchronize()
    assert torch.count_nonzero(out).item() == 0, "no launch after the enter hook raised"
    assert [w for w, _, _ in recorded] == [], "and no exit hook"

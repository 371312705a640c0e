"""triton_jit.install() on the GPU: launches through the installed run give bit-identical results
to Triton's own run (a plain kernel with a callable grid and launch options, one under
@triton.autotune and @triton.heuristics), on the framework's current stream, with Triton's compiled
kernel (its hash), and inside a CUDA graph. Every test skips with its reason without a CUDA GPU."""
import pytest

from conftest import has_gpu

pytestmark = pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)")

if has_gpu():
    import torch
    import triton
    from triton import knobs

    import triton_jit
    import install_kernels


@pytest.fixture
def installed():
    triton_jit.install()
    try:
        yield
    finally:
        triton_jit.uninstall()


def no_new_fallbacks(before):
    after = triton_jit.install_stats()
    return {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}


def both_ways(launch):
    """launch() with Triton's own run, then installed: (Triton's output, the installed output,
    the installed launches' fallbacks by reason)."""
    assert not triton_jit.installed()
    want = launch()
    torch.cuda.synchronize()
    triton_jit.install()
    try:
        before = triton_jit.install_stats()
        got = launch()
        torch.cuda.synchronize()
        return want, got, no_new_fallbacks(before)
    finally:
        triton_jit.uninstall()


def test_a_plain_kernel_is_bit_identical_to_tritons():
    torch.manual_seed(0)
    n = 100003
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    fn = install_kernels.plain_add

    def launch():
        out = torch.empty_like(x)
        fn[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]), )](x, y, out, n, BLOCK=512, num_warps=8)
        return out
    want, got, fallbacks = both_ways(launch)
    assert torch.equal(want, got)
    assert not fallbacks


def test_the_installed_launch_returns_tritons_compiled_kernel(installed):
    x = torch.randn(4096, device="cuda")
    out = torch.empty_like(x)
    fn = install_kernels.plain_add
    ours = fn[(16, )](x, x, out, 4096)
    triton_jit.uninstall()
    theirs = fn[(16, )](x, x, out, 4096)
    assert ours.hash == theirs.hash


def test_an_autotuned_heuristics_kernel_is_bit_identical_to_tritons():
    torch.manual_seed(1)
    wrapper = install_kernels.tuned_even_add
    for n in (4096, 5000):
        x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")

        def launch():
            wrapper.cache.clear()
            out = torch.empty_like(x)
            wrapper[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]), )](x, y, out, n)
            return out
        want, got, fallbacks = both_ways(launch)
        assert torch.equal(want, got), n
        assert not fallbacks, fallbacks


def test_the_framework_current_stream_is_used(installed):
    n = 1 << 20
    x = torch.randn(n, device="cuda")
    out = torch.zeros_like(x)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(10_000_000)  # the launch runs after this only if it is on `side`
        install_kernels.plain_add[(triton.cdiv(n, 256), )](x, x, out, n)
    side.synchronize()
    assert torch.equal(out, x + x)


def test_an_installed_launch_captures_into_a_cuda_graph(installed):
    n = 8192
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.zeros_like(x)
    fn = install_kernels.plain_add
    fn[(triton.cdiv(n, 256), )](x, y, out, n)  # compiled before the capture
    torch.cuda.synchronize()
    out.zero_()
    graph = torch.cuda.CUDAGraph()
    before = triton_jit.install_stats()
    with torch.cuda.graph(graph):
        fn[(triton.cdiv(n, 256), )](x, y, out, n)
    assert not no_new_fallbacks(before)
    assert torch.count_nonzero(out) == 0  # captured, not run
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, x + y)
    x.copy_(torch.randn(n, device="cuda"))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, x + y)


def test_launch_hooks_see_what_tritons_run_gives_them():
    """Triton's launch enter/exit hooks stay on the runtime's path (no fallback) and get what
    Triton's own run gives them (the comparison of tests/python/test_launch_hooks.py)."""
    saved = (knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook)
    seen = []
    knobs.runtime.launch_enter_hook = lambda md: seen.append(("enter", md.get() if md is not None else None))
    knobs.runtime.launch_exit_hook = lambda md: seen.append(("exit", None))
    n = 3000
    x = torch.randn(n, device="cuda")
    fn = install_kernels.plain_add

    def launch():
        seen.clear()
        out = torch.empty_like(x)
        fn[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]), )](x, x, out, n, BLOCK=256)
        return out, list(seen)
    try:
        (want, tritons), (got, ours), fallbacks = both_ways(launch)
    finally:
        knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook = saved
    assert torch.equal(want, got) and not fallbacks
    assert [w for w, _ in ours] == [w for w, _ in tritons] == ["enter", "exit"]
    ours_data, tritons_data = dict(ours[0][1]), dict(tritons[0][1])
    assert isinstance(ours_data.pop("function"), int) and isinstance(tritons_data.pop("function"), int)
    assert ours_data == tritons_data


def _add_with_user_kernel(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    install_kernels.plain_add[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]), )](x, y, out, n, BLOCK=256)
    return out * 2.0


def test_torch_compile_of_a_function_calling_a_user_kernel(installed):
    """torch.compile traces the user kernel's launch (its own wrapper for user Triton kernels);
    with install() in effect the compiled function still gives the eager result."""
    x, y = torch.randn(5000, device="cuda"), torch.randn(5000, device="cuda")
    eager = _add_with_user_kernel(x, y)
    compiled = torch.compile(_add_with_user_kernel)(x, y)
    torch.cuda.synchronize()
    assert torch.equal(eager, compiled)


def test_a_setting_changed_between_launches_sends_the_next_one_to_tritons_run(installed):
    """The installed run reads the process-wide settings (Triton's knobs, the supported version)
    once and then watches them (Python 3.12 and newer): a change made right after a launch it took
    must reach the next launch, on the knobs object or on its class, and the launch after the
    change is undone goes through the C++ run again."""
    n = 4096
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    fn = install_kernels.plain_add

    def reasons_of_one_launch():
        before = triton_jit.install_stats()
        fn[(triton.cdiv(n, 1024), )](x, y, out, n, BLOCK=1024)
        return no_new_fallbacks(before)

    assert reasons_of_one_launch() == {}
    assert reasons_of_one_launch() == {}  # the settings' answer is kept here
    knobs.runtime.debug = True
    try:
        assert reasons_of_one_launch() == {"debug": 1}
    finally:
        knobs.runtime.debug = False
    assert reasons_of_one_launch() == {}
    own = knobs.runtime.__dict__.pop("debug", None)
    on_class = type(knobs.runtime).__dict__["debug"]
    type(knobs.runtime).debug = True
    try:
        assert reasons_of_one_launch() == {"debug": 1}
    finally:
        type(knobs.runtime).debug = on_class
        if own is not None:
            knobs.runtime.debug = own
    assert reasons_of_one_launch() == {}
    knobs.runtime.jit_cache_hook = lambda *args, **kwargs: None
    try:
        assert reasons_of_one_launch() == {"compile_hooks": 1}
    finally:
        knobs.runtime.jit_cache_hook = None
    assert reasons_of_one_launch() == {}
    torch.testing.assert_close(out, x + y)

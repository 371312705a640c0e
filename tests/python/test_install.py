"""triton_jit.install() without a GPU: JITFunction.run replaced and restored; every call the
runtime cannot take exactly handed to Triton's own run, counted per reason; the key the installed
path launches with equal to the one Triton's binder builds (tests/support/triton_reference.py)
over random calls, also for the calls Triton's Autotuner and Heuristics and a LibEntry-like wrapper
make; and the runner, python -m triton_jit.install script.py ARGS.

Without a GPU nothing launches: the runtime's launcher of each kernel (kept on its JITFunction)
is replaced by a recorder that asks the same Kernel for the call's specialization (Kernel.specialize,
what a launch looks up), and Triton's own run by a recorder of the calls handed to it."""
import json
import os
import random
import subprocess
import sys
import threading

import pytest

torch = pytest.importorskip("torch", reason="the random calls use torch's dtypes (test_parity's pairs)")
import triton
from triton import knobs
from triton.runtime.jit import JITFunction

import triton_jit
import triton_reference
import install_kernels
import py_kernels
from triton_jit import _install
from test_parity import CONSTEXPRS, pointer_pair, runtime_pair

TRITON_RUN = JITFunction.run


class FakeCompiled:
    """What the recorder of Triton's run returns in place of a CompiledKernel: compiled[grid](*args)
    is recorded."""

    def __init__(self, fn, launches):
        self.fn, self.launches = fn, launches

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.launches.append((self.fn, grid, args, kwargs))


class Recorder:
    """Stands for the runtime's launches and Triton's run while installed."""

    def __init__(self):
        self.launches = []  # (JITFunction, Triton's repr of the runtime's specialization, kwargs)
        self.triton = []  # (JITFunction, args, kwargs with grid and warmup)
        self.compiled_launches = []  # (JITFunction, grid, args, kwargs) of compiled[grid](...)

    def triton_run(self, fn, *args, **kwargs):
        self.triton.append((fn, args, kwargs))
        return FakeCompiled(fn, self.compiled_launches)

    def hook(self, fn):
        """Replaces the launcher the installed run keeps for `fn` with a recorder."""
        entry = vars(fn).get(_install._ENTRY) or _install._entry_for(fn)
        if entry.kernel is None:
            return entry
        kernel = entry.kernel

        def launch(grid):
            def call(*args, **kwargs):
                self.launches.append((fn, kernel.specialize(*args, **kwargs).triton_repr(), kwargs))
            return call
        entry.launch = launch
        return entry


@pytest.fixture
def recorder():
    triton_jit.install()
    real = _install._triton_run
    rec = Recorder()
    _install._triton_run = rec.triton_run
    try:
        yield rec
    finally:
        _install._triton_run = real
        triton_jit.uninstall()
        for module in (install_kernels, py_kernels):
            for value in vars(module).values():
                while value is not None and not isinstance(value, JITFunction):
                    value = getattr(value, "fn", None)
                if value is not None:
                    vars(value).pop(_install._ENTRY, None)


def pointer(address=4096, dtype="fp32"):
    return triton_reference.make_pointer(address, dtype)


def test_install_and_uninstall_round_trip():
    assert JITFunction.run is TRITON_RUN and not triton_jit.installed()
    triton_jit.install()
    triton_jit.install()  # idempotent: Triton's own run is still what uninstall restores
    assert JITFunction.run is _install._installed_run and triton_jit.installed()
    triton_jit.uninstall()
    assert JITFunction.run is TRITON_RUN and not triton_jit.installed()
    triton_jit.uninstall()
    assert JITFunction.run is TRITON_RUN


def _python_calls(call):
    """call()'s result, and the names of the Python functions it ran (itself left out)."""
    names = []
    sys.setprofile(lambda frame, event, arg: names.append(frame.f_code.co_name) if event == "call" else None)
    try:
        result = call()
    finally:
        sys.setprofile(None)
    return result, names[1:]


def test_constexpr_functions_called_from_host_code_return_what_tritons_call_returns():
    """install() replaces ConstexprFunction.__call__ (triton.cdiv's type) where its source is one the
    bridge knows (Triton 3.5 to 3.9): a call of builtin scalars calls the wrapped function without
    Triton's __call__, any other call (a tl.constexpr, a list, the compiler's _semantic) goes to
    Triton's __call__; the same results and errors either way. uninstall() restores Triton's."""
    cls = getattr(triton.runtime.jit, "ConstexprFunction", None)
    if cls is None:
        pytest.skip(f"Triton {triton.__version__} has no ConstexprFunction (triton.cdiv is a plain function)")
    import triton.language as tl
    triton_call = cls.__dict__["__call__"]

    @triton.constexpr_function
    def probe(*args, **kwargs):
        return [(type(a).__name__, a) for a in args], {k: (type(v).__name__, v) for k, v in kwargs.items()}

    c = tl.constexpr
    calls = [((1000, 64), {}), ((1.5, True, None, "s", b"b"), {"k": 3}), ((c(5), 2), {}), (([1, c(2)], ), {}),
             (((3, c(4)), ), {}), ((), {"scale": c(3)}), ((7, ), {"_semantic": None})]

    def outcomes():
        out = [probe(*args, **kwargs) for args, kwargs in calls]
        out.append(triton.cdiv(1000, 64))
        out.append(triton.cdiv(c(1000), 64))
        compiled = probe(1, _semantic=object())  # the compiler's call: a tl.constexpr back
        out.append((type(compiled).__name__, compiled.value))
        for bad in ((1, ), (1, 0), (1, 2, 3)):
            with pytest.raises(Exception) as e:
                triton.cdiv(*bad)
            out.append((type(e.value).__name__, str(e.value)))
        return out

    tritons = outcomes()
    triton_jit.install()
    try:
        assert type(cls.__dict__["__call__"]).__name__ == "InstalledConstexprCall"
        assert cls.__dict__["__call__"].__wrapped__ is triton_call
        assert outcomes() == tritons
        # Builtin scalars: the wrapped function only; a tl.constexpr: Triton's __call__.
        assert _python_calls(lambda: triton.cdiv(1000, 64)) == (16, ["cdiv"])
        result, names = _python_calls(lambda: triton.cdiv(c(1000), 64))
        assert result == 16 and "__call__" in names and "cdiv" in names
    finally:
        triton_jit.uninstall()
    assert cls.__dict__["__call__"] is triton_call
    assert outcomes() == tritons
    assert "__call__" in _python_calls(lambda: triton.cdiv(1000, 64))[1]


def test_install_from_many_threads_patches_once():
    barrier = threading.Barrier(8)

    def work():
        barrier.wait()
        triton_jit.install()
        triton_jit.uninstall()
        triton_jit.install()
    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert JITFunction.run is _install._installed_run
    triton_jit.uninstall()
    assert JITFunction.run is TRITON_RUN


def test_a_launch_goes_through_the_runtime_with_tritons_key(recorder):
    fn = install_kernels.plain_add
    recorder.hook(fn)
    x = pointer()
    result = fn[(4, )](x, x, x, 1000, BLOCK=128, num_warps=2)
    assert not recorder.triton
    (_, ours, kwargs), = recorder.launches
    assert kwargs == {"BLOCK": 128, "num_warps": 2}
    want = triton_reference.triton_specialization(fn, [([x, x, x, 1000], {"BLOCK": 128})])[0]
    assert ours == want
    # What Triton's run returns (its CompiledKernel), made by Triton's run with warmup=True when used.
    assert result._resolve().fn is fn
    (_, args, run_kwargs), = recorder.triton
    assert args == (x, x, x, 1000) and run_kwargs == {"grid": None, "warmup": True, "BLOCK": 128, "num_warps": 2}


def test_launch_options_go_to_the_runtime_as_triton_gets_them(recorder):
    fn = install_kernels.plain_add
    recorder.hook(fn)
    x = pointer()
    options = {"num_warps": 8, "num_stages": 2, "num_ctas": 1, "maxnreg": 128, "launch_pdl": True,
               "launch_cooperative_grid": True, "enable_fp_fusion": False}
    fn[lambda meta: (meta["n"] // meta["BLOCK"], )](x, x, x, 4096, BLOCK=64, **options)
    assert not recorder.triton
    (_, ours, kwargs), = recorder.launches
    assert kwargs == {"BLOCK": 64, **options}
    assert ours == triton_reference.triton_specialization(fn, [([x, x, x, 4096], {"BLOCK": 64, **options})])[0]


def test_a_changed_global_is_refused_as_triton_refuses_it(recorder, monkeypatch):
    fn = install_kernels.plain_add
    recorder.hook(fn)
    x = pointer()
    scope = {"SCALE": 2}
    monkeypatch.setattr(fn, "used_global_vals", {("SCALE", id(scope)): (1, scope)})
    with pytest.raises(RuntimeError, match="Global variable SCALE has changed since we compiled this kernel, "
                                           "from 1 to 2"):
        fn[(1, )](x, x, x, 10)
    scope["SCALE"] = 1
    fn[(1, )](x, x, x, 10)
    assert len(recorder.launches) == 1 and not recorder.triton


def test_random_calls_launch_with_tritons_key(recorder):
    rng = random.Random(5)
    fn = py_kernels.generic_kernel
    recorder.hook(fn)
    calls, ours = [], []
    for _ in range(300):
        pairs = [runtime_pair(rng) for _ in range(8)]
        consts = [rng.choice(CONSTEXPRS) for _ in range(3)]
        ref_args, our_args = [p[0] for p in pairs] + consts, [p[1] for p in pairs] + consts
        if rng.random() < 0.1:
            # A value neither takes for a runtime parameter (a dtype): Triton's error, from its run.
            i = rng.randrange(8)
            ref_args[i] = our_args[i] = rng.choice([triton.language.float16, torch.int8])
        calls.append((ref_args, {}))
        before = len(recorder.triton)
        fn[(1, )](*our_args)
        if len(recorder.triton) > before:
            ours.append("error: TypeError")  # handed to Triton's run, which raises its own error
        else:
            ours.append(recorder.launches[-1][1])
    want = triton_reference.triton_specialization(fn, calls)
    mismatches = [(calls[i], ours[i], want[i]) for i in range(len(calls)) if ours[i] != want[i]]
    assert not mismatches, mismatches[:5]
    assert "error: TypeError" in ours and _install.install_stats().get("argument", 0) > 0


PARITY_KERNELS = [("generic", "const_kernel"), ("do_not_specialize", "dns_kernel"), ("defaults", "defaults_kernel"),
                  ("dtype_constexpr", "cast_kernel"), ("dtype_constexpr", "scale_kernel"),
                  ("dtype_default", "cast_kernel"), ("annotated", "annotated_kernel"), ("scalars", "scalars_kernel"),
                  ("add", "add_kernel"), ("gluon_kernels", "generic_gluon_kernel")]


@pytest.mark.parametrize("module_name,name", PARITY_KERNELS)
def test_the_parity_kernels_launch_with_tritons_key(recorder, module_name, name):
    """The C++ parity kernels (tests/kernels): random calls, trailing parameters with defaults
    left out at random, through the installed run. A call the runtime launches has the key
    Triton's binder builds for it, and a call the binder refuses is never launched by the runtime;
    the runtime is stricter than Triton's binder for annotated parameters (a pointer for
    `scale: tl.float32`): those calls go to Triton's run, which does what it does with them."""
    import importlib
    kernels = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernels")
    if kernels not in sys.path:
        sys.path.append(kernels)
    if module_name == "gluon_kernels" and tuple(int(p) for p in triton.__version__.split(".")[:2]) < (3, 5):
        pytest.skip(f"Triton {triton.__version__}: the runtime takes Gluon kernels from Triton 3.5 on (as test_gluon)")
    fn = getattr(importlib.import_module(module_name), name)
    recorder.hook(fn)
    rng = random.Random(sum(map(ord, name)))
    calls, ours = [], []
    for _ in range(200):
        ref_args, our_args = [], []
        for p in fn.params:
            if p.is_constexpr:
                value = rng.choice(CONSTEXPRS)
                ref_args.append(value)
                our_args.append(value)
            elif p.annotation and rng.random() < 0.7:
                # A value of the annotated kind (what a caller passes), else a random one.
                reference, mine = pointer_pair(rng) if "*" in str(p.annotation) or "const" in str(p.annotation) \
                    else ((v := rng.choice([0, 1, 16, 17, 1024, 2**31 + 16])), v)
                ref_args.append(reference)
                our_args.append(mine)
            else:
                reference, mine = runtime_pair(rng)
                ref_args.append(reference)
                our_args.append(mine)
        keep = len(ref_args)
        while keep > 0 and fn.params[keep - 1].has_default and rng.random() < 0.5:
            keep -= 1
        calls.append((ref_args[:keep], {}))
        before = len(recorder.triton)
        fn[(1, )](*our_args[:keep])
        ours.append("to Triton's run" if len(recorder.triton) > before else recorder.launches[-1][1])
    want = triton_reference.triton_specialization(fn, calls)
    launched = [i for i in range(len(calls)) if ours[i] != "to Triton's run"]
    mismatches = [(calls[i], ours[i], want[i]) for i in launched if ours[i] != want[i]]
    assert not mismatches, mismatches[:5]
    assert len(launched) >= 10, f"only {len(launched)} of the random calls launched: the test would prove little"


def test_autotune_and_heuristics_call_the_installed_run(recorder):
    wrapper = install_kernels.tuned_even_add
    inner = wrapper.fn.fn
    recorder.hook(inner)
    x = pointer()
    for pick in (0, 1):
        # What Triton's own wrappers hand to JITFunction.run, with a fixed choice of config.
        want_inner, _, run_args, run_kwargs = triton_reference.wrappers_call(wrapper, [x, x, x, 1024], pick)
        assert want_inner is inner
        wrapper.cache.clear()
        wrapper._bench = lambda *a, config, _p=pick, **meta: [0.0 if wrapper.configs.index(config) == _p else 1.0] * 3
        try:
            wrapper[(1, )](x, x, x, 1024)
        finally:
            vars(wrapper).pop("_bench", None)
        _, ours, kwargs = recorder.launches[-1]
        _, specialization, _ = triton_reference.binder(inner)(*run_args, **run_kwargs)
        assert ours == repr(specialization)
        assert kwargs == run_kwargs
    assert not recorder.triton


def test_a_launch_whose_result_is_dropped_keeps_nothing_alive(recorder):
    import gc
    import weakref
    fn = install_kernels.plain_add
    recorder.hook(fn)
    x = pointer()
    watched = weakref.ref(x)
    fn[(1, )](x, x, x, 10)
    del x
    gc.collect()
    assert watched() is None


def test_a_copied_jitfunction_gets_its_own_entry(recorder):
    import copy
    import pickle
    entry = recorder.hook(install_kernels.plain_add)
    assert copy.copy(entry) is None and copy.deepcopy(entry) is None and pickle.loads(pickle.dumps(entry)) is None


def test_a_libentry_like_wrapper_keeps_what_the_installed_run_returns(recorder):
    recorder.hook(install_kernels._entry_add)
    x = pointer()
    kept = install_kernels.entry_add[(1, )](x, x, 100, BLOCK=64)
    assert len(recorder.launches) == 1 and not recorder.triton
    assert kept._resolve().fn is install_kernels._entry_add


def test_flaggems_libentry_misses_through_the_installed_run_and_launches_tritons_kernel_on_hits(recorder):
    """FlagGems 5.0.2's own LibEntry (tests/support/flaggems_libentry.py, its device runtime
    stubbed) over @triton.heuristics: a miss calls fn.run (the installed run, with the key Triton's
    binder builds for what the heuristics hand it) and keeps what it returns; a hit launches that,
    compiled[grid](*args), which is Triton's CompiledKernel (made by Triton's run, warmup=True)."""
    kernels = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernels")
    if kernels not in sys.path:
        sys.path.append(kernels)
    import libentry_kernels
    wrapper = libentry_kernels.softmax_entry_kernel
    inner = wrapper.fn.fn
    recorder.hook(inner)
    y = triton_reference.make_tensor(0x7f0000100000, "float32")
    x = triton_reference.make_tensor(0x7f0000200000, "float32")
    wrapper[(4, )](y, x, 4, 1000)
    (_, ours, kwargs), = recorder.launches
    _, _, run_args, run_kwargs = triton_reference.wrappers_call(wrapper.fn, [y, x, 4, 1000])
    assert kwargs == run_kwargs and kwargs["num_warps"] == 4 and kwargs["TILE_N"] == 1024
    assert ours == repr(triton_reference.binder(inner)(*run_args, **run_kwargs)[1])
    assert not recorder.compiled_launches
    wrapper[(4, )](y, x, 4, 1000)  # a hit: LibEntry launches the kernel it kept
    assert len(recorder.launches) == 1
    (fn, grid, args, _), = recorder.compiled_launches
    assert fn is inner and tuple(grid) == (4, 1, 1) and args[:4] == (y, x, 4, 1000)
    (_, _, warmup_kwargs), = recorder.triton
    assert warmup_kwargs["warmup"] is True


def test_each_fallback_reason_is_counted(recorder, monkeypatch):
    fn = install_kernels.plain_add
    recorder.hook(fn)
    x = pointer()
    args = (x, x, x, 1000)

    def reasons_of(call):
        before = _install.install_stats()
        launches, handed = len(recorder.launches), len(recorder.triton)
        call()
        after = _install.install_stats()
        assert len(recorder.launches) == launches and len(recorder.triton) == handed + 1
        return {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}

    assert reasons_of(lambda: fn.warmup(*args, grid=(1, ))) == {"warmup": 1}
    assert recorder.triton[-1][2]["warmup"] is True
    assert reasons_of(lambda: fn[(1, )](*args, stream=0)) == {"deprecated_option": 1}
    assert reasons_of(lambda: fn[(1, )](object(), x, x, 1000)) == {"argument": 1}

    fn.add_pre_run_hook(lambda *a, **k: None)
    try:
        assert reasons_of(lambda: fn[(1, )](*args)) == {"pre_run_hooks": 1}
    finally:
        fn.pre_run_hooks.clear()
    with monkeypatch.context() as m:
        m.setattr(knobs.runtime, "jit_cache_hook", lambda *a, **k: None)
        assert reasons_of(lambda: fn[(1, )](*args)) == {"compile_hooks": 1}
    with monkeypatch.context() as m:
        m.setattr(knobs.runtime, "jit_post_compile_hook", lambda *a, **k: None)
        assert reasons_of(lambda: fn[(1, )](*args)) == {"compile_hooks": 1}
    with monkeypatch.context() as m:
        m.setattr(_install, "_async_active", lambda: True)
        assert reasons_of(lambda: fn[(1, )](*args)) == {"async_compile": 1}
    with monkeypatch.context() as m:
        m.setattr(knobs.runtime, "debug", True)  # Triton reads TRITON_DEBUG once, into this knob
        assert reasons_of(lambda: fn[(1, )](*args)) == {"debug": 1}
    with monkeypatch.context() as m:
        m.setattr(_install, "_instrumentation", type("Knobs", (), {"instrumentation_mode": "fpsan"})())
        assert reasons_of(lambda: fn[(1, )](*args)) == {"instrumentation": 1}
    with monkeypatch.context() as m:
        m.setattr(_install, "_version_ok", False)
        assert reasons_of(lambda: fn[(1, )](*args)) == {"triton_version": 1}
    fn[(1, )](*args)  # and back through the runtime
    assert len(recorder.launches) == 1


@pytest.mark.parametrize("error", ["CudaError", "NoDeviceError", "ArchitectureMismatchError"])
def test_a_failed_driver_call_goes_to_triton_for_that_call(recorder, error):
    fn = install_kernels.plain_add
    entry = recorder.hook(fn)
    recorded = entry.launch

    def fail_once(grid):
        def call(*args, **kwargs):
            entry.launch = recorded
            raise getattr(triton_jit, error)("refused by the test's driver")
        return call
    entry.launch = fail_once
    x = pointer()
    before = _install.install_stats().get("cuda_error", 0)
    fn[(1, )](x, x, x, 10)
    fn[(1, )](x, x, x, 10)
    assert _install.install_stats()["cuda_error"] == before + 1
    assert len(recorder.triton) == 1 and len(recorder.launches) == 1


def test_a_kernel_the_runtime_cannot_find_goes_to_triton_for_good(recorder):
    @triton.jit
    def local_kernel(x_ptr):  # held by no module-level name: the runtime cannot load it
        pass
    x = pointer()
    before = _install.install_stats().get("refused", 0)
    local_kernel[(1, )](x)
    local_kernel[(1, )](x)
    assert _install.install_stats()["refused"] == before + 2
    assert [c[0] for c in recorder.triton] == [local_kernel, local_kernel]


def test_a_kernel_the_runtime_refuses_at_its_first_launch_goes_to_triton_for_good(recorder):
    fn = install_kernels.plain_add
    entry = recorder.hook(fn)

    def refuse(grid):
        def call(*args, **kwargs):
            raise triton_jit.CompileError("refused by the test")
        return call
    entry.launch = refuse
    x = pointer()
    before = _install.install_stats().get("refused", 0)
    fn[(1, )](x, x, x, 10)
    fn[(1, )](x, x, x, 10)
    assert _install.install_stats()["refused"] == before + 2 and len(recorder.triton) == 2
    assert entry.kernel is None


def test_a_key_the_runtime_cannot_compile_after_its_first_launch_goes_to_triton_for_that_call(recorder):
    fn = install_kernels.plain_add
    entry = recorder.hook(fn)
    recorded = entry.launch
    x = pointer()
    fn[(1, )](x, x, x, 10)

    def refuse_block_64(grid):
        def call(*args, **kwargs):
            if kwargs.get("BLOCK") == 64:
                raise triton_jit.CompileError("refused by the test")
            recorded(grid)(*args, **kwargs)
        return call
    entry.launch = refuse_block_64
    before = _install.install_stats().get("compile", 0)
    fn[(1, )](x, x, x, 10, BLOCK=64)
    fn[(1, )](x, x, x, 10)
    assert _install.install_stats()["compile"] == before + 1
    assert len(recorder.triton) == 1 and len(recorder.launches) == 2 and entry.kernel is not None


def test_the_fallbacks_are_logged_once_per_kernel_and_reason(recorder, caplog):
    fn = install_kernels.plain_add
    recorder.hook(fn)
    x = pointer()
    with caplog.at_level("DEBUG", logger="triton_jit"):
        for _ in range(3):
            fn[(1, )](x, x, x, 10, stream=0)
    messages = [r.getMessage() for r in caplog.records if "deprecated_option" in r.getMessage()]
    assert len(messages) == 1 and "plain_add" in messages[0]


SCRIPT = """
import json, sys
import triton
import triton.language as tl
import triton_jit
from triton_jit import _install


@triton.jit
def script_kernel(n, M: tl.constexpr):
    pass


# The runtime finds a kernel the script defines (in __main__, as runpy runs it).
entry = _install._entry_for(script_kernel)
key = entry.kernel.specialize(17, 4).triton_repr() if entry.kernel is not None else entry.refused
print(json.dumps({"argv": sys.argv, "name": __name__, "installed": triton_jit.installed(), "path0": sys.path[0],
                  "key": key}))
sys.exit(int(sys.argv[-1]))
"""


def test_the_runner_installs_then_runs_the_script_as_python_would(tmp_path):
    script = tmp_path / "program.py"
    script.write_text(SCRIPT)
    r = subprocess.run([sys.executable, "-m", "triton_jit.install", str(script), "--flag", "a b", "3"],
                       capture_output=True, text=True, cwd=str(tmp_path), timeout=300)
    assert r.returncode == 3, r.stderr
    seen = json.loads(r.stdout.strip().splitlines()[-1])
    assert seen == {"argv": [str(script), "--flag", "a b", "3"], "name": "__main__", "installed": True,
                    "path0": str(tmp_path), "key": "[('i32', ''), ('constexpr', 4)]"}
    usage = subprocess.run([sys.executable, "-m", "triton_jit.install"], capture_output=True, text=True, timeout=300)
    assert usage.returncode == 2 and "usage" in usage.stderr


def test_the_runner_runs_a_module_with_dash_m(tmp_path):
    (tmp_path / "program_module.py").write_text(SCRIPT)
    r = subprocess.run([sys.executable, "-m", "triton_jit.install", "-m", "program_module", "x", "0"],
                       capture_output=True, text=True, cwd=str(tmp_path), timeout=300)
    assert r.returncode == 0, r.stderr
    seen = json.loads(r.stdout.strip().splitlines()[-1])
    assert seen["name"] == "__main__" and seen["installed"] and seen["argv"][1:] == ["x", "0"]


def test_importing_the_runner_module_leaves_install_callable():
    code = ("import triton_jit, triton_jit.install\n"
            "triton_jit.install()\n"
            "assert triton_jit.installed()\n"
            "triton_jit.uninstall()\n"
            "assert not triton_jit.installed()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


CHILDREN_SCRIPT = r"""
import json, multiprocessing, subprocess, sys

CHILD = ("import json, sys, sitecustomize_marker; import triton, triton_jit; "
         "print(json.dumps([triton_jit.installed(), sitecustomize_marker.ran]))")
PLAIN = "import json, sys; print(json.dumps(['triton' in sys.modules, 'triton_jit' in sys.modules]))"


def worker(queue):
    import triton, triton_jit
    queue.put(triton_jit.installed())


if __name__ == "__main__":
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    p = ctx.Process(target=worker, args=(queue, ))
    p.start()
    spawned = queue.get(timeout=240)
    p.join()
    child = json.loads(subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                                      check=True).stdout)
    plain = json.loads(subprocess.run([sys.executable, "-c", PLAIN], capture_output=True, text=True,
                                      check=True).stdout)
    print(json.dumps({"spawned": spawned, "child": child, "plain": plain}))
"""


def test_the_runner_installs_the_python_processes_the_program_starts(tmp_path):
    # A sitecustomize of the environment's own, which the runner's must not hide from children.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sitecustomize_marker\nsitecustomize_marker.ran += 1\n")
    (site / "sitecustomize_marker.py").write_text("ran = 0\n")
    script = tmp_path / "program.py"
    script.write_text(CHILDREN_SCRIPT)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(site) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-m", "triton_jit.install", str(script)], capture_output=True, text=True,
                       cwd=str(tmp_path), env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    seen = json.loads(r.stdout.strip().splitlines()[-1])
    # Installed where they import triton, the environment's sitecustomize run once in each; a child
    # that never imports triton imports neither.
    assert seen == {"spawned": True, "child": [True, 1], "plain": [False, False]}, r.stderr


def test_without_the_runner_the_child_folder_installs_nothing(tmp_path):
    import triton_jit as package
    folder = os.path.join(os.path.dirname(package.__file__), "_child_install")
    env = dict(os.environ)
    env["PYTHONPATH"] = folder + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("TRITON_JIT_INSTALL", None)
    code = "import triton, triton_jit; print(triton_jit.installed())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr

"""triton_jit.install()'s C++ run (_C.InstalledRun) against its Python reference
(_install._installed_run_python), launching for real without a GPU: on the fake HIP runtime
(tests/support/fake_hip.cpp, as tests/python/test_rocm.py launches), so that the C++ run's own
launch path runs (test_install.py replaces each kernel's launcher with a recorder, which sends
every call to the Python run).

Checked: the same launches (arguments, grid, block, stream) through both runs over varied calls
(keywords in any order, defaults left out, a grid callable, launch options); each fallback reason
counted by install_stats() when the C++ run meets it, also right after a launch it took (the
settings are watched, not read at each call, on Python 3.12 and newer); a changed global raising
Triton's error; an error of the call's own raised as is; what a launch returns resolving through
Triton's run with the call's own arguments; a dropped result keeping nothing alive."""
import pytest

from test_rocm import run_on_fake_hip

PRELUDE = """
import gc, weakref
from triton import knobs
from triton.runtime.jit import JITFunction
from triton_jit import _install

triton_jit.install()
handed = []  # the calls handed to Triton's own run (a recorder: it cannot launch on the fake)
class Compiled:  # what the recorder returns in place of a CompiledKernel
    def __init__(self, args, kwargs):
        self.args, self.kwargs = args, kwargs
_install._triton_run = lambda f, *a, **kw: handed.append((a, kw)) or Compiled(a, kw)

def arrays():
    return RocmArray(0x10000, shape=(1000, )), RocmArray(0x20000, shape=(1000, )), RocmArray(0x30000, shape=(1000, ))

def shapes(since):
    return [(l["args"][:4], l["grid"], l["block"], l["stream"]) for l in launches()[since:]]

returned = []  # the type of what each call of through() returned

def through(run, calls):
    # The launches each call makes through `run`, and whether it was handed to Triton's run.
    out = []
    for args, kwargs, grid in calls:
        before, handed_before = len(launches()), len(handed)
        returned.append(type(run(fn, *args, grid=grid, warmup=False, **kwargs)).__name__)
        out.append((shapes(before), len(handed) - handed_before))
    return out
"""


def test_the_cpp_run_launches_as_the_python_run_does():
    r = run_on_fake_hip(PRELUDE + """
x, y, out = arrays()
grid_fn = lambda meta: (meta["n"] // meta["BLOCK"] + 1, )
calls = [((x, y, out, 1000), {"BLOCK": 256}, (4, )),
         ((x, y, out, 1000), {}, (2, 3)),
         ((x, y), {"n": 1000, "out_ptr": out, "BLOCK": 128}, (8, )),
         ((x, y, out, 1000), {"num_warps": 2, "BLOCK": 64}, grid_fn),
         ((x, y, out), {"BLOCK": 64, "n": 7, "num_warps": 8, "num_stages": 2}, grid_fn),
         ((x, y, out, 1000, 256), {}, (1, 1, 1))]
fn[(1, )](x, y, out, 1000)  # the entry, made by the Python run at the first call
result["cpp"] = through(JITFunction.run, calls)
result["python"] = through(_install._installed_run_python, calls)
result["bound"] = through(lambda f, *a, **kw: f.run(*a, **kw), calls[:2])
result["returned"] = returned
before = len(launches())
fn[(5, )](x, y, out, 1000, BLOCK=32)
result["getitem"] = shapes(before)
result["stats"] = _install.install_stats()
result["is"] = JITFunction.run is _install._installed_run
""")
    assert r["is"]
    assert r["cpp"] == r["python"], r
    assert all(handed == 0 and len(launched) == 1 for launched, handed in r["cpp"]), r["cpp"]
    assert r["bound"] == r["python"][:2]
    # The C++ run took each call itself (its result type), the Python run its own.
    n = len(r["cpp"])
    assert r["returned"] == ["LaunchedKernel"] * n + ["_LaunchedKernel"] * n + ["LaunchedKernel"] * 2
    assert r["getitem"] == [[[0x10000, 0x20000, 0x30000, 1000], [5, 1, 1], [256, 1, 1], 0]]
    assert r["stats"] == {}


def test_each_fallback_reason_is_counted_by_the_cpp_run():
    r = run_on_fake_hip(PRELUDE + """
from triton.runtime import _async_compile
x, y, out = arrays()
fn[(1, )](x, y, out, 1000)
reasons = {}

def reason_of(name, call):
    before, launched, handed_before = _install.install_stats(), len(launches()), len(handed)
    call()
    after = _install.install_stats()
    reasons[name] = ({k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)},
                     len(launches()) - launched, len(handed) - handed_before)

args = (x, y, out, 1000)
reason_of("warmup", lambda: fn.warmup(*args, grid=(1, )))
reason_of("stream", lambda: fn[(1, )](*args, stream=0))
reason_of("device", lambda: fn[(1, )](*args, device=0))
# Keywords made at run time, which are not interned: compared by value.
made = lambda *parts: "".join(parts)
reason_of("stream_made", lambda: fn[(1, )](*args, **{made("str", "eam"): 0}))
reason_of("device_type_made", lambda: fn[(1, )](*args, **{made("device", "_type"): "hip"}))
reason_of("grid_made", lambda: JITFunction.run(fn, *args, **{made("gr", "id"): (1, ), made("warm", "up"): False}))
reason_of("warmup_made", lambda: JITFunction.run(fn, *args, **{made("gr", "id"): (1, ), made("warm", "up"): True}))
reason_of("argument", lambda: fn[(1, )](object(), y, out, 1000))
fn.add_pre_run_hook(lambda *a, **k: None)
reason_of("pre_run_hooks", lambda: fn[(1, )](*args))
fn.pre_run_hooks.clear()
knobs.runtime.jit_cache_hook = lambda *a, **k: None
reason_of("jit_cache_hook", lambda: fn[(1, )](*args))
knobs.runtime.jit_cache_hook = None
knobs.runtime.jit_post_compile_hook = lambda *a, **k: None
reason_of("jit_post_compile_hook", lambda: fn[(1, )](*args))
knobs.runtime.jit_post_compile_hook = None
token = _async_compile.active_mode.set(object())  # Triton's own async-compile mode, as its context sets it
reason_of("async_mode", lambda: fn[(1, )](*args))
_async_compile.active_mode.reset(token)
checker = _install._async_active
_install._async_active = lambda: True
reason_of("async_checker", lambda: fn[(1, )](*args))
_install._async_active = checker
knobs.runtime.debug = True
reason_of("debug", lambda: fn[(1, )](*args))
knobs.runtime.debug = False
reason_of("debug_read_again", lambda: fn[(1, )](*args))
# On the knobs' class (Python 3.12 and newer watch the class as well as the object), with no
# value of the object's own in front of it.
own_debug = knobs.runtime.__dict__.pop("debug", None)
class_debug = type(knobs.runtime).__dict__["debug"]
type(knobs.runtime).debug = True
reason_of("debug_on_class", lambda: fn[(1, )](*args))
type(knobs.runtime).debug = class_debug
if own_debug is not None:
    knobs.runtime.debug = own_debug
instrumentation = _install._instrumentation
_install._instrumentation = type("Knobs", (), {"instrumentation_mode": "fpsan"})()
reason_of("instrumentation", lambda: fn[(1, )](*args))
_install._instrumentation = instrumentation
_install._version_ok = False
reason_of("triton_version", lambda: fn[(1, )](*args))
_install._version_ok = True
reason_of("none", lambda: fn[(1, )](*args))
result["reasons"] = reasons
""")
    want = {"warmup": ({"warmup": 1}, 0, 1), "stream": ({"deprecated_option": 1}, 0, 1),
            "device": ({"deprecated_option": 1}, 0, 1), "stream_made": ({"deprecated_option": 1}, 0, 1),
            "device_type_made": ({"deprecated_option": 1}, 0, 1), "grid_made": ({}, 1, 0),
            "warmup_made": ({"warmup": 1}, 0, 1), "argument": ({"argument": 1}, 0, 1),
            "pre_run_hooks": ({"pre_run_hooks": 1}, 0, 1), "jit_cache_hook": ({"compile_hooks": 1}, 0, 1),
            "jit_post_compile_hook": ({"compile_hooks": 1}, 0, 1), "async_mode": ({"async_compile": 1}, 0, 1),
            "async_checker": ({"async_compile": 1}, 0, 1), "debug": ({"debug": 1}, 0, 1),
            "debug_read_again": ({}, 1, 0), "debug_on_class": ({"debug": 1}, 0, 1),
            "instrumentation": ({"instrumentation": 1}, 0, 1), "triton_version": ({"triton_version": 1}, 0, 1),
            "none": ({}, 1, 0)}
    assert {k: tuple(v) for k, v in r["reasons"].items()} == {k: (v[0], v[1], v[2]) for k, v in want.items()}


def test_the_cpp_runs_errors_and_results_are_the_python_runs():
    r = run_on_fake_hip(PRELUDE + """
x, y, out = arrays()
fn[(1, )](x, y, out, 1000)

# What a launch returns: Triton's CompiledKernel, made on first use by Triton's run for the same call.
launched = fn[(2, )](x, y, out, 1000, num_warps=2, BLOCK=128)
result["type"] = type(launched).__name__
compiled = launched._resolve()
result["resolved"] = compiled.args == (x, y, out, 1000) and compiled.kwargs == {"grid": None, "warmup": True,
                                                                                "num_warps": 2, "BLOCK": 128}
result["attr"] = launched.kwargs is compiled.kwargs and launched._resolve() is compiled and len(handed) == 1
handed.clear()

# A changed global: Triton's error, from either run.
scope = {"SCALE": 2}
fn.used_global_vals = {("SCALE", id(scope)): (1, scope)}
errors = []
for run in (JITFunction.run, _install._installed_run_python):
    try:
        run(fn, x, y, out, 1000, grid=(1, ), warmup=False)
    except RuntimeError as e:
        errors.append(str(e))
scope["SCALE"] = 1
before = len(launches())
fn[(1, )](x, y, out, 1000)
result["global_errors"] = errors
result["global_ok_launches"] = len(launches()) - before
nan = float("nan")
scope["SCALE"] = nan
fn.used_global_vals = {("SCALE", id(scope)): (nan, scope)}  # nan != nan: changed, as Python's != says
try:
    fn[(1, )](x, y, out, 1000)
    result["nan"] = None
except RuntimeError as e:
    result["nan"] = str(e)
fn.used_global_vals = {}

# An error of the call's own (its grid function's) is raised as is, counted as no fallback.
def bad_grid(meta):
    raise ValueError("the grid function failed")
try:
    fn[bad_grid](x, y, out, 1000)
    result["grid_error"] = None
except ValueError as e:
    result["grid_error"] = str(e)

# A dropped result keeps nothing alive.
z = RocmArray(0x40000, shape=(1000, ))
watched = weakref.ref(z)
fn[(1, )](x, y, z, 1000)
del z
gc.collect()
result["alive"] = watched() is not None
result["handed"] = len(handed)
result["stats"] = _install.install_stats()
""")
    assert r["type"] == "LaunchedKernel" and r["resolved"] and r["attr"]
    message = "Global variable SCALE has changed since we compiled this kernel, from 1 to 2"
    assert r["global_errors"] == [message, message] and r["global_ok_launches"] == 1
    assert r["nan"] == "Global variable SCALE has changed since we compiled this kernel, from nan to nan"
    assert r["grid_error"] == "the grid function failed"
    assert not r["alive"] and r["handed"] == 0 and r["stats"] == {}


def test_fn_of_grid_calls_the_cpp_run_as_tritons_lambda_calls_run():
    """fn[grid] while installed is an InstalledGridCall, which launches through the C++ run as
    Triton's lambda (`self.run(grid=grid, warmup=False, *args, **kwargs)`) would; whatever the C++
    run does not take goes to that lambda's body: a `run` of the instance's own, grid= among the
    keywords (Triton's TypeError), a call held across uninstall() (Triton's run then)."""
    r = run_on_fake_hip(PRELUDE + """
x, y, out = arrays()
grid_fn = lambda meta: (meta["n"] // meta["BLOCK"] + 1, )
calls = [((x, y, out, 1000), {"BLOCK": 256}, (4, )),
         ((x, y), {"n": 1000, "out_ptr": out, "BLOCK": 128}, (8, )),
         ((x, y, out, 1000), {"num_warps": 2, "BLOCK": 64}, grid_fn),
         ((x, y, out, 1000, 256), {}, (1, 1, 1))]
fn[(1, )](x, y, out, 1000)  # the entry, made by the Python run at the first call
result["getitem"] = through(lambda f, *a, grid, warmup, **kw: f[grid](*a, **kw), calls)
result["cpp"] = through(JITFunction.run, calls)
result["returned"] = returned[:len(calls)]
result["type"] = type(fn[(1, )]).__name__
result["docs"] = (type(JITFunction.__dict__["__getitem__"]).__doc__.startswith("JITFunction.__getitem__"),
                  type(JITFunction.__dict__["run"]).__doc__.startswith("JITFunction.run"))
held = fn[(3, )]
result["repr"] = repr(held).startswith("<installed launch of ") and held.fn is fn and held.grid == (3, )

errors = []
for name in ("grid", "warmup"):
    try:
        fn[(1, )](x, y, out, 1000, **{name: (1, )})
    except TypeError as e:
        errors.append(str(e))
result["errors"] = errors

fn.__dict__["run"] = lambda *a, **kw: ("own run", kw["grid"], kw["warmup"])
result["own_run"] = fn[(7, )](x, y, out, 1000)
del fn.__dict__["run"]

before_launches, before_handed = len(launches()), len(handed)
triton_jit.uninstall()
result["uninstalled_type"] = type(fn[(1, )]).__name__
held(x, y, out, 1000)
result["held_after_uninstall"] = (len(launches()) - before_launches, len(handed) - before_handed)
triton_jit.install()
result["reinstalled_type"] = type(fn[(1, )]).__name__
result["stats"] = _install.install_stats()
""")
    assert r["getitem"] == r["cpp"], r
    assert all(handed == 0 and len(launched) == 1 for launched, handed in r["getitem"]), r["getitem"]
    assert r["returned"] == ["LaunchedKernel"] * len(r["getitem"])
    assert r["type"] == "InstalledGridCall" and r["repr"] and r["docs"] == [True, True]
    assert len(r["errors"]) == 2 and all("multiple values for keyword argument" in e for e in r["errors"]), r["errors"]
    assert r["own_run"] == ["own run", [7], False]
    assert r["uninstalled_type"] == "function"  # Triton's lambda again
    assert r["held_after_uninstall"] == [0, 1]  # Triton's run (the recorder): not launched by the runtime
    assert r["reinstalled_type"] == "InstalledGridCall" and r["stats"] == {}


def test_constexpr_globals_are_checked_as_triton_checks_them():
    """Triton's run compares each global the kernel read at its compile (a deep copy of it) with
    `!=`; the C++ run compares builtin scalars and constexprs of them without Python's frames
    (constexpr.__ne__ is Python code), with the same outcome: NaN included, anything else asked
    of Python."""
    r = run_on_fake_hip(PRELUDE + """
import copy
import triton.language as tl
x, y, out = arrays()
fn[(1, )](x, y, out, 1000)
outcomes = {}
nan = float("nan")
cases = [("equal constexpr", tl.constexpr(1), None), ("new equal constexpr", tl.constexpr(1), tl.constexpr(1)),
         ("changed constexpr", tl.constexpr(1), tl.constexpr(2)), ("float constexpr", tl.constexpr(1.5), None),
         ("int for constexpr", tl.constexpr(1), 1), ("constexpr nan", tl.constexpr(nan), None),
         ("str", "a", None), ("changed str", "a", "b"), ("str for int", 1, "1"), ("float nan", nan, None),
         ("tuple", (1, 2), None)]
for name, old, new in cases:
    scope = {"G": old}
    fn.used_global_vals = {("G", id(scope)): (copy.deepcopy(old), scope)}
    if new is not None:
        scope["G"] = new
    for run in ("cpp", "python"):
        before = len(launches())
        try:
            if run == "cpp":
                fn[(1, )](x, y, out, 1000)
            else:
                _install._installed_run_python(fn, x, y, out, 1000, grid=(1, ), warmup=False)
            outcomes[f"{name} {run}"] = len(launches()) - before
        except RuntimeError as e:
            outcomes[f"{name} {run}"] = str(e)
fn.used_global_vals = {}
result["outcomes"] = outcomes
""")
    o = r["outcomes"]
    for name in ("equal constexpr", "new equal constexpr", "float constexpr", "int for constexpr", "str", "tuple"):
        assert o[f"{name} cpp"] == o[f"{name} python"] == 1, o
    for name, text in (("changed constexpr", "from constexpr[1] to constexpr[2]"),
                       ("constexpr nan", "from constexpr[nan] to constexpr[nan]"), ("changed str", "from a to b"),
                       ("str for int", "from 1 to 1"), ("float nan", "from nan to nan")):
        assert o[f"{name} cpp"] == o[f"{name} python"], o
        assert "Global variable G has changed since we compiled this kernel" in o[f"{name} cpp"] and text in o[f"{name} cpp"], o

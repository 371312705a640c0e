"""Which kind of decorator layer the bridge makes of a wrapper (src/bridge/python/triton_jit_bridge/
wrappers.py), imported from the source tree, without the C++ runtime: Triton's Autotuner and
Heuristics, and subclasses that change nothing of a call, are emulated; a subclass that overrides
run (or any method a call goes through, or assigns one on the object) and a wrapper of no Triton
class run their own run through Python, and the layer says which class and why; a Python-run
wrapper's run gets the caller's arguments as kernel[grid](...) passes them."""
import functools
import importlib.util
import inspect
import os
import sys

import pytest
from triton.runtime.autotuner import Autotuner, Heuristics

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "src", "bridge", "python"))

from triton_jit_bridge import wrappers  # noqa: E402
from triton_jit_bridge.loading import load_function  # noqa: E402

KERNELS = os.path.join(ROOT, "tests", "kernels", "run_overrides.py")


@pytest.fixture(scope="module")
def kernels():
    spec = importlib.util.spec_from_file_location("run_overrides_under_test", KERNELS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def layers(name):
    return load_function(KERNELS, name)[1]["decorators"]


def test_triton_own_wrappers_are_emulated():
    wrapped = os.path.join(ROOT, "tests", "kernels", "wrapped.py")
    assert [d["kind"] for d in load_function(wrapped, "stacked_kernel")[1]["decorators"]] == ["autotune", "heuristics"]


def test_subclasses_that_change_no_call_are_emulated():
    assert [d["kind"] for d in layers("plain_subclass_kernel")] == ["autotune"]
    assert [d["kind"] for d in layers("plain_heuristics_kernel")] == ["heuristics"]


def test_autotuner_subclass_overriding_run_runs_in_python():
    (layer,) = layers("last_config_kernel")
    assert layer["kind"] == "python"
    assert layer["class"].endswith(".LastConfigAutotuner")
    assert layer["reason"] == "a subclass of triton's Autotuner that overrides run"
    assert layer["sets"] == [3]  # BLOCK, set by its configs: the caller does not pass it


def test_heuristics_subclass_overriding_run_runs_in_python():
    (layer,) = layers("odd_heuristics_kernel")
    assert layer["kind"] == "python"
    assert layer["reason"] == "a subclass of triton's Heuristics that overrides run"
    assert layer["sets"] == [3]  # ODD


def test_unknown_wrapper_runs_in_python():
    (layer,) = layers("block_wrapper_kernel")
    assert layer == {"kind": "python", "class": layer["class"], "reason": "a wrapper the runtime does not know",
                     "sets": []}
    assert layer["class"].endswith(".BlockWrapper")


def test_layers_above_a_python_wrapper_are_described_and_the_chain_below_is_not():
    described = layers("heuristics_over_odd_kernel")
    assert [d["kind"] for d in described] == ["heuristics", "python"]


def test_any_overridden_method_of_a_call_counts(kernels):
    base = kernels.plain_subclass_kernel
    for method in ("prune_configs", "_bench", "check_disk_cache", "__getitem__", "warmup"):
        cls = type("Custom", (Autotuner, ), {method: lambda self, *a, **k: None})
        obj = cls(base.fn, base.fn.arg_names, base.configs, ["n"], None, None)
        assert not wrappers.emulated_as(obj, Autotuner), method
        assert wrappers.wrapper_kind(obj).name == "python"
        assert method in wrappers.overridden(obj, Autotuner)
    # do_bench is a cached property: a subclass's own is behaviour too.
    cls = type("OwnBench", (Autotuner, ), {"do_bench": property(lambda self: None)})
    obj = cls(base.fn, base.fn.arg_names, base.configs, ["n"], None, None)
    assert wrappers.overridden(obj, Autotuner) == ["do_bench"]


def test_a_method_assigned_on_the_object_counts(kernels):
    base = kernels.plain_subclass_kernel
    obj = Autotuner(base.fn, base.fn.arg_names, base.configs, ["n"], None, None)
    assert wrappers.wrapper_kind(obj).name == "autotune"
    if isinstance(inspect.getattr_static(Autotuner, "do_bench", None), functools.cached_property):
        obj.__dict__["do_bench"] = "what reading the cached property leaves"  # as after Triton tuned once
        assert wrappers.wrapper_kind(obj).name == "autotune"
    obj.run = lambda *args, **kwargs: None
    assert wrappers.wrapper_kind(obj).name == "python"
    assert wrappers.describe_python_wrapper(obj, base.fn)["reason"] == \
        "triton's Autotuner with its own run assigned on the object"
    heuristics = Heuristics(base.fn, base.fn.arg_names, {"BLOCK": lambda args: 64})
    assert wrappers.wrapper_kind(heuristics).name == "heuristics"


def test_kinds_are_an_ordered_table_ending_in_the_python_kind():
    assert [k.name for k in wrappers.WRAPPER_KINDS][-3:] == ["heuristics", "autotune", "python"]


def test_run_wrapper_passes_the_call_as_kernel_grid_does(kernels, tmp_path, monkeypatch):
    record = tmp_path / "record.jsonl"
    monkeypatch.setenv("TRITON_JIT_TEST_WRAPPER_RECORD", str(record))
    monkeypatch.setenv("TRITON_JIT_TEST_WRAPPER_NO_LAUNCH", "1")
    # x, out positional; n by name (as after a parameter a wrapper sets); a launch option by name.
    wrappers.run_wrapper(kernels.last_config_kernel, ["x_ptr", "out_ptr", "n"], [None, None, 1000], 2,
                         lambda meta: (meta["n"] // meta["BLOCK"], ), {"num_stages": 2}, 0)
    import json
    (line, ) = [json.loads(x) for x in record.read_text().splitlines()]
    assert line["wrapper"] == "LastConfigAutotuner"
    assert line["chosen"].startswith("BLOCK: 128")
    assert line["args"] == ["None", "None"]
    assert line["kwargs"] == {"n": "1000", "num_stages": "2"}
    assert line["grid"] == [7]


# ---- fla's CachedAutotuner (tests/support/fla_stub: its module, class and shape) ----

FLA_KERNELS = os.path.join(ROOT, "tests", "kernels", "fla_cached.py")


@pytest.fixture
def fla_cache_module():
    sys.path.insert(0, os.path.join(ROOT, "tests", "support", "fla_stub"))
    import fla.ops.utils.cache as module
    yield module
    sys.path.remove(os.path.join(ROOT, "tests", "support", "fla_stub"))


def test_fla_cached_autotuner_is_autotune_while_its_mode_is_off(fla_cache_module, monkeypatch):
    monkeypatch.setattr(fla_cache_module, "FLA_CACHE_MODE", fla_cache_module.FlaCacheMode.DISABLED)
    (layer, ) = load_function(FLA_KERNELS, "fla_kernel")[1]["decorators"]
    assert layer["kind"] == "autotune"
    assert layer["fla_cache_gate"] is True  # the C++ side checks FLA_CACHE_MODE again
    assert [c["repr"].split(",")[0] for c in layer["configs"]] == ["BLOCK: 64", "BLOCK: 128"]


def test_fla_cached_autotuner_runs_in_python_with_its_mode_on(fla_cache_module, monkeypatch):
    monkeypatch.setattr(fla_cache_module, "FLA_CACHE_MODE", fla_cache_module.FlaCacheMode.STRICT)
    (layer, ) = load_function(FLA_KERNELS, "fla_kernel")[1]["decorators"]
    assert layer["kind"] == "python"
    assert layer["class"] == "fla.ops.utils.cache.CachedAutotuner"
    assert "FLA_CACHE_MODE is on" in layer["reason"]


def test_a_cached_autotuner_that_overrides_more_is_not_recognised(fla_cache_module, kernels):
    base = kernels.plain_subclass_kernel
    cls = type("CachedAutotuner", (fla_cache_module.CachedAutotuner, ), {"prune_configs": lambda self, kw: []})
    cls.__module__ = "fla.ops.utils.cache"
    obj = cls(base.fn, base.fn.arg_names, base.configs, ["n"], None, None)
    assert wrappers.wrapper_kind(obj).name == "python"

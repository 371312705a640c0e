"""Wrappers the runtime does not emulate, from the Python package (tests/kernels/run_overrides.py):
triton_jit.jit of an Autotuner subclass whose run always picks the last config runs that run
through Python, with the caller's arguments and a grid callable that sees what the wrapper chose,
and counts it in stats(); specialize() says it cannot predict the wrapper. The wrapper records
what it got and stops before Triton's launch (no GPU needed)."""
import importlib.util
import json
import os
import sys

import pytest
import triton

import triton_jit
from conftest import CudaArray

KERNELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernels", "run_overrides.py")


@pytest.fixture(scope="module")
def run_overrides():
    spec = importlib.util.spec_from_file_location("run_overrides_package_test", KERNELS)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def record(tmp_path, monkeypatch):
    path = tmp_path / "record.jsonl"
    monkeypatch.setenv("TRITON_JIT_TEST_WRAPPER_RECORD", str(path))
    monkeypatch.setenv("TRITON_JIT_TEST_WRAPPER_NO_LAUNCH", "1")
    return lambda: [json.loads(line) for line in path.read_text().splitlines()]


def test_subclass_overriding_run_runs_its_own_run(run_overrides, record):
    k = triton_jit.jit(run_overrides.last_config_kernel)
    assert k.arg_names == ["x_ptr", "out_ptr", "n"]  # BLOCK: set by its configs
    x, out = CudaArray(0x7f0000100000, "fp32", (1000, )), CudaArray(0x7f0000200000, "i32", (64, ))
    k[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]), )](x, out, 1000)
    (line, ) = record()
    assert line["wrapper"] == "LastConfigAutotuner"
    assert line["chosen"].startswith("BLOCK: 128")  # the last config; the base would time both
    assert line["grid"] == [8, 1, 1]
    assert k.stats()["python_wrapper_calls"] == 1
    assert k.stats()["tunings"] == 0
    with pytest.raises(triton_jit.ArgumentError, match="cannot predict it"):
        k.specialize(x, out, 1000)


def test_unknown_wrapper_gets_launch_options_by_name(run_overrides, record):
    k = triton_jit.jit(run_overrides.block_wrapper_kernel)
    x, out = CudaArray(0x7f0000100000, "fp32", (1000, )), CudaArray(0x7f0000200000, "i32", (64, ))
    k[(3, )](x, out, 1000, num_warps=2)
    (line, ) = record()
    assert line["wrapper"] == "BlockWrapper" and line["chosen"] == 256
    assert line["kwargs"] == {"num_warps": "2"}
    assert line["grid"] == [3, 1, 1]

"""FlagGems' LibTuner (flag_gems/utils/libentry.py of FlagGems 5.0.2, loaded without a GPU by
tests/support/flaggems_stub.py) emulated by the runtime: recognised by class, its strategies
named, and its key computed in C++ exactly as FlagGems' own get_key computes it, checked through
FlagGems' own tuning database: FlagGems' SQLPersistantModel writes a config for its key, and the
runtime, describing the same call from C++, must find that very row (a different key, a different
type of a key column or a different table name finds nothing and fails). A database that is
corrupt, locked or of another schema is a warning and a fallback to tuning, never a crash."""
import os
import random
import sqlite3
import tempfile

import pytest

import flaggems_stub

try:
    import torch
except ImportError:
    torch = None
WHY = flaggems_stub.available() or (None if torch is not None else "torch is not installed")
# Per test, not for the module: a module skipped whole is pytest's exit 5, which CTest counts as failed.
pytestmark = pytest.mark.skipif(WHY is not None, reason=f"FlagGems' LibTuner tests skipped: {WHY}")

# pytest: own process (FlagGems opens its tuning database when its libentry is imported, and this
# file points it at a database of its own first: another file's import would have opened another)
# FlagGems opens its database when libentry is imported: the test's own file, before that.
DB_DIR = tempfile.mkdtemp(prefix="tj-libtuner-")
DB_PATH = os.path.join(DB_DIR, "flaggems.db")
if WHY is None:
    os.environ["FLAGGEMS_DB_URL"] = f"sqlite:///{DB_PATH}"
    import triton

    import libtuner_kernels as lk
    import triton_jit
    from conftest import CudaArray
    KERNELS = lk.__file__
    DTYPES = [("fp16", torch.float16), ("fp32", torch.float32), ("fp64", torch.float64)]

ADDRESS = 1 << 20


class Tensor:
    """What FlagGems' get_key reads of a tensor: its dtype."""

    def __init__(self, dtype):
        self.dtype = dtype


def libtuner_module():
    """The bridge's module the runtime uses (triton_jit_bridge/libtuner.py, embedded)."""
    import importlib

    from triton_jit._bridge import runtime_bridge
    return importlib.import_module(runtime_bridge().__name__ + ".libtuner")


def describe(tuner):
    return libtuner_module().describe_libtuner(tuner, tuner.fn, lambda obj, fn: {})


def block_of(spec):
    return spec.params[-1][2]


def test_recognised_by_class_not_as_a_plain_autotune():
    lt = libtuner_module()
    assert lt.is_libtuner(lk.mixed) and lt.is_libtuner(lk.custom_policy)
    plain = triton.autotune(configs=lk.CONFIGS, key=["M"])(lk._body)
    assert not lt.is_libtuner(plain)
    assert lt.FLAGGEMS_VERSION == flaggems_stub.FLAGGEMS_VERSION == "5.0.2"

    class OwnRun(lk.LibTuner):  # overrides run: another wrapper, never emulated as LibTuner
        def run(self, *args, **kwargs):
            return super().run(*args, **kwargs)

    own = OwnRun(lk._body, lk._body.arg_names, lk.CONFIGS, ["M"], None, None, strategy="default")
    assert not lt.is_libtuner(own)


def test_strategies_policy_and_tables_as_flaggems_names_them():
    d = describe(lk.mixed)
    assert d["kind"] == "libtuner"
    assert d["strategies"] == ["default", "log", "align32"]
    assert describe(lk.logged)["strategies"] == ["log"]
    assert describe(lk.bucketed)["strategies"] == [""]  # a Python function: run through Python
    assert d["policy"] == "default"
    assert describe(lk.custom_policy)["policy"] != "default"
    assert d["config_table"] == lk.mixed.config_table_name
    assert (d["triton_major"], d["triton_minor"]) == (lk.libentry.major_version, lk.libentry.minor_version)
    # FlagGems' own model creates the table for a key of five columns: the bridge's name for it.
    key = lk.mixed.get_key({"x_ptr": Tensor(torch.float16), "out_ptr": Tensor(torch.float16), "M": 3, "N": 5, "K": 7})
    assert len(key) == 5
    lk.libentry.libcache.model.put_config(lk.mixed.config_table_name, key, lk.CONFIGS[0])
    with sqlite3.connect(DB_PATH) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert d["tables"][5] in tables
    assert d["config_columns"][1] == [{"name": "BLOCK", "type": "int", "value": 64},
                                      {"name": "num_warps", "type": "int", "value": 2},
                                      {"name": "num_ctas", "type": "int", "value": 1},
                                      {"name": "num_stages", "type": "int", "value": 3}]


def _values(rng):
    return rng.choice([1, 2, 3, 31, 32, 33, 63, 64, 65, 100, 1000, 1023, 1024, 1025, 4096, 65537, 2**31 + 5,
                       rng.randrange(1, 1 << 40)])



def test_key_parity_with_flaggems_get_key():
    """Random calls: FlagGems stores a config under its get_key; C++ must pick that config."""
    rng = random.Random(22)
    k = triton_jit.kernel(KERNELS, "mixed")
    chosen = {}
    for _ in range(120):
        M, N, K = _values(rng), _values(rng), _values(rng)
        if rng.random() < 0.2:
            N = rng.choice([0.3, 0.26, 1.5, 700.25])  # log of a float: 2 ** ceil(log2), a float below 1
        if rng.random() < 0.2:
            K = rng.choice([0.5, 31.9, 32.0, 1e6 + 0.5])
        (xs, xt), (os_, ot) = rng.choice(DTYPES), rng.choice(DTYPES)
        key = lk.mixed.get_key({"x_ptr": Tensor(xt), "out_ptr": Tensor(ot), "M": M, "N": N, "K": K})
        if key not in chosen:
            chosen[key] = rng.randrange(len(lk.CONFIGS))
            lk.libentry.libcache[lk.mixed.config_table_name][key] = lk.CONFIGS[chosen[key]]
        spec = k.specialize(CudaArray(ADDRESS, xs), CudaArray(ADDRESS, os_), M, N, K)
        want = lk.CONFIGS[chosen[key]]
        assert (block_of(spec), spec.num_warps) == (str(want.kwargs["BLOCK"]), want.num_warps), (M, N, K, key)
    assert len(set(chosen)) > 50


def test_python_strategy_runs_through_python_memoized():
    k = triton_jit.kernel(KERNELS, "bucketed")
    for M in (0, 1, 17, 99, 100, 5000, 10**6):
        key = lk.bucketed.get_key({"x_ptr": Tensor(torch.float32), "out_ptr": Tensor(torch.float32), "M": M})
        index = lk.bucket(M) % len(lk.CONFIGS)
        lk.libentry.libcache[lk.bucketed.config_table_name][key] = lk.CONFIGS[index]
        spec = k.specialize(CudaArray(ADDRESS, "fp32"), CudaArray(ADDRESS, "fp32"), M)
        assert block_of(spec) == str(lk.CONFIGS[index].kwargs["BLOCK"])


def test_no_config_in_the_database_asks_for_tuning():
    k = triton_jit.kernel(KERNELS, "logged")
    with pytest.raises(triton_jit.ArgumentError, match="no tuning result"):
        k.specialize(CudaArray(ADDRESS, "fp16"), CudaArray(ADDRESS, "fp16"), 123457)


def test_custom_policy_uses_the_database_and_a_miss_asks_for_tuning():
    # The policy itself runs through Python when a launch tunes (tests/cpu/lib_tuner_test.cpp,
    # LibTunerDatabase); a call that only describes cannot time, as for the default policy.
    k = triton_jit.kernel(KERNELS, "custom_policy")
    key = lk.custom_policy.get_key({"x_ptr": Tensor(torch.float16), "out_ptr": Tensor(torch.float16), "M": 77})
    lk.libentry.libcache[lk.custom_policy.config_table_name][key] = lk.CONFIGS[3]
    assert block_of(k.specialize(CudaArray(ADDRESS, "fp16"), CudaArray(ADDRESS, "fp16"), 77)) == "256"
    with pytest.raises(triton_jit.ArgumentError, match="no tuning result"):
        k.specialize(CudaArray(ADDRESS, "fp16"), CudaArray(ADDRESS, "fp16"), 78)


def test_benchmark_tables_as_flaggems_names_them():
    d = describe(lk.logged)
    key = lk.logged.get_key({"x_ptr": Tensor(torch.float16), "out_ptr": Tensor(torch.float16), "M": 9})
    lk.libentry.libcache[lk.logged.benchmark_table_name, key][lk.CONFIGS[1]] = (1.0, 0.5, 1.5)
    with sqlite3.connect(DB_PATH) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert d["benchmark_tables"][d["benchmark_table_of_config"][1]][len(key)] in tables
    assert d["benchmark_table_of_config"] == [0, 0, 0, 0]  # the same column names: one table


def _with_database(path, fn):
    old = os.environ["FLAGGEMS_DB_URL"]
    os.environ["FLAGGEMS_DB_URL"] = f"sqlite:///{path}"
    try:
        return fn()
    finally:
        os.environ["FLAGGEMS_DB_URL"] = old


def _describe_miss(k, M):
    with pytest.raises(triton_jit.ArgumentError, match="no tuning result"):
        k.specialize(CudaArray(ADDRESS, "fp16"), CudaArray(ADDRESS, "fp16"), M)


def test_corrupt_database_is_a_warning_and_a_fallback(capfd):
    path = os.path.join(DB_DIR, "corrupt.db")
    with open(path, "wb") as f:
        f.write(b"this is not a database" * 100)
    _with_database(path, lambda: _describe_miss(triton_jit.kernel(KERNELS, "logged"), 5001))
    assert "warning" in capfd.readouterr().err


def test_foreign_schema_is_a_warning_and_a_fallback(capfd):
    path = os.path.join(DB_DIR, "foreign.db")
    table = describe(lk.logged)["tables"][3]  # log(M), then two dtypes
    with sqlite3.connect(path) as db:
        db.execute(f'CREATE TABLE "{table}" (other INTEGER PRIMARY KEY, value VARCHAR)')
    _with_database(path, lambda: _describe_miss(triton_jit.kernel(KERNELS, "logged"), 6001))
    assert "warning" in capfd.readouterr().err


def test_locked_database_is_a_warning_after_the_busy_timeout(capfd):
    path = os.path.join(DB_DIR, "locked.db")
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (a INTEGER)")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        _with_database(path, lambda: _describe_miss(triton_jit.kernel(KERNELS, "logged"), 7001))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "warning" in capfd.readouterr().err

"""FlagGems' LibTuner (flag_gems/utils/libentry.py, FlagGems 5.0.2): an Autotuner subclass whose
tuning key applies a strategy to each key argument and whose choices live in FlagGems' SQLite
tuning database. Recognised by class, without importing flag_gems: the runtime emulates it, so it
must never be taken for a plain triton.autotune (whose key and store differ)."""

import hashlib

FLAGGEMS_VERSION = "5.0.2"  # the release whose LibTuner this module describes
LIBENTRY_MODULE = "flag_gems.utils.libentry"

# FlagGems' own strategies, which the runtime computes in C++: name -> function name in libentry.
_BUILTIN_STRATEGIES = {"default": "default_strategy", "log": "log2_strategy", "align32": "align32_strategy"}


def _libtuner_class(obj):
    for cls in type(obj).__mro__:
        if cls.__name__ == "LibTuner" and cls.__module__ == LIBENTRY_MODULE:
            return cls
    return None


def is_libtuner(obj):
    """Whether `obj` is a FlagGems LibTuner the runtime emulates: its class derives from LibTuner
    and keeps LibTuner's own run and get_key (a subclass that overrides them is another wrapper)."""
    base = _libtuner_class(obj)
    if base is None:
        return False
    cls = type(obj)
    return cls.run is base.run and cls.get_key is base.get_key


def _strategy_name(function):
    """'default', 'log' or 'align32' for FlagGems' own strategies; '' for any other function."""
    for name, qualname in _BUILTIN_STRATEGIES.items():
        if getattr(function, "__module__", None) == LIBENTRY_MODULE and getattr(function, "__qualname__", None) == qualname:
            return name
    return ""


def _policy_name(obj):
    """'default' when the tuner's policy is FlagGems' default_policy (time every config, keep the
    fastest), else the class name of the custom policy (run through Python)."""
    import inspect
    policy = type(obj).policy
    try:
        impl = inspect.getclosurevars(policy).nonlocals.get("policy_impl")
    except TypeError:
        impl = None
    if (impl is not None and getattr(impl, "__module__", None) == LIBENTRY_MODULE
            and getattr(impl, "__qualname__", None) == "default_policy"):
        return "default"
    registered = [name for name, cls in getattr(type(obj), "_dispatch_table", {}).items() if cls is type(obj)]
    name = registered[0] if registered else type(obj).__qualname__
    return name if name != "default" else f"default (replaced by {type(obj).__qualname__})"


def _column(value):
    # Python's type decides SQLAlchemy's column type: bool before int (bool is an int).
    for kind, types in (("bool", bool), ("int", int), ("float", float), ("str", str)):
        if isinstance(value, types):
            return {"type": kind, "value": value}
    return None


def config_columns(config):
    """The columns FlagGems' SQLPersistantModel.get_config_dict writes for a config, in order."""
    out = []
    for name, value in config.all_kwargs().items():
        if isinstance(value, (int, float, str)):
            column = _column(value)
            out.append({"name": name, **column})
    return out


def config_table_names(obj, max_columns):
    """The SQL table of the tuner's configs for each number of key columns 0..max_columns, named
    as SQLPersistantModel.get_sql_model names it: '{config_table_name}-{md5(key names)}'."""
    names = []
    for n in range(max_columns + 1):
        keys = "".join(f"key_{i}" for i in range(n))
        names.append("{}-{}".format(obj.config_table_name, hashlib.md5(keys.encode()).hexdigest()))
    return names


def benchmark_tables(obj, max_keys):
    """FlagGems' benchmark tables (BenchmarkCache: p50, p20, p80 of each timed config, keyed by the
    key columns and the config's columns), named as SQLPersistantModel.get_sql_model names them:
    '{name}_{cache_key}_benchmark-{md5(key names + config column names)}'. The names depend only on
    the config's column names, which most configs share: returns (names, index) where names[i][n]
    is the table for n key columns and index[c] the i of config c."""
    prefix = f"{obj.__name__}_{obj.cache_key}_benchmark"
    names, index, seen = [], [], {}
    for config in obj.configs:
        columns = "".join(c["name"] for c in config_columns(config))
        if columns not in seen:
            seen[columns] = len(names)
            names.append([
                "{}-{}".format(prefix, hashlib.md5(("".join(f"key_{i}" for i in range(n)) + columns).encode()).hexdigest())
                for n in range(max_keys + 1)
            ])
        index.append(seen[columns])
    return names, index


def _vendor(obj):
    import sys
    for holder in (type(obj).__module__, LIBENTRY_MODULE):
        module = sys.modules.get(holder)
        vendor_module = getattr(module, "vendor_module", None)
        if vendor_module is not None:
            return str(vendor_module.vendor_info.vendor_name)
    return "nvidia"


def describe_libtuner(obj, fn, describe_autotune):
    """The autotune layer of a LibTuner (its configs, key, hooks, as for triton.autotune) and what
    only LibTuner has: per key argument its strategy, the policy, the database's table names and
    columns, and the Triton major/minor FlagGems puts in the database's file name."""
    import triton
    layer = describe_autotune(obj, fn)
    layer["kind"] = "libtuner"
    layer["strategies"] = [_strategy_name(s) for s in obj.strategy]
    layer["policy"] = _policy_name(obj)
    layer["config_table"] = obj.config_table_name
    layer["tables"] = config_table_names(obj, len(obj.keys) + len(fn.params))
    layer["config_columns"] = [config_columns(c) for c in obj.configs]
    layer["benchmark_tables"], layer["benchmark_table_of_config"] = benchmark_tables(obj, len(obj.keys) + len(fn.params))
    major, minor = (int(p) for p in triton.__version__.split(".")[:2])
    layer["triton_major"], layer["triton_minor"] = major, minor
    layer["vendor"] = _vendor(obj)
    return layer


def strategy_callable(tuner, index):
    """The tuner's strategy number `index` (a Python function) as a heuristic the runtime calls
    (with the arguments as a mapping), memoized per value of the key argument it reads."""
    strategy, name = tuner.strategy[index], tuner.keys[index]
    return lambda args: strategy(args[name])


def _config_index(tuner, config):
    """The index in tuner.configs of a config a policy hands back: the object itself, else the
    first whose all_kwargs() are equal (as LibTuner.run finds the original config)."""
    for i, c in enumerate(tuner.configs):
        if c is config:
            return i
    wanted = config.all_kwargs()
    for i, c in enumerate(tuner.configs):
        if c.all_kwargs() == wanted:
            return i
    raise ValueError(f"the policy returned {config}, which is none of the kernel's configs")


def run_libtuner_policy(top, layer, names, values, num_passed, kept, bench):
    """Runs the LibTuner's own policy, as LibTuner.run calls it on a tuning miss:
    policy(bench_fn, pruned_configs, args, kwargs) with the caller's arguments as `args` (the
    first `num_passed` values) and what outer wrappers set as `kwargs`; bench_fn(config) is the
    runtime's timing of that config (FlagGems' benchmark table first), a list [p50, p20, p80].
    Returns the chosen config's index."""
    from .autotune import _autotuner_at
    tuner = _autotuner_at(top, layer)
    args = tuple(values[:num_passed])
    kwargs = dict(zip(names[num_passed:], values[num_passed:]))
    configs = [tuner.configs[i] for i in kept]

    def bench_fn(config):
        return list(bench(_config_index(tuner, config)))

    best, _timings = tuner.policy(bench_fn, configs, args, kwargs)
    return _config_index(tuner, best)

"""Triton's own autotuning cache (Autotuner.check_disk_cache, cache_results=True) and the pruning
of an Autotuner's configs."""

import ast
import hashlib
import json

from .targets import _gpu_target, _make_backend


# The same file under the same key as Triton's: a Python process and the runtime each use what
# the other tuned. Triton hashes str(tuning_key); the runtime's key repr is that string.


def _autotuner_at(top, layer):
    obj = top
    for _ in range(layer):
        obj = obj.fn
    return obj


def _autotune_cache_file(tuner, key_repr, target):
    from triton._C.libtriton import get_cache_invalidating_env_vars
    from triton.runtime.cache import get_cache_manager
    from triton.runtime.jit import JITFunction
    try:
        from triton.runtime.cache import triton_key  # 3.5 and newer
    except ImportError:
        from triton.compiler.compiler import triton_key  # 3.4
    env_vars = get_cache_invalidating_env_vars()
    fn = tuner.fn
    while not isinstance(fn, JITFunction):
        fn = fn.fn
    parts = [triton_key(), _make_backend(_gpu_target(target)).hash(), fn.cache_key, str(sorted(env_vars.items())), key_repr]
    parts += [str(c) for c in tuner.configs]
    cache_key = hashlib.sha256("-".join(parts).encode("utf-8")).hexdigest()
    return get_cache_manager(cache_key), f"{fn.__name__[:150]}.autotune.json"


def autotune_cache_lookup(top, layer, key_repr, target):
    """The index of the config Triton's cache holds as fastest for this key, or None."""
    tuner = _autotuner_at(top, layer)
    cache, name = _autotune_cache_file(tuner, key_repr, target)
    path = cache.get_file(name)
    if not path:
        return None
    from triton import Config
    with open(path) as f:
        timings = {str(Config(**config)): timing for config, timing in json.load(f)["configs_timings"]}
    if not timings:
        return None
    best = min(timings, key=timings.get)
    names = [str(c) for c in tuner.configs]
    return names.index(best) if best in names else None


def autotune_cache_store(top, layer, key_repr, target, timings):
    """Writes the runtime's timings (one [median, p20, p80] per config, inf where it failed,
    negative for a config pruned before timing) as Triton's autotuner writes them."""
    tuner = _autotuner_at(top, layer)
    cache, name = _autotune_cache_file(tuner, key_repr, target)
    key = list(ast.literal_eval(key_repr))
    timed = [(c.__dict__, list(t)) for c, t in zip(tuner.configs, timings) if not c.pre_hook and t[0] >= 0]
    cache.put(json.dumps({"key": key, "configs_timings": timed}), name, binary=False)


def prune_autotune_configs(top, layer, names, values):
    """The indices of the configs Triton's Autotuner.prune_configs keeps for a call whose caller
    arguments are names=values (tensors as TensorArg): early_config_prune, then perf_model with
    top_k, run through Triton's own method."""
    tuner = _autotuner_at(top, layer)
    tuner.nargs = dict(zip(names, values))
    try:
        kept = tuner.prune_configs({})
    finally:
        tuner.nargs = None
    reprs = [str(c) for c in tuner.configs]
    out = []
    for config in kept:
        text = str(config)
        if text not in reprs:
            raise ValueError(f"prune_configs_by returned a config the autotuner does not have: {text}")
        out.append(reprs.index(text))
    return out

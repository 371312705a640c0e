"""flash-linear-attention's CachedAutotuner (fla/ops/utils/cache.py, `fla_cache_autotune`, read
as fla-core 0.6.0 writes it), which wraps about 60 of fla's kernels.

Its `run` builds a key (AutotuneKey.build) and, when fla's FLA_CACHE_MODE (read from the
environment when fla is imported) is not "disabled", may put a config read from
`$FLA_CONFIG_DIR/<kernel>.json` (or fla/configs/<GPU>/) into the Autotuner's cache before calling
Autotuner.run: exact or fuzzy key matches, a default_config fallback, early_config_prune run on
the JSON config, and in "always" mode the file read again on every call. That config need not be
one of the autotuner's configs, and which one applies depends on files read at call time, so it
is not emulated: with a mode on, each call runs fla's own run through Python.

With the mode off (the default), `should_check_fla_cache` is False and run is Autotuner.run
exactly; its other change, pre_hook and post_hook for reset_to_zero and restore_value that skip
None arguments, is what the runtime does for them already. So the layer is described as Triton's
autotune, marked `fla_cache_gate`: the C++ side checks FLA_CACHE_MODE in its own environment when
it sets the function up (decorators/python_wrapper.h), so a signature read back from the index or
a pack in a process with a mode on runs through Python too, never as plain autotune.
"""

FLA_MODULE = "fla.ops.utils.cache"
FLA_CLASS = "CachedAutotuner"
FLA_VERSION_READ = "0.6.0"  # the fla-core release whose cache.py this follows
# What CachedAutotuner overrides of Triton's Autotuner in that release: only run. A later release
# that overrides more is not recognised here, and runs through Python as any unknown subclass.
_OVERRIDES_READ = ["run"]


def is_fla_cached_autotuner(obj):
    from triton.runtime.autotuner import Autotuner
    from .wrappers import overridden
    cls = type(obj)
    return (cls.__module__ == FLA_MODULE and cls.__qualname__ == FLA_CLASS and isinstance(obj, Autotuner)
            and overridden(obj, Autotuner) == _OVERRIDES_READ)


def _mode_on(obj):
    import sys
    mode = getattr(sys.modules.get(type(obj).__module__), "FLA_CACHE_MODE", None)
    return getattr(mode, "value", "disabled") != "disabled"


def describe_fla_cached_autotuner(obj, fn):
    from .wrappers import describe_python_wrapper
    if _mode_on(obj):
        layer = describe_python_wrapper(obj, fn)
        layer["reason"] = "fla's FLA_CACHE_MODE is on: its configs come from fla's JSON config files"
        return layer
    from .loading import _describe_autotune
    layer = _describe_autotune(obj, fn)
    layer["fla_cache_gate"] = True
    return layer

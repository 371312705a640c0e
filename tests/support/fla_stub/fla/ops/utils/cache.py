"""The shape of fla's fla/ops/utils/cache.py for the runtime's tests (README.md beside fla/)."""
import enum
import json
import os

from triton.runtime.autotuner import Autotuner


class FlaCacheMode(enum.Enum):
    DISABLED = "disabled"
    STRICT = "strict"
    FUZZY = "fuzzy"
    FULL = "full"
    DEFAULT = "default"
    ALWAYS = "always"


# Read once, when the module is imported, as fla does.
FLA_CACHE_MODE = FlaCacheMode(os.environ.get("FLA_CACHE_MODE", FlaCacheMode.DISABLED.value))


class CachedAutotuner(Autotuner):

    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs):
        super().__init__(fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs)
        self.kernel_name = fn.__name__

    def run(self, *args, **kwargs):
        if FLA_CACHE_MODE is not FlaCacheMode.DISABLED:
            # fla: a config from $FLA_CONFIG_DIR/<kernel>.json put in self.cache under the key.
            config = self.configs[-1]
            path = os.environ.get("TRITON_JIT_TEST_WRAPPER_RECORD")
            if path:
                with open(path, "a") as f:
                    f.write(json.dumps({"wrapper": "CachedAutotuner", "mode": FLA_CACHE_MODE.value,
                                        "chosen": str(config)}) + "\n")
            if os.environ.get("TRITON_JIT_TEST_WRAPPER_NO_LAUNCH") == "1":
                return None
            return self.fn.run(*args, **kwargs, **config.all_kwargs())
        return super().run(*args, **kwargs)


def fla_cache_autotune(configs, key=None, reset_to_zero=None, restore_value=None):

    def decorator(fn):
        return CachedAutotuner(fn, fn.arg_names, configs, key or [], reset_to_zero, restore_value)

    return decorator

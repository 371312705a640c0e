"""FlagGems' own LibEntry (flag_gems/utils/libentry.py of FlagGems 5.0.2), run without a GPU, as
the reference of the runtime's LibEntry (src/decorators/lib_entry.h).

`import flag_gems` needs a GPU, so this module loads FlagGems' libentry.py alone, as the module
`flag_gems.utils.libentry` (the name the runtime recognises its class by), with stand-ins for what
it imports of FlagGems' device runtime (flaggems_stub.stub_device_runtime, the stand-in the
LibTuner tests use too): `flag_gems.runtime` (two devices), `torch_device_fn` (current_device,
settable by set_device), `vendor_module`, `code_cache` and `models` (no tuning database: LibEntry
never touches it). The file comes from FLAGGEMS_LIBENTRY_PY, else the installed FlagGems
(requirements-replay.txt; found by flaggems_stub.installed_root without running its __init__); its
bytes are checked against the 5.0.2 wheel's RECORD hash.

Loaded by tests/kernels/libentry_kernels.py (kernels written as FlagGems writes them) and by
tests/cpu/libentry_test.cpp (the reference calls).
"""

import base64
import hashlib
import importlib.util
import os
import sys
from pathlib import Path

# The wheel's RECORD hash of flag_gems/utils/libentry.py (urlsafe base64 of its sha256).
LIBENTRY_RECORD_SHA256 = "ki3sV3boh__pIFr5wYD1MM9nnUvRQLQZcZs4P1n4HuA"

_HERE = Path(__file__).resolve().parent


sys.path.insert(0, str(_HERE))
try:
    import flaggems_stub
finally:
    sys.path.pop(0)
FLAGGEMS_VERSION = flaggems_stub.FLAGGEMS_VERSION

# Found before this module puts its stand-in flag_gems package into sys.modules.
_INSTALLED_ROOT = flaggems_stub.installed_root()


def libentry_source():
    if os.environ.get("FLAGGEMS_LIBENTRY_PY"):
        return Path(os.environ["FLAGGEMS_LIBENTRY_PY"])
    if _INSTALLED_ROOT is None:
        raise FileNotFoundError(f"FlagGems {FLAGGEMS_VERSION} is not installed: pip install --no-deps -r "
                                "requirements-replay.txt (scripts/setup.sh does), or set FLAGGEMS_LIBENTRY_PY")
    return Path(_INSTALLED_ROOT) / "flag_gems" / "utils" / "libentry.py"


def record_hash(path):
    return base64.urlsafe_b64encode(hashlib.sha256(Path(path).read_bytes()).digest()).rstrip(b"=").decode()


set_device = flaggems_stub.set_device


def load(device_count=2):
    """flag_gems.utils.libentry: FlagGems' own module, over the stand-ins."""
    name = "flag_gems.utils.libentry"
    if name in sys.modules and getattr(sys.modules[name], "LibEntry", None) is not None:
        return sys.modules[name]
    flaggems_stub.stub_device_runtime(None, device_count=device_count, device_name="stub device", store=False)
    spec = importlib.util.spec_from_file_location(name, str(libentry_source()))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


libentry = load().libentry
LibEntry = load().LibEntry


# ---- the reference calls ------------------------------------------------------------------------


class _KeyTaken(Exception):
    pass


def entry_keys(obj, calls):
    """LibEntry's key of each call (args, kwargs) by FlagGems' own run(): for each call, the index of
    the first call whose key is equal (as a dict of LibEntry's kernel_cache finds it)."""
    seen = {}
    out = []
    for args, kwargs in calls:
        taken = []

        def key(spec_args, dns_args, const_args, _taken=taken):
            _taken.append(LibEntry.key(obj, spec_args, dns_args, const_args))
            raise _KeyTaken()

        obj.key = key
        try:
            obj.run(*args, grid=(1, ), warmup=False, **kwargs)
        except _KeyTaken:
            pass
        finally:
            del obj.key
        out.append(seen.setdefault(taken[0], len(out)))
    return out


def _pad_grid(grid):
    grid = tuple(grid) + (1, 1)
    return [int(g) for g in grid[:3]]


class _FrozenKernel:
    """Stands for the CompiledKernel JITFunction.run returns: what it was built with, and the
    launches LibEntry makes of it on later calls (kernel[grid](*all_args))."""

    def __init__(self, specialization, num_warps, num_stages, launches):
        self.specialization, self.num_warps, self.num_stages = specialization, num_warps, num_stages
        self._launches = launches

    def __getitem__(self, grid):
        def launch(*all_args):
            self._launches.append((self.specialization, self.num_warps, self.num_stages, _pad_grid(grid), "hit"))
        return launch


def libentry_launches(obj, calls, grid, pick=0, reset=True):
    """Runs FlagGems' LibEntry.run on each call (args, kwargs, device) with the chain below it as
    Triton runs it, timing replaced by a fixed choice (config `pick`) and JITFunction.run by a
    stand-in that records Triton's specialization and grid instead of compiling. Returns one
    (specialization repr, num_warps, num_stages, grid, "first" or "hit") per call."""
    import triton_reference
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction
    inner, tuners = obj, []
    while not isinstance(inner, JITFunction):
        if isinstance(inner, Autotuner):
            tuners.append(inner)
        inner = inner.fn
    launches = []

    def run(*args, grid, warmup, **kwargs):
        options = {k: v for k, v in kwargs.items() if k not in ("num_warps", "num_stages", "num_ctas")}
        bound, specialization, launch_options = triton_reference.binder(inner)(*args, **kwargs)
        num_warps = kwargs.get("num_warps", 4)
        num_stages = kwargs.get("num_stages", 3)
        del options, launch_options
        if callable(grid):
            grid = grid(dict(bound))
        launches.append((repr(specialization), num_warps, num_stages, _pad_grid(grid), "first"))
        return _FrozenKernel(repr(specialization), num_warps, num_stages, launches)

    inner.run = run  # the instance attribute shadows the method
    if reset:
        for cache in obj.kernel_cache:
            cache.clear()
        for t in tuners:
            t.cache.clear()
    for t in tuners:
        t._bench = lambda *a, config, _t=t, **meta: [0.0 if _t.configs.index(config) == pick else 1.0] * 3
    try:
        for args, kwargs, device in calls:
            set_device(device)
            obj.run(*args, grid=grid, warmup=False, **kwargs)
    finally:
        del inner.run
        for t in tuners:
            del t._bench
        set_device(0)
    return launches

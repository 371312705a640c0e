"""FlagGems' own flag_gems/utils/libentry.py (and the modules it imports: code_cache, models) loaded
without a GPU: `import flag_gems` needs one, so its device runtime is replaced by stand-ins (one
device, a device name the test picks, vendor nvidia) and the rest is FlagGems' code as shipped.

Where FlagGems lives: TRITON_JIT_FLAGGEMS_SRC (a folder holding flag_gems/, default /tmp/fg, the
unpacked 5.0.2 wheel); SQLAlchemy, which its models import: TRITON_JIT_FLAGGEMS_SITE (default
/tmp/fgsite), appended to sys.path. `available()` says why not when either is missing, for a
visible skip."""
import importlib.util
import os
import sys
import types

FLAGGEMS_VERSION = "5.0.2"
SOURCE = os.environ.get("TRITON_JIT_FLAGGEMS_SRC", "/tmp/fg")
SITE = os.environ.get("TRITON_JIT_FLAGGEMS_SITE", "/tmp/fgsite")
DEVICE_NAME = "NVIDIA H100 80GB HBM3"


def available():
    """None when FlagGems' libentry can be loaded here, else why not."""
    if not os.path.isfile(os.path.join(SOURCE, "flag_gems", "utils", "libentry.py")):
        return f"FlagGems {FLAGGEMS_VERSION}'s source is not in {SOURCE} (set TRITON_JIT_FLAGGEMS_SRC)"
    if SITE not in sys.path and os.path.isdir(SITE):
        sys.path.append(SITE)
    try:
        import sqlalchemy  # noqa: F401
    except ImportError:
        return f"sqlalchemy is not importable (set TRITON_JIT_FLAGGEMS_SITE; tried {SITE})"
    return None


def _package(name, path=None):
    module = types.ModuleType(name)
    module.__path__ = [path] if path else []
    sys.modules[name] = module
    return module


def _file(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load(device_name=DEVICE_NAME):
    """FlagGems' libentry module (flag_gems.utils.libentry); loaded once per process."""
    if "flag_gems.utils.libentry" in sys.modules:
        return sys.modules["flag_gems.utils.libentry"]
    why = available()
    if why:
        raise ImportError(why)
    root = os.path.join(SOURCE, "flag_gems")
    _package("flag_gems", root)
    runtime = _package("flag_gems.runtime")
    runtime.device = types.SimpleNamespace(device_count=1)
    runtime.torch_device_fn = types.SimpleNamespace(get_device_name=lambda: device_name, current_device=lambda: 0)
    backend = _package("flag_gems.runtime.backend")
    backend.vendor_module = types.SimpleNamespace(
        vendor_info=types.SimpleNamespace(vendor_name="nvidia", device_name="cuda"))
    _package("flag_gems.utils", os.path.join(root, "utils"))
    _file("flag_gems.utils.code_cache", os.path.join(root, "utils", "code_cache.py"))
    _package("flag_gems.utils.models", os.path.join(root, "utils", "models"))
    for name in ("model", "session", "sql"):
        _file(f"flag_gems.utils.models.{name}", os.path.join(root, "utils", "models", f"{name}.py"))
    _file("flag_gems.utils.models", os.path.join(root, "utils", "models", "__init__.py"))
    return _file("flag_gems.utils.libentry", os.path.join(root, "utils", "libentry.py"))

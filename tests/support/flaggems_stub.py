"""FlagGems' own flag_gems/utils/libentry.py (and the modules it imports: code_cache, models) loaded
without a GPU: `import flag_gems` needs one, so its device runtime is replaced by stand-ins (one
device, a device name the test picks, vendor nvidia) and the rest is FlagGems' code as shipped.
The one stand-in of FlagGems' device runtime: flaggems_libentry.py (LibEntry's reference calls)
uses stub_device_runtime too, without the database.

Where FlagGems lives: TRITON_JIT_FLAGGEMS_SRC (a folder holding flag_gems/), else where the
installed package is (requirements-replay.txt installs FlagGems 5.0.2 into the test virtualenv;
found without running its __init__). SQLAlchemy, which its models import, comes from the
virtualenv too (TRITON_JIT_FLAGGEMS_SITE adds a folder to sys.path). `available()` says why not
when either is missing, for a visible skip."""
import importlib.util
import os
import sys
import types

FLAGGEMS_VERSION = "5.0.2"


def installed_root():
    """The folder holding the installed flag_gems package, or None. find_spec locates a top-level
    package without importing it (its __init__ needs a GPU)."""
    module = sys.modules.get("flag_gems")
    if module is not None:  # stubbed already: its __path__ is the package's folder
        paths = list(getattr(module, "__path__", []) or [])
        return os.path.dirname(paths[0]) if paths else None
    try:
        spec = importlib.util.find_spec("flag_gems")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    return os.path.dirname(os.path.dirname(spec.origin))


def installed_version():
    try:
        from importlib.metadata import PackageNotFoundError, version
        return version("flag-gems")
    except PackageNotFoundError:
        return None


SOURCE = os.environ.get("TRITON_JIT_FLAGGEMS_SRC") or installed_root() or ""
SITE = os.environ.get("TRITON_JIT_FLAGGEMS_SITE", "")
DEVICE_NAME = "NVIDIA H100 80GB HBM3"


def available():
    """None when FlagGems' libentry can be loaded here, else why not."""
    if not SOURCE or not os.path.isfile(os.path.join(SOURCE, "flag_gems", "utils", "libentry.py")):
        return (f"FlagGems {FLAGGEMS_VERSION} is not installed (pip install --no-deps -r requirements-replay.txt, "
                f"which scripts/setup.sh does) and TRITON_JIT_FLAGGEMS_SRC names no folder holding flag_gems/")
    if not os.environ.get("TRITON_JIT_FLAGGEMS_SRC") and installed_version() != FLAGGEMS_VERSION:
        return f"the installed FlagGems is {installed_version()}, not {FLAGGEMS_VERSION}, the release the runtime emulates"
    if SITE and SITE not in sys.path and os.path.isdir(SITE):
        sys.path.append(SITE)
    try:
        import sqlalchemy  # noqa: F401
    except ImportError:
        return "sqlalchemy is not importable (requirements.txt pins it; TRITON_JIT_FLAGGEMS_SITE adds a folder)"
    return None


def _package(name, path=None, **attributes):
    module = types.ModuleType(name)
    module.__path__ = [path] if path else []
    module.__dict__.update(attributes)
    sys.modules[name] = module
    return module


def _file(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class _DeviceFn:
    """torch_device_fn as FlagGems' libentry uses it: the current device's index (set_device) and
    the device's name (in the tuning database's file name)."""
    device = 0
    name = DEVICE_NAME

    def current_device(self):
        return _DeviceFn.device

    def get_device_name(self):
        return _DeviceFn.name


def set_device(index):
    _DeviceFn.device = index


class _NoStore:
    """FlagGems' tuning database where a test has none: nothing stored, nothing found."""

    def __init__(self, *args, **kwargs):
        pass

    def get_config(self, *args):
        return None

    def put_config(self, *args):
        pass


def stub_device_runtime(root, device_count=1, device_name=DEVICE_NAME, store=True):
    """The one stand-in for FlagGems' device runtime (flag_gems.runtime: `device_count` devices,
    torch_device_fn, vendor nvidia), with FlagGems' own code_cache and models (its SQLite tuning
    database) from `root` when `store`, else no database (a temporary cache folder)."""
    _DeviceFn.name = device_name
    _package("flag_gems", root)
    _package("flag_gems.runtime", device=types.SimpleNamespace(device_count=device_count), torch_device_fn=_DeviceFn())
    _package("flag_gems.runtime.backend", vendor_module=types.SimpleNamespace(
        vendor_info=types.SimpleNamespace(vendor_name="nvidia", device_name="cuda")))
    _package("flag_gems.utils", os.path.join(root, "utils") if root else None)
    if not store:
        import tempfile
        from pathlib import Path
        cache_dir = Path(tempfile.mkdtemp(prefix="flaggems_stub_"))
        _package("flag_gems.utils.code_cache", config_cache_dir=lambda: cache_dir)
        _package("flag_gems.utils.models", PersistantModel=_NoStore, SQLPersistantModel=_NoStore)
        return
    _file("flag_gems.utils.code_cache", os.path.join(root, "utils", "code_cache.py"))
    _package("flag_gems.utils.models", os.path.join(root, "utils", "models"))
    for name in ("model", "session", "sql"):
        _file(f"flag_gems.utils.models.{name}", os.path.join(root, "utils", "models", f"{name}.py"))
    _file("flag_gems.utils.models", os.path.join(root, "utils", "models", "__init__.py"))


def load(device_name=DEVICE_NAME):
    """FlagGems' libentry module (flag_gems.utils.libentry) with its tuning database; loaded once
    per process."""
    if "flag_gems.utils.libentry" in sys.modules:
        return sys.modules["flag_gems.utils.libentry"]
    why = available()
    if why:
        raise ImportError(why)
    root = os.path.join(SOURCE, "flag_gems")
    stub_device_runtime(root, device_name=device_name)
    return _file("flag_gems.utils.libentry", os.path.join(root, "utils", "libentry.py"))

"""`pip install` of the repository into an empty virtualenv (no system site packages) gives a
working triton_jit package: the extension, libtriton_jit and the triton-jit CLI inside it, and
nothing else but what the package declares (Triton).

The wheel is built by this python (its scikit-build-core and nanobind, without build isolation:
build requirements need no download) with pyproject.toml's own settings. Under CTest it compiles
in a folder beside the build's (TRITON_JIT_PIP_BUILD_DIR) with the build's compiler, generator,
build type and ccache base folder, so that ccache serves the build's own objects; pyproject.toml
itself must name no build folder (scikit-build-core's default is a temporary one, never inside
the checkout). The virtualenv then installs that
wheel and its declared dependencies from a local wheel folder only (--no-index):
TRITON_JIT_WHEELHOUSE, else ~/.cache/triton_jit/wheels. When that folder lacks a Triton the
package accepts, it is filled once from the package index (pip download: 286 MB for Triton 3.9);
offline (no index reachable and no fitting wheel there) the test skips and says where to put one.
"""
import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
try:
    import tomllib  # Python 3.11 and newer
except ImportError:
    tomllib = None

import pytest

SOURCE = os.environ.get("TRITON_JIT_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
WHEELHOUSE = os.environ.get("TRITON_JIT_WHEELHOUSE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "triton_jit", "wheels")

# pip's words for a package index it could not reach (as opposed to one that has no fitting wheel).
UNREACHABLE = ("NewConnectionError", "Failed to establish a new connection", "Temporary failure in name resolution",
               "Name or service not known", "Network is unreachable", "ConnectTimeout", "ReadTimeout", "ProxyError",
               "Max retries exceeded", "Connection refused", "No route to host", "SSLError")


def _run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, **kwargs)


def _make_empty_venv(venv):
    """A virtualenv without system site packages; (its python, the pip command that installs into it)."""
    shutil.rmtree(venv, ignore_errors=True)
    python = os.path.join(venv, "bin", "python")
    if _run([sys.executable, "-m", "venv", venv]).returncode == 0:
        return python, [python, "-m", "pip", "--disable-pip-version-check"]
    # No ensurepip for this python (Debian without python3-venv): this python's pip installs into it.
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    return python, [sys.executable, "-m", "pip", "--disable-pip-version-check", "--python", python]


def test_pip_install_into_an_empty_virtualenv():
    missing = []
    for module in ("scikit_build_core", "nanobind", "pybind11"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        pytest.skip(f"{sys.executable} lacks the build requirements {', '.join(missing)} "
                    f"(pip install -r requirements.txt)")
    work = os.environ.get("TRITON_JIT_PIP_WORK") or tempfile.mkdtemp(prefix="triton_jit-pip-test-")
    os.makedirs(work, exist_ok=True)
    dist = os.path.join(work, "dist")
    shutil.rmtree(dist, ignore_errors=True)

    # 1. The wheel, with pyproject.toml's settings. Those name no build folder: scikit-build-core's
    # default, a temporary one, keeps pip from writing into the checkout.
    if tomllib is not None:
        with open(os.path.join(SOURCE, "pyproject.toml"), "rb") as f:
            settings = tomllib.load(f).get("tool", {}).get("scikit-build", {})
        assert "build-dir" not in settings and "build_dir" not in settings, settings
    start = time.time()
    command = [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-cache-dir",
               "--disable-pip-version-check", "-w", dist, SOURCE]
    # Under CTest: the build's build type, compiler (by the same name: ccache tells c++ from g++)
    # and launcher, in a fresh folder beside the build's (the environment gives CMAKE_GENERATOR and
    # CCACHE_BASEDIR): the paths ccache hashes are then the build's, and it serves the build's
    # objects instead of compiling them again.
    settings = []
    if os.environ.get("TRITON_JIT_PIP_BUILD_DIR"):
        shutil.rmtree(os.environ["TRITON_JIT_PIP_BUILD_DIR"], ignore_errors=True)
        settings.append("build-dir=" + os.environ["TRITON_JIT_PIP_BUILD_DIR"])
    if os.environ.get("TRITON_JIT_PIP_BUILD_TYPE"):
        settings.append("cmake.build-type=" + os.environ["TRITON_JIT_PIP_BUILD_TYPE"])
    if os.environ.get("TRITON_JIT_TEST_CXX_COMPILER"):
        settings.append("cmake.define.CMAKE_CXX_COMPILER=" + os.environ["TRITON_JIT_TEST_CXX_COMPILER"])
    launcher = os.environ.get("TRITON_JIT_TEST_CXX_LAUNCHER")
    if launcher is None and shutil.which("ccache"):
        launcher = "ccache"
    if launcher:
        settings += ["cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=" + launcher,
                     "cmake.define.CMAKE_C_COMPILER_LAUNCHER=" + launcher]
    for setting in settings:
        command[-1:-1] = ["-C", setting]
    r = _run(command, timeout=3300, cwd=work)
    print(f"pip wheel took {time.time() - start:.0f} s")
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    wheels = glob.glob(os.path.join(dist, "triton_jit-*.whl"))
    assert len(wheels) == 1, os.listdir(dist)
    wheel = wheels[0]
    # triton_jit._torch_native is in the wheel when this python imports torch (it builds the wheel),
    # and carries no run path to this machine's torch libraries: it loads into a process that
    # imported torch. (The paths of torch's headers stay, in the messages of their assertions.)
    torch_spec = importlib.util.find_spec("torch")
    with zipfile.ZipFile(wheel) as archive:
        # The runner's start-up file for the processes a program starts (triton_jit/install.py).
        assert "triton_jit/_child_install/sitecustomize.py" in archive.namelist(), archive.namelist()
        torch_native = [name for name in archive.namelist() if name.startswith("triton_jit/_torch_native")]
        print("triton_jit._torch_native in the wheel:", torch_native or "no (no torch in the building python)")
        for name in torch_native:
            data = archive.read(name)
            if torch_spec is not None and torch_spec.origin:
                torch_lib = os.path.join(os.path.dirname(torch_spec.origin), "lib")
                for folder in {torch_lib, os.path.realpath(torch_lib)}:
                    assert folder.encode() not in data, f"{name} names this machine's torch libraries ({folder})"

    # 2. An empty virtualenv: nothing of this python's packages is visible in it.
    venv = os.path.join(work, "venv")
    venv_python, pip = _make_empty_venv(venv)
    with open(os.path.join(venv, "pyvenv.cfg")) as f:
        assert "include-system-site-packages = false" in f.read()
    probe = ("import importlib.util as u; "
             "print([m for m in ('triton', 'numpy', 'torch', 'jax', 'cupy') if u.find_spec(m)])")
    r = _run([venv_python, "-c", probe], check=True)
    assert r.stdout.strip() == "[]", f"the new virtualenv is not empty: {r.stdout}"

    # 3. The wheel and what it declares, from local wheels only; the folder is filled from the
    # package index when it lacks a fitting Triton.
    os.makedirs(WHEELHOUSE, exist_ok=True)
    install = [*pip, "install", "--no-index", "--find-links", WHEELHOUSE, wheel]
    r = _run(install, timeout=1200)
    if r.returncode != 0:
        print(f"no fitting Triton in {WHEELHOUSE} ({r.stderr.strip().splitlines()[-1:]}): downloading it")
        fetched = os.path.join(work, "fetched")
        shutil.rmtree(fetched, ignore_errors=True)
        d = _run([*pip, "download", "--only-binary", ":all:", "--retries", "1", "--timeout", "30", "--dest", fetched,
                  "--find-links", WHEELHOUSE, wheel], timeout=1800)
        if d.returncode != 0:
            if any(word in d.stdout + d.stderr for word in UNREACHABLE):
                pytest.skip(f"offline: the package index cannot be reached and {WHEELHOUSE} holds no Triton wheel the "
                            f"package accepts (put one there, e.g. `pip download 'triton>=3.4,<3.10' -d {WHEELHOUSE}` "
                            f"on a machine with a registry, or set TRITON_JIT_WHEELHOUSE)")
            pytest.fail("pip download of the package's dependencies failed:\n" + d.stdout[-3000:] + d.stderr[-3000:])
        for name in os.listdir(fetched):
            if not name.startswith("triton_jit-"):
                shutil.move(os.path.join(fetched, name), os.path.join(WHEELHOUSE, name))
        r = _run(install, timeout=1200)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]

    # Only the package and what it declares (with their own dependencies) are installed.
    listing = _run([*pip, "list", "--format", "json"], check=True).stdout
    installed = {p["name"].lower().replace("_", "-") for p in json.loads(listing)}
    print("installed:", sorted(installed))
    assert {"triton-jit", "triton"} <= installed, installed
    declared = _run([venv_python, "-c", "import importlib.metadata as m; print(m.requires('triton') or [])"],
                    check=True).stdout
    if "numpy" not in declared:
        assert "numpy" not in installed, installed  # triton_jit itself must not need it

    # 4. Import it from outside the source tree, with only the virtualenv's packages.
    kernel = os.path.join(SOURCE, "tests", "kernels", "add.py")
    check = textwrap.dedent(f"""
        import os, sys, triton_jit
        assert triton_jit.__file__.startswith({venv!r}), triton_jit.__file__
        assert "numpy" not in sys.modules and "torch" not in sys.modules, "an optional framework was imported"
        assert "triton_jit._torch_native" not in sys.modules, "the torch module was loaded without torch"
        folder = os.path.dirname(triton_jit.__file__)
        assert os.path.isfile(os.path.join(folder, "libtriton_jit.so")), os.listdir(folder)
        assert os.path.isfile(os.path.join(folder, "libtriton_jit_python.so")), os.listdir(folder)

        class Array:
            __cuda_array_interface__ = {{"data": (4096, False), "typestr": "<f4", "shape": (4,), "version": 3}}
        k = triton_jit.kernel({kernel!r}, "add_kernel")
        print(k.specialize(Array(), Array(), Array(), 1000, 128).signature())
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "TRITON_JIT_PYTHON")}
    r = _run([venv_python, "-c", check], cwd=work, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1] == "*fp32:16,*fp32:16,*fp32:16,i32,128"

    # 5. The CLI through its console script, with the runtime's Python set to the virtualenv's.
    cli = os.path.join(venv, "bin", "triton-jit")
    r = _run([cli, "--version"], env=env, cwd=work, timeout=600)
    if "built without its command-line tool" in r.stderr:
        pytest.skip("the CLI was not built (nlohmann-json3-dev missing); the package itself works")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert r.stdout.strip(), "triton-jit --version printed nothing"
    r = _run([cli, "inspect", f"{kernel}:add_kernel"], env=env, cwd=work, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "BLOCK_SIZE: constexpr" in r.stdout
    # Kept only when the test fails, to look into: Triton unpacked is most of a gigabyte.
    for folder in (venv, dist, os.path.join(work, "fetched")):
        shutil.rmtree(folder, ignore_errors=True)
    if not os.environ.get("TRITON_JIT_PIP_WORK"):
        shutil.rmtree(work, ignore_errors=True)

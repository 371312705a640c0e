"""`pip install .` of the repository into a fresh virtualenv gives a working triton_jit package:
the extension, libtriton_jit and the triton-jit CLI inside it. The virtualenv sees this python's
packages through a .pth file (triton and the build requirements), so nothing is downloaded; the
build runs without isolation, as on a machine without a package registry."""
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import time

import pytest

SOURCE = os.environ.get("TRITON_JIT_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
WORK = os.environ.get("TRITON_JIT_PIP_WORK") or os.path.join(SOURCE, "build", "pip-install-test")


def test_pip_install_into_a_fresh_virtualenv():
    missing = []
    for module in ("scikit_build_core", "nanobind", "pybind11", "triton"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        pytest.skip(f"{sys.executable} lacks {', '.join(missing)} (pip install -r requirements.txt)")
    venv = os.path.join(WORK, "venv")
    shutil.rmtree(venv, ignore_errors=True)
    venv_python = os.path.join(venv, "bin", "python")
    pip = [venv_python, "-m", "pip"]
    if subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True).returncode != 0:
        # No ensurepip for this python (Debian without python3-venv): this python's pip installs
        # into the virtualenv instead.
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
        pip = [sys.executable, "-m", "pip", "--python", venv_python]
    site = subprocess.run([venv_python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # This python's packages, as --system-site-packages would give a base interpreter's.
    seen = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    seen += [p for p in sys.path if p.endswith("site-packages")]
    seen = [p for i, p in enumerate(seen) if os.path.isdir(p) and p not in seen[:i]]
    with open(os.path.join(site, "outer_packages.pth"), "w") as f:
        f.write("\n".join(seen) + "\n")
    command = [*pip, "install", "--no-build-isolation", "--no-deps", "--no-cache-dir",
               "-C", f"build-dir={os.path.join(WORK, 'build')}", SOURCE]
    if shutil.which("ccache"):
        command[-1:-1] = ["-C", "cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache"]
    start = time.monotonic()
    r = subprocess.run(command, capture_output=True, text=True, timeout=3300)
    seconds = time.monotonic() - start
    print(f"pip install took {seconds:.0f} s")
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]

    # Import it from outside the source tree: the installed package, its library beside it.
    kernel = os.path.join(SOURCE, "tests", "kernels", "add.py")
    check = textwrap.dedent(f"""
        import os, triton_jit
        assert triton_jit.__file__.startswith({venv!r}), triton_jit.__file__
        folder = os.path.dirname(triton_jit.__file__)
        assert os.path.isfile(os.path.join(folder, "libtriton_jit.so")), os.listdir(folder)
        assert os.path.isfile(os.path.join(folder, "libtriton_jit_python.so")), os.listdir(folder)

        class Array:
            __cuda_array_interface__ = {{"data": (4096, False), "typestr": "<f4", "shape": (4,), "version": 3}}
        k = triton_jit.kernel({kernel!r}, "add_kernel")
        print(k.specialize(Array(), Array(), Array(), 1000, 128).signature())
    """)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    r = subprocess.run([venv_python, "-c", check], capture_output=True, text=True, cwd=WORK, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1] == "*fp32:16,*fp32:16,*fp32:16,i32,128"

    cli = os.path.join(venv, "bin", "triton-jit")
    # The CLI through its console script, with the runtime's Python set to the virtualenv's.
    r = subprocess.run([cli, "inspect", f"{kernel}:add_kernel"], capture_output=True, text=True, env=env,
                       timeout=600)
    if "built without its command-line tool" in r.stderr:
        pytest.skip("the CLI was not built (nlohmann-json3-dev missing); the package itself works")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "BLOCK_SIZE: constexpr" in r.stdout

"""C++ exceptions arrive as the package's Python exceptions with the same context, and Ctrl-C
during a compile is a KeyboardInterrupt that leaves nothing cached."""
import os
import subprocess
import sys
import textwrap

import pytest

import triton_jit
import py_kernels
from conftest import CudaArray

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "kernels", "py_kernels.py")


def test_exception_hierarchy():
    assert issubclass(triton_jit.CompileError, triton_jit.Error)
    assert issubclass(triton_jit.Error, RuntimeError)
    assert issubclass(triton_jit.ArgumentError, ValueError) and issubclass(triton_jit.ArgumentError, TypeError)
    assert issubclass(triton_jit.PreloadError, triton_jit.KernelLookupError)
    assert issubclass(triton_jit.NoDeviceError, triton_jit.CudaError)


def test_lookup_errors_carry_path_and_function():
    with pytest.raises(triton_jit.KernelLookupError) as info:
        triton_jit.kernel(KERNELS, "no_such_kernel")
    assert info.value.function == "no_such_kernel"
    assert os.path.realpath(info.value.path) == os.path.realpath(KERNELS)
    assert "add_kernel" in str(info.value)  # names the kernels that are there
    with pytest.raises(triton_jit.KernelLookupError):
        triton_jit.kernel(os.path.join(HERE, "no_such_file.py"), "k")
    with pytest.raises(triton_jit.KernelLookupError) as info:
        triton_jit.kernel(module="no_such_module_for_triton_jit", name="k")
    assert "no_such_module_for_triton_jit" in str(info.value)


def test_compile_error_carries_triton_context():
    k = triton_jit.jit(py_kernels.arange_kernel)
    with pytest.raises(triton_jit.CompileError) as info:
        k.compile(CudaArray(4096), 100)
    e = info.value
    assert e.function == "arange_kernel"
    assert e.signature == "*fp32:16,100"
    assert os.path.realpath(e.file) == os.path.realpath(KERNELS)
    assert e.line > 0 and "power of 2" in str(e).lower() or "power" in e.traceback
    assert e.python_type and e.key and e.traceback
    # Nothing was cached: the same call fails the same way again.
    with pytest.raises(triton_jit.CompileError):
        k.compile(CudaArray(4096), 100)


def test_missing_kernel_offline(tmp_path):
    # A fresh process: offline mode and an empty index, so the kernel can come from nowhere.
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.join(HERE, 'kernels')!r}); sys.path.insert(0, {HERE!r})
        import triton_jit, py_kernels
        from conftest import CudaArray
        k = triton_jit.jit(py_kernels.add_kernel)
        triton_jit.set_offline(True)
        try:
            k.compile(CudaArray(4096), CudaArray(4096), CudaArray(4096), 1000, BLOCK=512)
        except triton_jit.MissingKernelError as e:
            assert e.function == "add_kernel", e.function
            assert e.key and e.manifest_line, (e.key, e.manifest_line)
            print("MISSING", e.manifest_line)
    """)
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "index"))
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "MISSING" in r.stdout and "add_kernel" in r.stdout


def test_keyboard_interrupt_during_compile_is_honoured(tmp_path):
    # Ctrl-C arrives while triton.compile runs (SIGINT raised from inside it, so the timing is
    # exact): the caller gets KeyboardInterrupt, nothing is cached, the next call compiles.
    script = textwrap.dedent(f"""
        import signal, sys
        sys.path.insert(0, {os.path.join(HERE, 'kernels')!r}); sys.path.insert(0, {HERE!r})
        import triton, triton_jit, py_kernels
        from conftest import CudaArray
        k = triton_jit.jit(py_kernels.add_kernel)
        real_compile = triton.compile
        def interrupted_compile(*args, **kwargs):
            signal.raise_signal(signal.SIGINT)
            return real_compile(*args, **kwargs)
        triton.compile = interrupted_compile
        args = (CudaArray(4096), CudaArray(4096), CudaArray(4096), 999)
        try:
            k.compile(*args, BLOCK=64)
            print("NOT INTERRUPTED")
        except KeyboardInterrupt:
            print("INTERRUPTED")
        triton.compile = real_compile
        assert k.stats()["compiles"] == 0, k.stats()
        k.compile(*args, BLOCK=64)
        assert k.stats()["compiles"] == 1, k.stats()
        print("RECOVERED")
    """)
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "index"), TRITON_CACHE_DIR=str(tmp_path / "triton"))
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "INTERRUPTED\nRECOVERED" in r.stdout, r.stdout + r.stderr


def test_launch_without_a_driver_is_no_device_error():
    if os.path.exists("/dev/nvidiactl"):
        pytest.skip("a GPU driver is present")
    k = triton_jit.jit(py_kernels.add_kernel)
    x = CudaArray(4096)
    with pytest.raises(triton_jit.NoDeviceError) as info:
        k[(1, )](x, x, x, 16)
    assert "driver" in str(info.value)

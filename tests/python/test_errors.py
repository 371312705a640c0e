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
    env = dict(os.environ, TRITON_JIT_INDEX_DIR=str(tmp_path / "index"))
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
    env = dict(os.environ, TRITON_JIT_INDEX_DIR=str(tmp_path / "index"), TRITON_CACHE_DIR=str(tmp_path / "triton"))
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


# Values the user passed wrong are the package's errors (or TypeError/ValueError) that name what
# was wrong and the valid range: not SystemError, a bare OverflowError, or a wrapped value.

def test_grid_dimension_out_of_range():
    k = triton_jit.jit(py_kernels.add_kernel)
    x = CudaArray(4096)
    for grid, axis, value in (((2**70, ), "x", 2**70), ((1, -2**64), "y", -2**64), ((1, 1, 2**63), "z", 2**63),
                              (lambda meta: (2**70, ), "x", 2**70)):
        with pytest.raises(triton_jit.LaunchConfigError) as info:
            k[grid](x, x, x, 16)
        message = str(info.value)
        assert f"grid dimension {axis} = {value} is out of range" in message, message
        assert "2147483647" in message and "65535" in message, message
    with pytest.raises(triton_jit.ArgumentError, match="a grid has 1 to 3 dimensions, not 4"):
        k[(1, 1, 1, 1)](x, x, x, 16)
    with pytest.raises(triton_jit.ArgumentError, match="a grid holds ints, not float"):
        k[(1.5, )](x, x, x, 16)


@pytest.mark.parametrize("option, value, valid", [
    ("num_warps", 2**70, "a power of two in 1..64"),
    ("num_warps", 2**32 + 4, "a power of two in 1..64"),  # wrapped to 4 warps before
    ("num_stages", -2**70, "in 0..255 (None: the target's default)"),
    ("num_stages", -1, "in 0..255 (None: the target's default)"),  # not the runtime's sentinel
    ("num_ctas", 2**31, "in 1..16"),
])
def test_launch_option_out_of_range(option, value, valid):
    k = triton_jit.jit(py_kernels.add_kernel)
    x = CudaArray(4096)
    with pytest.raises(triton_jit.ArgumentError) as info:
        k.specialize(x, x, x, 16, **{option: value})
    assert info.value.parameter == option
    assert str(info.value) == f"add_kernel: {option}={value} is out of range: {option} must be {valid}"


def test_compile_option_and_stream_out_of_range():
    k = triton_jit.jit(py_kernels.add_kernel)
    x = CudaArray(4096)
    with pytest.raises(triton_jit.ArgumentError, match=r"compile option maxnreg=1180591620717411303424 is out of "
                                                       r"range") as info:
        k.specialize(x, x, x, 16, maxnreg=2**70)
    assert info.value.parameter == "maxnreg"
    for handle in (2**70, -1):
        with pytest.raises(triton_jit.ArgumentError, match=rf"stream= handle {handle} is out of range") as info:
            k.specialize(x, x, x, 16, stream=handle)
        assert info.value.parameter == "stream"
    # No Python error is left pending: the next call works.
    assert k.specialize(x, x, x, 17).signature() == "*fp32:16,*fp32:16,*fp32:16,i32,1024"


def test_jit_of_a_lambda_or_a_function_without_source():
    with pytest.raises(TypeError, match=r"triton_jit.jit takes a @triton.jit function .* not a lambda"):
        triton_jit.jit(lambda x: x)
    namespace = {}
    exec("def no_source(x):\n    pass\n", namespace)
    with pytest.raises(TypeError, match=r"the source of no_source cannot be read"):
        triton_jit.jit(namespace["no_source"])


def test_kernel_paths_as_str_bytes_and_pathlike(tmp_path):
    import pathlib
    for path in (KERNELS, os.fsencode(KERNELS), pathlib.Path(KERNELS)):
        k = triton_jit.kernel(path, "add_kernel")
        assert os.path.realpath(k.path) == os.path.realpath(KERNELS)
    with pytest.raises(TypeError, match=r"triton_jit.kernel: path must be a str, bytes or os.PathLike, not int"):
        triton_jit.kernel(5, "add_kernel")
    with pytest.raises(TypeError, match=r"triton_jit.kernel: name must be a str, not bytes"):
        triton_jit.kernel(KERNELS, b"add_kernel")


def test_kernel_path_that_is_not_utf8(tmp_path):
    bad = os.path.join(os.fsencode(str(tmp_path)), b"\xff_kernels.py")
    try:
        with open(bad, "wb") as f, open(KERNELS, "rb") as src:
            f.write(src.read())
    except OSError as e:
        pytest.skip(f"this file system refuses a non-UTF-8 file name: {e}")
    for path in (bad, os.fsdecode(bad)):
        with pytest.raises(ValueError, match=r"is not valid UTF-8 .*rename the file") as info:
            triton_jit.kernel(path, "add_kernel")
        assert "\\udcff_kernels.py" in str(info.value) and "\\xff_kernels.py" in str(info.value)


def test_nul_in_a_path_or_name_is_refused():
    # C++ would cut the string at the NUL: the file before it was loaded in its place.
    with pytest.raises(ValueError, match=r"triton_jit.kernel: path '.*py_kernels.py\\x00junk' contains a NUL"):
        triton_jit.kernel(KERNELS + "\0junk", "add_kernel")
    with pytest.raises(ValueError, match=r"name 'add_kernel\\x00x' contains a NUL"):
        triton_jit.kernel(KERNELS, "add_kernel\0x")
    with pytest.raises(ValueError, match=r"module 'py_kernels\\x00x' contains a NUL"):
        triton_jit.kernel(module="py_kernels\0x", name="add_kernel")


def test_compile_request_and_synchronize_arguments():
    # Were nanobind's "incompatible function arguments" and a RuntimeError "std::bad_cast".
    with pytest.raises(triton_jit.ArgumentError, match=r"CompileRequest: num_warps=1180591620717411303424 is out of "
                                                       r"range: num_warps must be a power of two in 1..64") as info:
        triton_jit.CompileRequest("*fp32", num_warps=2**70)
    assert info.value.parameter == "num_warps"
    with pytest.raises(triton_jit.ArgumentError, match=r"CompileRequest: num_stages must be an int, not str"):
        triton_jit.CompileRequest("*fp32", num_stages="3")
    with pytest.raises(triton_jit.ArgumentError,
                       match=r"CompileRequest: the compile option maxnreg=1180591620717411303424 is out of range"):
        triton_jit.CompileRequest("*fp32", options={"maxnreg": 2**70})
    with pytest.raises(triton_jit.ArgumentError, match=r"the compile option maxnreg must be a bool, int, float or str, "
                                                       r"not list"):
        triton_jit.CompileRequest("*fp32", options={"maxnreg": [1]})
    with pytest.raises(triton_jit.ArgumentError, match=r"option names are str, not int"):
        triton_jit.CompileRequest("*fp32", options={1: 2})
    r = triton_jit.CompileRequest("*fp32", num_warps=8, options={"maxnreg": 128, "enable_fp_fusion": False})
    assert (r.num_warps, r.num_stages, r.num_ctas) == (8, None, 1)  # num_stages: the target's default
    for stream in (-1, 2**64, "0"):
        with pytest.raises(triton_jit.ArgumentError, match=r"synchronize: stream .* is not a CUDA stream handle"):
            triton_jit.synchronize(stream)

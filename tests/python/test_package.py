"""The package imports, exposes Triton's calling convention, and finds kernels by object, path and
module; no GPU needed."""
import os

import pytest
import triton

import triton_jit
import py_kernels
from triton_jit._bridge import runtime_bridge
from conftest import CudaArray

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels", "py_kernels.py")


def test_api_surface():
    for name in ("jit", "kernel", "cdiv", "Kernel", "CompileRequest", "CompileError", "ArgumentError",
                 "MissingKernelError", "KernelLookupError", "set_target", "global_stats"):
        assert hasattr(triton_jit, name), name
    assert triton_jit.cdiv(1000, 128) == triton.cdiv(1000, 128) == 8
    assert triton_jit.triton_version() == triton.__version__
    assert triton_jit.python_used()


def test_jit_names_the_kernel_and_its_parameters():
    k = triton_jit.jit(py_kernels.add_kernel)
    assert isinstance(k, triton_jit.Kernel)
    assert k.name == "add_kernel"
    assert os.path.realpath(k.path) == os.path.realpath(KERNELS)
    assert k.arg_names == ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"]
    assert triton_jit.jit(k) is k
    assert triton_jit.jit(py_kernels.add_kernel) is k  # one Kernel per function
    # The same function by path and by module is the same runtime function (its counters agree).
    by_path = triton_jit.kernel(KERNELS, "add_kernel")
    by_module = triton_jit.kernel(module="py_kernels", name="add_kernel")
    assert by_path is k and by_module is k


def test_jit_does_not_import_the_module_again():
    k = triton_jit.jit(py_kernels.scale_kernel)
    k.compile(CudaArray(4096), CudaArray(8192), 1000, 2.0, True)
    assert os.environ["PY_KERNELS_IMPORTS"] == "1"
    assert runtime_bridge().loading._modules[os.path.realpath(KERNELS)] is py_kernels


def test_decorated_kernels_take_only_the_callers_parameters():
    tuned = triton_jit.jit(py_kernels.tuned_add_kernel)
    assert tuned.arg_names == ["x_ptr", "y_ptr", "out_ptr", "n"]
    even = triton_jit.jit(py_kernels.even_add_kernel)
    assert even.arg_names == ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"]
    spec = even.specialize(CudaArray(4096), CudaArray(4096), CudaArray(4096), 1024, 256)
    assert spec.signature() == "*fp32:16,*fp32:16,*fp32:16,i32:16,256,True"
    spec = even.specialize(CudaArray(4096), CudaArray(4096), CudaArray(4096), 1000, 256)
    assert spec.signature().endswith(",256,False")
    # The inner function alone ("tuned_add_kernel.fn"), without its autotuner.
    inner = triton_jit.jit(py_kernels.tuned_add_kernel.fn)
    assert inner.arg_names == ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"]


def test_jit_of_an_object_no_module_name_holds():
    @triton.jit
    def local_kernel(x_ptr):
        pass
    k = triton_jit.jit(local_kernel)  # found at first use, when no name holds it now
    assert "first use" in repr(k)
    with pytest.raises(triton_jit.KernelLookupError, match="module-level name"):
        k.specialize(CudaArray(4096))
    with pytest.raises(TypeError, match="@triton.jit"):
        triton_jit.jit(42)


def test_jit_as_a_decorator():
    k = py_kernels.decorated_add_kernel
    assert isinstance(k, triton_jit.Kernel)
    assert k.fn is not None and k.fn.fn.__name__ == "decorated_add_kernel"
    x = CudaArray(4096)
    assert k.specialize(x, x, x, 100).signature() == "*fp32:16,*fp32:16,*fp32:16,i32,64"
    assert k.name == "decorated_add_kernel" and k.arg_names == ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"]
    assert triton_jit.jit(k) is k
    # Above Triton's own decorators: the heuristics still set EVEN.
    even = py_kernels.decorated_even_kernel
    assert even.arg_names == ["x_ptr", "out_ptr", "n", "BLOCK"]
    assert even.specialize(x, x, 128, 64).signature().endswith(",64,True")
    assert even.specialize(x, x, 100, 64).signature().endswith(",64,False")
    assert "first use" not in repr(even)


def test_cli_is_built_beside_the_package():
    # In the build tree the CLI is tools/triton-jit; installed, triton_jit/bin/triton-jit (see
    # test_pip_install.py). Here: the console entry point finds its binary or says it is missing.
    from triton_jit import _cli
    assert callable(_cli.main)


def test_warmup_and_run_mirror_triton():
    k = triton_jit.jit(py_kernels.add_kernel)
    x = CudaArray(4096)
    info = k.warmup(x, x, x, 1000, BLOCK=128, grid=(8, ))  # as Triton's warmup: compiles, no launch
    assert info.hash == k.compile(x, x, x, 1000, BLOCK=128).hash
    assert info.name == "add_kernel" and info.num_warps == 4
    with pytest.raises(triton_jit.ArgumentError, match="grid="):
        k.run(x, x, x, 1000)
    assert isinstance(k[(1, )], triton_jit._C.Launcher)


def test_bridge_modules_name_their_files_in_tracebacks():
    """The runtime's bridge is a package whose modules, imported from the table embedded in the
    library, have file names, and their source lines show in tracebacks (the finder's get_source)."""
    import traceback
    bridge = runtime_bridge()
    assert bridge.__file__ == "triton_jit_bridge/__init__.py"
    assert bridge.heuristic_translation.__file__ == "triton_jit_bridge/heuristic_translation.py"
    with pytest.raises(AttributeError) as raised:
        bridge.heuristic_translation._source_tree(None)  # reads None.__code__
    text = "".join(traceback.format_exception(raised.type, raised.value, raised.tb))
    assert 'File "triton_jit_bridge/heuristic_translation.py"' in text, text
    assert "code = func.__code__" in text, text

"""The package and the registration: no GPU needed."""
import os
import subprocess
import sys

import pytest
import torch

import triton_jit_ops

# The specification the library is checked against; which operators it builds is TRITON_JIT_OPS in
# torch/ops/CMakeLists.txt, and test_registered_operators checks the two agree.
EXPECTED_SCHEMAS = {
    "add": "triton_jit_ops::add(Tensor a, Tensor b, *, Scalar alpha=1) -> Tensor",
    "sum": "triton_jit_ops::sum(Tensor x, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "softmax": "triton_jit_ops::softmax(Tensor x, int dim) -> Tensor",
    "matmul": "triton_jit_ops::matmul(Tensor a, Tensor b, bool transpose_a=False, bool transpose_b=False) -> Tensor",
}

PYTHON_DIR = os.path.dirname(os.path.dirname(triton_jit_ops.__file__))


@pytest.mark.parametrize("name", sorted(EXPECTED_SCHEMAS))
def test_schema(name):
    op = getattr(torch.ops.triton_jit_ops, name).default
    assert str(op._schema) == EXPECTED_SCHEMAS[name]
    # Functional: no aliasing, no mutation, so torch.compile and functionalization may reorder it.
    assert not op._schema.is_mutable
    assert all(a.alias_info is None for a in op._schema.arguments)


@pytest.mark.parametrize("name", sorted(EXPECTED_SCHEMAS))
def test_kernels_registered(name):
    qualname = f"triton_jit_ops::{name}"
    for key in ("CUDA", "Meta"):
        assert torch._C._dispatch_has_kernel_for_dispatch_key(qualname, key), f"{qualname} has no {key} kernel"
    # No CPU kernel: CPU tensors must be refused, not computed.
    assert not torch._C._dispatch_has_kernel_for_dispatch_key(qualname, "CPU")


def test_matmul_has_autograd_kernel():
    # Registered to the Autograd alias key (every backend's autograd key).
    assert torch._C._dispatch_has_kernel_for_dispatch_key("triton_jit_ops::matmul", "Autograd")


def test_registered_operators():
    # The namespace holds exactly the expected operators, and the package exposes each of them.
    assert triton_jit_ops.OPS == tuple(sorted(EXPECTED_SCHEMAS))
    assert triton_jit_ops.registered_ops() == triton_jit_ops.OPS


@pytest.mark.parametrize("name", sorted(EXPECTED_SCHEMAS))
def test_wrappers(name):
    fn = getattr(triton_jit_ops, name)
    assert callable(fn)
    assert fn.__doc__ and len(fn.__doc__.strip()) > 20
    assert name in triton_jit_ops.__all__


def test_library_path():
    assert os.path.isfile(triton_jit_ops.library_path) or triton_jit_ops.library_path.startswith("<")
    env = os.environ.get(triton_jit_ops.ENV_VAR)
    if env:
        assert os.path.samefile(env, triton_jit_ops.library_path)
    # Loading again is a no-op that returns the same path.
    assert triton_jit_ops.load_library() == triton_jit_ops.library_path


def _import_in_subprocess(env_value):
    env = dict(os.environ)
    env["PYTHONPATH"] = PYTHON_DIR + os.pathsep + env.get("PYTHONPATH", "")
    env[triton_jit_ops.ENV_VAR] = env_value
    code = "import triton_jit_ops, torch; print(triton_jit_ops.library_path); print(torch.ops.triton_jit_ops.add.default)"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)


def test_missing_library_is_a_clear_import_error(tmp_path):
    missing = str(tmp_path / "nowhere" / "libtriton_jit_ops.so")
    r = _import_in_subprocess(missing)
    assert r.returncode != 0
    assert "ImportError" in r.stderr
    assert triton_jit_ops.ENV_VAR in r.stderr and missing in r.stderr, r.stderr


@pytest.mark.skipif(triton_jit_ops.library_path.startswith("<"), reason="library registered by someone else")
def test_env_var_may_name_the_folder():
    folder = os.path.dirname(os.path.realpath(triton_jit_ops.library_path))
    r = _import_in_subprocess(folder)
    assert r.returncode == 0, r.stderr
    assert os.path.samefile(r.stdout.splitlines()[0], triton_jit_ops.library_path)
    assert "triton_jit_ops.add" in r.stdout


def test_kernel_files_beside_library():
    if triton_jit_ops.library_path.startswith("<"):
        pytest.skip("library registered by someone else")
    kernels = os.path.join(os.path.dirname(os.path.realpath(triton_jit_ops.library_path)), "triton_jit_kernels")
    assert os.path.isdir(kernels), f"{kernels} is missing: the operators cannot find their Triton kernels"
    for name in triton_jit_ops.OPS:
        assert os.path.isfile(os.path.join(kernels, f"{name}.py")), f"{name}.py missing in {kernels}"

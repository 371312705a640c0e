"""Kernels that exist only inside a running library, through the Python front end:
- FlagGems' pointwise_dynamic writes a generated kernel to a file, execs it with
  spec_from_file_location (the module is not in sys.modules) and then patches the module's globals
  with the scalar function the kernel calls, so the file alone does not compile;
- triton_kernels' define_kernel (vLLM's MoE kernels) builds a JITFunction from a source string.
triton_jit.jit takes the live object: the kernel compiles with the globals the library gave it
(the same hash and cubin as Triton's own JIT), triton_jit.kernel(path, name) reaches the same
function, and triton_jit.build_pack captures it, so a process with neither the source nor Python
compiling serves it from the pack."""
import importlib.util
import inspect
import json
import os
import subprocess
import sys
import types

import pytest
import triton
import triton.language as tl

import triton_jit
import triton_reference
from conftest import CudaArray


@triton.jit
def scaled_sum(x, y):
    # The scalar function a generated kernel calls: FlagGems copies it into the module after exec.
    return x * 2 + y


GENERATED = '''import triton
import triton.language as tl


@triton.jit
def scaled_sum_kernel_rank_1(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    out = scaled_sum(tl.load(x_ptr + offsets, mask=mask), tl.load(y_ptr + offsets, mask=mask))
    tl.store(out_ptr + offsets, out, mask=mask)
'''
NAME = "scaled_sum_kernel_rank_1"
SIGNATURE = "*fp32:16,*fp32:16,*fp32:16,i32,256"


def load_generated(path):
    """As pointwise_dynamic's instantiate loads its code: not in sys.modules, globals patched after exec."""
    with open(path, "w") as f:
        f.write(GENERATED)
    spec = importlib.util.spec_from_file_location("_gen_module_scaled_sum_rank_1", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.__dict__.update(scaled_sum.fn.__globals__)
    module.__dict__[scaled_sum.fn.__name__] = scaled_sum
    return module


def tritons_kernel(fn):
    pointer = triton_reference.make_pointer(4096, "fp32")
    return triton_reference.triton_compile(fn, [pointer, pointer, pointer, 1000], {"BLOCK": 256})


def arrays():
    return CudaArray(4096), CudaArray(4096), CudaArray(4096)


def test_a_generated_module_outside_sys_modules(tmp_path):
    path = str(tmp_path / "code_cache" / "pointwise_dynamic_scaled_sum_rank_1.py")
    os.makedirs(os.path.dirname(path))
    module = load_generated(path)
    assert "_gen_module_scaled_sum_rank_1" not in sys.modules
    k = triton_jit.jit(getattr(module, NAME))
    assert k.path == os.path.realpath(path)
    info = k.compile(*arrays(), 1000, BLOCK=256)
    reference = tritons_kernel(getattr(module, NAME))
    assert (info.hash, info.cubin) == reference
    # By path and name, as C++ names it (TritonJitFunction::get): the same live function.
    assert triton_jit.kernel(path, NAME).compile(*arrays(), 1000, BLOCK=256).hash == info.hash

    # The file alone does not compile: the scalar function exists only in the live module.
    copy = str(tmp_path / "copy" / "pointwise_dynamic_scaled_sum_rank_1.py")
    os.makedirs(os.path.dirname(copy))
    with open(copy, "w") as f:
        f.write(GENERATED)
    with pytest.raises(triton_jit.CompileError, match="scaled_sum"):
        triton_jit.kernel(copy, NAME).compile(*arrays(), 1000, BLOCK=256)

    # A pack built in this process captures it; a process without the source, in offline mode
    # (nothing may compile), launches it from the pack.
    manifest = tmp_path / "code_cache" / "manifest.txt"
    manifest.write_text(f"{os.path.basename(path)}:{NAME} {SIGNATURE} target=cuda:90\n")
    pack = str(tmp_path / "live.tjp")
    kernels, functions = triton_jit.build_pack(str(manifest), pack)
    assert kernels == 1 and functions == [f"{os.path.basename(path)}:{NAME}"]
    os.remove(path)
    probe = ("import json, sys, triton_jit\n"
             "sys.path.insert(0, sys.argv[2])\n"
             "from conftest import CudaArray\n"
             "k = triton_jit.kernel(sys.argv[1], '" + NAME + "')\n"
             "x = CudaArray(4096)\n"
             "info = k.compile(x, x, x, 1000, BLOCK=256)\n"
             "print(json.dumps({'hash': info.hash, 'stats': k.stats(), 'python_used': triton_jit.python_used()}))\n")
    env = dict(os.environ, TRITON_JIT_PACKS=pack, TRITON_JIT_OFFLINE="1",
               TRITON_JIT_INDEX_DIR=str(tmp_path / "empty_index"))
    run = subprocess.run([sys.executable, "-c", probe, path, os.path.dirname(os.path.abspath(__file__))], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["hash"] == info.hash
    assert out["stats"]["pack_hits"] == 1 and out["stats"]["compiles"] == 0, out
    assert out["python_used"] == 0, out


def _template():
    pass


def define_kernel(src, **extra_globals):
    """A JITFunction made from a source string, as triton_kernels' define_kernel makes them: a
    function object over a template's code with its own globals, its source replaced."""
    scope = dict(_template.__globals__)
    scope.update(extra_globals)
    made = {}
    exec(src, scope, made)
    (name, plain), = made.items()
    fn = types.FunctionType(_template.__code__, scope)
    fn.__signature__ = inspect.signature(plain)
    fn.__name__ = name
    jit_fn = triton.JITFunction(fn)
    jit_fn._unsafe_update_src(src)
    return jit_fn


SOURCE = '''def scaled_by_factor(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * FACTOR, mask=mask)
'''


def test_a_kernel_made_from_a_source_string(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_JIT_LIVE_DIR", str(tmp_path / "live"))
    fn = define_kernel(SOURCE, FACTOR=tl.constexpr(3.0))
    k = triton_jit.jit(fn)
    assert os.path.dirname(k.path) == os.path.realpath(tmp_path / "live")
    assert os.path.basename(k.path).startswith("scaled_by_factor_")
    x = CudaArray(4096)
    info = k.compile(x, x, 1000, BLOCK=128)
    pointer = triton_reference.make_pointer(4096, "fp32")
    assert (info.hash, info.cubin) == triton_reference.triton_compile(fn, [pointer, pointer, 1000], {"BLOCK": 128})
    # The same source with another constexpr global is another kernel, named by another file.
    other_fn = define_kernel(SOURCE, FACTOR=tl.constexpr(5.0))
    other = triton_jit.jit(other_fn)
    assert other.path != k.path
    other_info = other.compile(x, x, 1000, BLOCK=128)
    assert other_info.hash != info.hash
    assert other_info.hash == triton_reference.triton_compile(other_fn, [pointer, pointer, 1000], {"BLOCK": 128})[0]
    # The same kernel made again (another process, say) is named by the same file.
    assert triton_jit.jit(define_kernel(SOURCE, FACTOR=tl.constexpr(3.0))).path == k.path


def test_a_made_module_in_sys_modules_without_a_file(tmp_path, monkeypatch):
    # triton_kernels' matmul_ogs registers a module it makes (types.ModuleType, no __file__) in
    # sys.modules and stores its specialized kernels there; each kernel's __module__ names it, and
    # its code names the template's file. By that file and name the runtime would load the template.
    monkeypatch.setenv("TRITON_JIT_LIVE_DIR", str(tmp_path / "live"))
    made = types.ModuleType("specialized_kernels_test_live")
    made.scaled_by_factor = define_kernel(SOURCE, FACTOR=tl.constexpr(7.0))
    made.scaled_by_factor.fn.__module__ = made.__name__
    monkeypatch.setitem(sys.modules, made.__name__, made)
    k = triton_jit.jit(made.scaled_by_factor)
    assert os.path.dirname(k.path) == os.path.realpath(tmp_path / "live")
    x = CudaArray(4096)
    pointer = triton_reference.make_pointer(4096, "fp32")
    assert k.compile(x, x, 1000, BLOCK=128).hash == triton_reference.triton_compile(
        made.scaled_by_factor, [pointer, pointer, 1000], {"BLOCK": 128})[0]


MADE_AT_IMPORT = """import inspect
import types

import triton
import triton.language as tl


def _template():
    pass


def _made(src, **extra_globals):
    scope = dict(_template.__globals__)
    scope.update(extra_globals)
    made = {}
    exec(src, scope, made)
    (name, plain), = made.items()
    fn = types.FunctionType(_template.__code__, scope)
    fn.__signature__ = inspect.signature(plain)
    fn.__name__ = name
    jit_fn = triton.JITFunction(fn)
    jit_fn._unsafe_update_src(src)
    return jit_fn


KERNELS = types.SimpleNamespace(tripled=_made(SOURCE, FACTOR=tl.constexpr(3.0)))
"""


def test_a_module_attribute_path_reaches_a_kernel_made_at_import(tmp_path, monkeypatch):
    # What C++ names with TritonJitFunction::get_module("made_kernels_live", "KERNELS.tripled"):
    # an attribute path from a module to a JITFunction made from a source string at its import.
    (tmp_path / "made_kernels_live.py").write_text(MADE_AT_IMPORT.replace("SOURCE", repr(SOURCE)))
    monkeypatch.syspath_prepend(str(tmp_path))
    k = triton_jit.kernel(module="made_kernels_live", name="KERNELS.tripled")
    x = CudaArray(4096)
    info = k.compile(x, x, 1000, BLOCK=128)
    import made_kernels_live
    pointer = triton_reference.make_pointer(4096, "fp32")
    reference = triton_reference.triton_compile(made_kernels_live.KERNELS.tripled, [pointer, pointer, 1000],
                                                {"BLOCK": 128})
    assert (info.hash, info.cubin) == reference

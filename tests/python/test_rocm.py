"""ROCm arrays through the Python front end, without AMD hardware: a DLPack producer whose capsules
say kDLROCM (10), CuPy-ROCm's __cuda_array_interface__ stand-in, and a Python-level launch on the
fake HIP runtime (tests/support/fake_hip.cpp, loaded as libamdhip64 is) whose recorded parameters
are checked against the call and against Triton's own HIP binder and launcher."""
import ast
import ctypes
import json
import os
import subprocess
import sys
import textwrap

import pytest

import triton_jit
import triton_reference
import py_kernels
from conftest import CudaArray, _DLDataType, _DLDevice, _DLManagedTensor, _DLTensor, _PyCapsule_New, DLPACK_CODES

HERE = os.path.dirname(os.path.abspath(__file__))
KDL_CUDA, KDL_ROCM = 2, 10
MAX_INT32 = 2**31 - 1


class RocmArray:
    """An array of a framework on an AMD GPU as DLPack shows it: __dlpack_device__ says (kDLROCM,
    0) and __dlpack__ returns a hand-made unversioned capsule with its shape, strides (elements)
    and byte offset."""

    def __init__(self, address, dtype="fp32", shape=(16, ), strides=None, byte_offset=0, device_type=KDL_ROCM):
        self.address, self.dtype, self.shape, self.strides = address, dtype, tuple(shape), strides
        self.byte_offset, self.device_type = byte_offset, device_type
        self.streams = []
        self._keep = []

    def __dlpack_device__(self):
        return (self.device_type, 0)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        code, bits = DLPACK_CODES[self.dtype]
        nd = len(self.shape)
        shape = (ctypes.c_int64 * nd)(*self.shape)
        strides = (ctypes.c_int64 * nd)(*self.strides) if self.strides is not None else None
        managed = _DLManagedTensor()
        managed.dl_tensor = _DLTensor(self.address, _DLDevice(self.device_type, 0), nd, _DLDataType(code, bits, 1),
                                      shape, strides, self.byte_offset)
        self._keep.append((managed, shape, strides))
        return _PyCapsule_New(ctypes.addressof(managed), b"dltensor", None)

    def itemsize(self):
        return max(1, DLPACK_CODES[self.dtype][1] // 8)

    def span(self):
        """The bytes torch would give the storage of torch.from_dlpack(self) (computeStorageNbytes)."""
        if any(d == 0 for d in self.shape):
            return 0
        strides = self.strides
        if strides is None:
            strides, step = [], 1
            for d in reversed(self.shape):
                strides.insert(0, step)
                step *= d
        return self.itemsize() * (1 + sum((d - 1) * abs(s) for d, s in zip(self.shape, strides)))


def reference_pointer(array):
    """What Triton's HIP binder is given for `array`: its address, dtype and buffer size."""
    return triton_reference.make_pointer(array.address + array.byte_offset, array.dtype, array.span())


@pytest.fixture
def hip_target():
    triton_jit.set_target("hip:gfx942")
    yield ("hip", "gfx942", 64)
    triton_jit.set_target(None)


ARRAYS = [
    RocmArray(4096),
    RocmArray(4096, "fp16", shape=(4, 8), strides=(16, 1)),  # rows with gaps: the span counts them
    RocmArray(4096, "fp32", shape=(MAX_INT32 // 4 + 1, )),  # 2**31 bytes: one past the 'S' range
    RocmArray(4096, "u8", shape=(MAX_INT32, )),  # 2**31 - 1 bytes: the last size with 'S'
    RocmArray(4100, "i32", shape=(0, 5)),  # empty: a storage of 0 bytes, 'S', unaligned
    RocmArray(8192, "bf16", shape=(2, 3), strides=(-3, 1), byte_offset=16),
]


@pytest.mark.parametrize("array", ARRAYS, ids=lambda a: f"{a.dtype}{list(a.shape)}")
def test_a_rocm_dlpack_array_binds_as_tritons_hip_binder_binds_its_tensor(array, hip_target):
    """kDLROCM binds on a HIP target as kDLCUDA does on a CUDA one, with Triton's 'S' flag from the
    array's span: the storage of the tensor torch.from_dlpack makes over it, as Triton's HIP
    backend measures it (untyped_storage().size()), compared through ptr_range()."""
    fn = py_kernels.add_kernel
    others = [RocmArray(1 << 20), RocmArray(1 << 21)]
    ours = triton_jit.jit(fn).specialize(array, *others, 1000, BLOCK=256).triton_repr()
    args = [reference_pointer(a) for a in [array] + others] + [1000]
    want = triton_reference.triton_specialization(fn, [(args, {"BLOCK": 256})], hip_target)[0]
    assert ours == want
    from triton import knobs
    if knobs.amd.use_buffer_ops:
        assert ("S" in ast.literal_eval(want)[0][1]) == (array.span() <= MAX_INT32), want


def test_the_stream_asked_of_a_rocm_array_is_rocms_spelling(hip_target):
    """__dlpack__(stream=): on ROCm the default stream is 0 (1 and 2 mean nothing there, unlike
    CUDA's legacy and per-thread default streams); any other stream is its handle."""
    k = triton_jit.jit(py_kernels.add_kernel)
    x = RocmArray(4096)
    k.specialize(x, x, x, 16)
    k.specialize(x, x, x, 16, stream=0)
    k.specialize(x, x, x, 16, stream=0x5000)
    assert x.streams == [None] * 3 + [0] * 3 + [0x5000] * 3


def test_the_span_is_torchs_storage_size():
    """The span above is the size torch gives the storage of a tensor over the same memory."""
    torch = pytest.importorskip("torch")
    checked = 0
    for a in ARRAYS:
        strides = a.strides or torch.empty(a.shape, dtype=torch.uint8, device="meta").stride()
        if any(s < 0 for s in strides):
            continue  # torch has no negative strides
        t = torch.empty_strided(a.shape, strides, dtype=torch.uint8, device="meta")
        assert t.untyped_storage().size() * a.itemsize() == a.span(), a.shape
        checked += 1
    assert checked == len(ARRAYS) - 1


def test_a_rocm_array_on_a_cuda_target_is_refused():
    k = triton_jit.jit(py_kernels.add_kernel)
    for target in (None, "cuda:90"):  # this machine's default (no GPU: cuda:90), and an explicit one
        triton_jit.set_target(target)
        try:
            with pytest.raises(triton_jit.ArgumentError) as e:
                k.specialize(RocmArray(4096), RocmArray(8192), RocmArray(12288), 1000)
        finally:
            triton_jit.set_target(None)
        message = str(e.value)
        assert "argument 'x_ptr'" in message and "ROCm (AMD) device" in message, message
        assert "NVIDIA GPU" in message and "set_target('hip:gfx942')" in message, message


def test_a_cuda_array_on_a_hip_target_is_refused(hip_target):
    k = triton_jit.jit(py_kernels.add_kernel)
    with pytest.raises(triton_jit.ArgumentError) as e:
        k.specialize(RocmArray(4096), RocmArray(8192, device_type=KDL_CUDA), RocmArray(12288), 1000)
    message = str(e.value)
    assert "argument 'y_ptr'" in message and "CUDA (NVIDIA) device" in message and "AMD GPU" in message, message
    # Host memory is host memory on either vendor's target.
    with pytest.raises(triton_jit.ArgumentError, match="pinned host memory \\(ROCm host\\)"):
        k.specialize(RocmArray(4096, device_type=11), RocmArray(8192), RocmArray(12288), 1000)


def test_num_stages_left_to_the_target_is_tritons_default(hip_target):
    """A call without num_stages (or with None, which Triton's parse_options drops) is keyed with
    the num_stages Triton's own HIP launch compiles with (HIPOptions: 2); a stated one, 3
    included, is kept. A CUDA target's default stays 3."""
    fn = py_kernels.add_kernel
    k = triton_jit.jit(fn)
    arrays = (RocmArray(4096), RocmArray(8192), RocmArray(12288))
    args = [reference_pointer(a) for a in arrays] + [1000]
    tritons = triton_reference.triton_num_stages(fn, args, {}, hip_target)
    assert tritons == 2
    assert k.specialize(*arrays, 1000).num_stages == tritons
    assert k.specialize(*arrays, 1000, num_stages=None).num_stages == tritons
    for stated in (0, 3, 4):
        assert k.specialize(*arrays, 1000, num_stages=stated).num_stages == stated
        assert triton_reference.triton_num_stages(fn, args, {"num_stages": stated}, hip_target) == stated
    with pytest.raises(triton_jit.ArgumentError, match="num_stages"):
        k.specialize(*arrays, 1000, num_stages=-1)
    # A CompileRequest leaves it to the target unless it states one.
    assert triton_jit.CompileRequest("*fp32:16,*fp32:16,*fp32:16,i32").num_stages is None
    assert triton_jit.CompileRequest("*fp32:16,*fp32:16,*fp32:16,i32", num_stages=3).num_stages == 3
    with pytest.raises(triton_jit.ArgumentError, match="num_stages"):
        triton_jit.CompileRequest("*fp32:16,*fp32:16,*fp32:16,i32", num_stages=-1)
    triton_jit.set_target("cuda:90")
    cuda = [CudaArray(a, "fp32", shape=(16, )) for a in (4096, 8192, 12288)]
    assert k.specialize(*cuda, 1000).num_stages == 3
    assert triton_reference.triton_num_stages(fn, args, {}, ("cuda", 90, 32)) == 3


def test_a_cuda_array_interface_gets_its_span_on_a_hip_target(hip_target):
    """CuPy-ROCm shows HIP memory through __cuda_array_interface__: its span decides 'S', as for
    the tensor torch.as_tensor makes over it."""
    fn = py_kernels.add_kernel
    small, large = CudaArray(4096, "fp32", shape=(1024, )), CudaArray(8192, "fp32", shape=(1 << 29, ))
    ours = triton_jit.jit(fn).specialize(small, large, small, 7).triton_repr()
    args = [triton_reference.make_pointer(4096, "fp32", 4096), triton_reference.make_pointer(8192, "fp32", 1 << 31),
            triton_reference.make_pointer(4096, "fp32", 4096), 7]
    assert ours == triton_reference.triton_specialization(fn, [(args, {})], hip_target)[0]


# ---- a launch through the fake HIP runtime, in a process of its own -----------------------------
# The runtime chooses libcuda or the HIP runtime once per process, at its first launch: each case
# runs in a fresh python whose TRITON_JIT_HIP_LIBRARY names the fake (its device: gfx942, 64-wide
# waves), with no explicit target, so the target is the device's.

FAKE_HIP = os.environ.get("TRITON_JIT_TEST_FAKE_HIP", "")

LAUNCH_SCRIPT = r"""
import ctypes, json, sys
sys.path[:0] = {paths!r}
import triton_jit, triton_reference, py_kernels
from test_rocm import FAKE_CUPY, RocmArray, reference_pointer

fake = ctypes.CDLL({fake!r})  # the library the runtime loaded: dlopen returns the same one
fake.fake_hip_launch_args.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_uint64), ctypes.c_int]
fake.fake_hip_launch_shape.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint),
                                       ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_void_p)]
fake.fake_hip_launch_shape.restype = ctypes.c_bool

def launches():
    out = []
    for i in range(fake.fake_hip_num_launches()):
        args = (ctypes.c_uint64 * 16)()
        n = fake.fake_hip_launch_args(i, args, 16)
        grid, block = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
        shared, stream = ctypes.c_uint(), ctypes.c_void_p()
        fake.fake_hip_launch_shape(i, grid, block, ctypes.byref(shared), ctypes.byref(stream))
        out.append({{"args": list(args[:n]), "grid": list(grid), "block": list(block), "stream": stream.value or 0}})
    return out

fn = py_kernels.add_kernel
k = triton_jit.jit(fn)
result = {{}}
{body}
print("RESULT " + json.dumps(result))
"""


def run_on_fake_hip(body):
    if not FAKE_HIP or not os.path.exists(FAKE_HIP):
        pytest.skip("the fake HIP runtime is not built (TRITON_JIT_TEST_FAKE_HIP: build cpu_internal_test's "
                    f"triton_jit_fake_hip; got {FAKE_HIP!r})")
    import needs_gpu
    if needs_gpu.why_no_cuda_gpu() is None:
        pytest.skip("libcuda is here and has a device: the runtime launches on it, not on the fake HIP runtime")
    import triton
    if not hasattr(triton._C.libtriton.amd, "link_hsaco"):
        pytest.skip(f"Triton {triton.__version__} needs ROCm's ld.lld to link a code object")
    paths = [HERE, os.path.join(HERE, "kernels"), os.path.join(os.path.dirname(HERE), "support")]
    script = LAUNCH_SCRIPT.format(paths=paths, fake=FAKE_HIP, body=textwrap.indent(textwrap.dedent(body), ""))
    env = dict(os.environ, TRITON_JIT_HIP_LIBRARY=FAKE_HIP)
    env.pop("TRITON_JIT_TARGET", None)
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return json.loads(lines[-1][len("RESULT "):])


def test_a_python_launch_of_rocm_arrays_goes_through_the_hip_runtime():
    """k[grid](rocm arrays...) with the device's own target (hip:gfx942 from the fake): the key has
    Triton's 'S' flags (the launch reads each array's span, as Triton's binder reads storage), the
    kernel launched is the one triton.compile builds for that key, and the parameters the HIP
    runtime received are the call's, in the layout Triton's own AMD launcher builds."""
    r = run_on_fake_hip("""
        x, y = RocmArray(0x10000, shape=(1000, )), RocmArray(0x20000, shape=(1 << 30, ))
        out = RocmArray(0x30000, shape=(1000, ), byte_offset=64)
        k[(4, )](x, y, out, 1000, BLOCK=256, stream=0x5000)
        k[(4, )](x, y, out, 1000, BLOCK=256)  # the same key: a hit, on the default stream
        result["launches"] = launches()
        result["spec"] = k.specialize(x, y, out, 1000, BLOCK=256).triton_repr()
        result["target"] = k.specialize(x, y, out, 1000, BLOCK=256).target
        args = [reference_pointer(a) for a in (x, y, out)] + [1000]
        result["triton_spec"] = triton_reference.triton_specialization(fn, [(args, {"BLOCK": 256})],
                                                                       ("hip", "gfx942", 64))[0]
        result["layout"] = triton_reference.hip_launcher_layout(fn, args + [256], ("hip", "gfx942", 64))
        # The launch named no num_stages, as Triton's below: HIPOptions' default.
        result["hash"] = k.compile(x, y, out, 1000, BLOCK=256).hash
        result["triton_hash"] = triton_reference.triton_compile(fn, args, {"BLOCK": 256, "num_warps": 4},
                                                                ("hip", "gfx942", 64))[0]
        result["hash_3"] = k.compile(x, y, out, 1000, BLOCK=256, num_stages=3).hash
        result["triton_hash_3"] = triton_reference.triton_compile(fn, args, {"BLOCK": 256, "num_warps": 4, "num_stages": 3},
                                                                  ("hip", "gfx942", 64))[0]
        result["num_stages"] = k.specialize(x, y, out, 1000, BLOCK=256).num_stages
        seen = []
        def grid(meta):
            seen.append(meta["num_stages"])
            return (4, )
        k[grid](x, y, out, 1000, BLOCK=256)  # the same kernel: the grid reads the target's default
        result["grid_num_stages"] = seen
        result["launches_after_grid"] = len(launches())
        """)
    assert r["target"] == "hip:gfx942"
    assert r["spec"] == r["triton_spec"], r
    from triton import knobs
    if knobs.amd.use_buffer_ops:
        assert r["spec"].startswith("[('*fp32', 'DS'), ('*fp32', 'D'), ('*fp32', 'DS')"), r["spec"]
    assert r["hash"] == r["triton_hash"]
    assert r["hash_3"] == r["triton_hash_3"] and r["hash_3"] != r["hash"], r
    assert r["num_stages"] == 2 and r["grid_num_stages"] == [2] and r["launches_after_grid"] == 3, r
    launches = r["launches"]
    assert len(launches) == 2, launches
    layout = r["layout"]
    assert layout["params"][:4] == ["arg0", "arg1", "arg2", "arg3"], layout
    assert layout["params"][4:] == ["global_scratch", "profile_scratch"], layout
    for launch in launches:
        # The explicit arguments in the code object's order: x, y, out (its byte offset applied), n,
        # then the two scratch pointers (none allocated for this kernel).
        assert launch["args"][:4] == [0x10000, 0x20000, 0x30000 + 64, 1000], launch
        assert len(launch["args"]) == len(layout["params"]), launch
        assert launch["grid"] == [4, 1, 1]
        assert launch["block"] == [layout["warp_size"] * 4, 1, 1] == [256, 1, 1]
    assert [launch["stream"] for launch in launches] == [0x5000, 0]


def test_torch_on_rocm_emulated_takes_the_hip_stream_and_the_storage():
    """EMULATION of torch on ROCm, for the selection logic only (no ROCm torch exists here):
    torch.version.hip is set, the tensors are CPU tensors of a subclass that says is_cuda (as ROCm
    torch's AMD tensors do) at a made-up address, and torch's current-stream function returns a
    made-up hipStream_t. The launch goes through the fake HIP runtime on that stream, with 'S'
    from each tensor's untyped_storage().size(), as Triton's HIP binder reads it."""
    pytest.importorskip("torch")
    r = run_on_fake_hip("""
        import torch
        torch.version.hip = "6.4.0-emulated"
        torch.cuda.device_count = lambda: 1
        torch._C._cuda_getCurrentRawStream = lambda device: 0x7000 + device
        torch._C._cuda_getDevice = lambda: 0

        class RocmTensor(torch.Tensor):
            address = 0
            @property
            def is_cuda(self):
                return True
            def data_ptr(self):
                return self.address

        def tensor(address, n):
            t = torch.Tensor._make_subclass(RocmTensor, torch.empty(n, dtype=torch.float32))
            t.address = address
            return t

        x, y, out = tensor(0x10000, 1000), tensor(0x20000, 1000), tensor(0x30000, 1000)
        k[(4, )](x, y, out, 1000, BLOCK=256)
        result["launches"] = launches()
        result["spec"] = k.specialize(x, y, out, 1000, BLOCK=256).triton_repr()
        args = [triton_reference.make_pointer(a, "fp32", 4000) for a in (0x10000, 0x20000, 0x30000)] + [1000]
        result["triton_spec"] = triton_reference.triton_specialization(fn, [(args, {"BLOCK": 256})],
                                                                       ("hip", "gfx942", 64))[0]
        """)
    assert r["spec"] == r["triton_spec"], r
    (launch, ) = r["launches"]
    assert launch["args"][:4] == [0x10000, 0x20000, 0x30000, 1000]
    assert launch["stream"] == 0x7000  # torch's current (HIP) stream of device 0


FAKE_CUPY = '''
import sys, types
cupy = types.ModuleType("cupy")
cupy.cuda = types.ModuleType("cupy.cuda")
cupy.cuda.runtime = types.ModuleType("cupy.cuda.runtime")
cupy.cuda.runtime.is_hip = IS_HIP
cupy.cuda.get_current_stream = lambda: types.SimpleNamespace(ptr=0x9000)

class ndarray:
    def __init__(self, address, n):
        self.__cuda_array_interface__ = {"data": (address, False), "typestr": "<f4", "shape": (n, ),
                                         "strides": None, "version": 3}

cupy.ndarray = ndarray
sys.modules.update({"cupy": cupy, "cupy.cuda": cupy.cuda, "cupy.cuda.runtime": cupy.cuda.runtime})
'''


def test_cupy_on_rocm_emulated_takes_its_hip_stream():
    """EMULATION of CuPy's ROCm build (a stand-in cupy module: cupy.cuda.runtime.is_hip True, an
    ndarray with __cuda_array_interface__, a current stream): the launch goes through the fake HIP
    runtime on CuPy's current stream, with 'S' from each array's span."""
    r = run_on_fake_hip(FAKE_CUPY.replace("IS_HIP", "True") + """
x, y, out = cupy.ndarray(0x10000, 1000), cupy.ndarray(0x20000, 1 << 30), cupy.ndarray(0x30000, 1000)
k[(4, )](x, y, out, 1000, BLOCK=256)
result["launches"] = launches()
result["spec"] = k.specialize(x, y, out, 1000, BLOCK=256).triton_repr()
args = [triton_reference.make_pointer(a, "fp32", n * 4) for a, n in ((0x10000, 1000), (0x20000, 1 << 30), (0x30000, 1000))]
result["triton_spec"] = triton_reference.triton_specialization(fn, [(args + [1000], {"BLOCK": 256})],
                                                               ("hip", "gfx942", 64))[0]
""")
    assert r["spec"] == r["triton_spec"], r
    (launch, ) = r["launches"]
    assert launch["args"][:4] == [0x10000, 0x20000, 0x30000, 1000]
    assert launch["stream"] == 0x9000


def test_a_cuda_torch_tensor_is_refused_by_a_hip_launch():
    """A torch built for CUDA (torch.version.hip None), or a CuPy built for CUDA, while the runtime
    launches through the HIP runtime: their arrays are not the AMD GPU's memory; one clear error,
    before anything compiles."""
    pytest.importorskip("torch")
    r = run_on_fake_hip("""
        import torch

        class CudaTensor(torch.Tensor):
            @property
            def is_cuda(self):
                return True
            def data_ptr(self):
                return 0x10000

        torch.cuda.device_count = lambda: 1
        x = torch.Tensor._make_subclass(CudaTensor, torch.empty(16))
        try:
            k[(1, )](x, x, x, 16)
            result["error"] = None
        except triton_jit.ArgumentError as e:
            result["error"] = str(e)
        IS_HIP = False  # CuPy's CUDA build
        exec(FAKE_CUPY)
        try:
            k[(1, )](cupy.ndarray(0x10000, 16), cupy.ndarray(0x10000, 16), cupy.ndarray(0x10000, 16), 16)
            result["cupy_error"] = None
        except triton_jit.ArgumentError as e:
            result["cupy_error"] = str(e)
        result["launches"] = launches()
        """)
    assert r["error"] is not None and "a torch tensor on a CUDA (NVIDIA) device" in r["error"], r
    assert r["cupy_error"] is not None and "a CuPy array on a CUDA (NVIDIA) device" in r["cupy_error"], r
    assert r["launches"] == []


def test_jax_on_rocm_gets_the_xla_ffi_handler_too():
    """Launches inside jax.jit are XLA custom calls: the handler is registered for JAX's ROCm
    platform as for CUDA (kept pending by jaxlib where no ROCm plugin is loaded, as here)."""
    pytest.importorskip("jax")
    from triton_jit import _jax
    if not _jax.available():
        pytest.skip("the extension was built without jax's XLA FFI headers")
    _jax._register()
    from jaxlib import xla_client
    for platform in ("CUDA", "ROCM"):
        pending = [entry[0] for entry in xla_client._custom_callback.get(platform, [])]
        assert _jax.TARGET in pending or platform in xla_client._custom_callback_handler, platform

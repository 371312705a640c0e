#include "convert.h"

#include <nanobind/nanobind.h>

#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

#include "dtypes.h"
#include "pyutil.h"
#include "torch_native.h"
#include "triton_jit/dtype.h"
#include "triton_jit/errors.h"

namespace nb = nanobind;

namespace triton_jit::python {
namespace {

// ---- DLPack, as its specification lays the structures out (DLPack 0.8 / 1.x, unversioned) ----
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
constexpr int32_t kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLROCM = 10, kDLROCMHost = 11, kDLCUDAManaged = 13;

// ---- interned names and framework types ----
struct Names {
  PyObject *data_ptr, *dtype, *is_cuda, *get_device, *cai, *dlpack, *dlpack_device, *value, *device, *type, *nbytes,
      *stream, *ptr;
};
Names n{};

PyObject* intern(const char* s) { return PyUnicode_InternFromString(s); }

[[noreturn]] void fail(const ConvertContext& ctx, const std::string& param, const std::string& message) {
  throw ArgumentError("argument '" + param + "' of " + *ctx.function + ": " + message, *ctx.function, param);
}

// The Python error of a failed probe, with the parameter named.
[[noreturn]] void fail_python(const ConvertContext& ctx, const std::string& param, const char* what) {
  nb::python_error e;  // takes the pending error
  fail(ctx, param, std::string(what) + " raised " + e.what());
}

// A tensor's dtype attribute to the runtime's DType, through the identity cache.
DType tensor_dtype(PyObject* dtype, const ConvertContext& ctx, const std::string& param) {
  DType d;
  bool torch_spelling;
  if (!dtype_of(dtype, &d, &torch_spelling)) {
    fail(ctx, param, "a tensor of element type " + repr_of(dtype) + ", which Triton has no pointer type for");
  }
  return d;
}

uint64_t as_address(PyObject* o, const ConvertContext& ctx, const std::string& param, const char* what) {
  if (!PyLong_Check(o)) fail(ctx, param, std::string(what) + " is a " + type_name(o) + ", not an int");
  const unsigned long long v = PyLong_AsUnsignedLongLong(o);
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) fail_python(ctx, param, what);
  return v;
}

void note_tensor(ConvertContext& ctx, Framework framework, int device, const std::string& param) {
  if (ctx.framework == Framework::None) ctx.framework = framework;
  if (device < 0) return;
  if (ctx.device < 0) {
    ctx.device = device;
    ctx.device_param = &param;
  } else if (ctx.device != device) {
    fail(ctx, param,
         "a tensor on GPU " + std::to_string(device) + " while an earlier argument is on GPU " +
             std::to_string(ctx.device) + "; all tensors of a launch must be on one device");
  }
}

// ---- the three tensor protocols ----

ArgValue from_torch(PyObject* o, const std::string& param, ConvertContext& ctx, bool multi_gpu);

// o.data_ptr() without making a bound method.
PyObject* call_data_ptr(PyObject* o) {
  PyObject* self[1] = {o};
  return PyObject_VectorcallMethod(n.data_ptr, self, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
}

ArgValue from_data_ptr(PyObject* o, const std::string& param, ConvertContext& ctx) {
  nb::object addr = nb::steal(call_data_ptr(o));
  if (!addr.is_valid()) fail_python(ctx, param, "data_ptr()");
  const uint64_t address = as_address(addr.ptr(), ctx, param, "data_ptr()");
  nb::object dtype = nb::steal(PyObject_GetAttr(o, n.dtype));
  if (!dtype.is_valid()) {
    PyErr_Clear();
    fail(ctx, param, "an object with data_ptr() but no dtype attribute (" + type_name(o) + ")");
  }
  // An object that says where it lives (a device attribute of type str or with .type) must be
  // on a CUDA device.
  if (nb::object device = optional_attr(o, n.device); device.is_valid()) {
    nb::object kind = PyUnicode_Check(device.ptr()) ? device : optional_attr(device.ptr(), n.type);
    if (!kind.is_valid()) PyErr_Clear();
    if (kind.is_valid() && PyUnicode_Check(kind.ptr())) {
      std::string_view k = PyUnicode_AsUTF8(kind.ptr());
      if (k.rfind("cuda", 0) != 0) {
        fail(ctx, param, "a tensor on " + str_of(device.ptr()) + "; kernels run on the GPU: move it to a CUDA device");
      }
    }
  } else {
    PyErr_Clear();
  }
  note_tensor(ctx, Framework::Other, -1, param);
  return ArgValue::pointer_address(address, tensor_dtype(dtype.ptr(), ctx, param));
}

// The bytes an array spans, as torch sizes the storage of a tensor made over it (at::from_blob's
// computeStorageNbytes, what torch.as_tensor and torch.from_dlpack build): one element plus
// (shape[i] - 1) * |stride[i]| bytes, 0 when a dimension is empty. False when the shape or the
// strides cannot be read.
bool array_span(PyObject* shape, PyObject* strides, int itemsize, uint64_t* out) {
  if (shape == nullptr || !PyTuple_Check(shape)) return false;
  const Py_ssize_t nd = PyTuple_GET_SIZE(shape);
  uint64_t span = static_cast<uint64_t>(itemsize);
  uint64_t contiguous = static_cast<uint64_t>(itemsize);
  const bool have_strides = strides != nullptr && PyTuple_Check(strides) && PyTuple_GET_SIZE(strides) == nd;
  bool empty = false;
  for (Py_ssize_t i = nd - 1; i >= 0; --i) {
    const long long extent = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
    const long long stride = have_strides ? PyLong_AsLongLong(PyTuple_GET_ITEM(strides, i))
                                          : static_cast<long long>(contiguous);
    if (PyErr_Occurred() || extent < 0) return PyErr_Clear(), false;
    if (extent == 0) empty = true;
    if (extent > 0) span += static_cast<uint64_t>(extent - 1) * static_cast<uint64_t>(stride < 0 ? -stride : stride);
    contiguous *= static_cast<uint64_t>(extent);
  }
  *out = empty ? 0 : span;
  return true;
}

// A pointer with the span of its array: the size of its buffer for autotuning (need_bytes), and,
// for a HIP target, the storage Triton's HIP backend would measure ('S') on the torch tensor made
// over the same array.
ArgValue pointer_with_span(uint64_t address, DType dtype, bool span_known, uint64_t span, const ConvertContext& ctx) {
  const void* p = reinterpret_cast<const void*>(static_cast<uintptr_t>(address));
  if (span_known && ctx.need_storage) return ArgValue::pointer_in_storage(p, dtype, span, span);
  return ArgValue::pointer(p, dtype, span_known && ctx.need_bytes ? span : 0);
}

bool g_cupy_hip_read = false, g_cupy_hip = false;  // cupy.cuda.runtime.is_hip, read once

// A launch's tensors must be memory of the runtime that launches: HIP's on an AMD GPU, CUDA's on
// an NVIDIA one. `rocm`: the framework says its memory is ROCm's.
void check_backend(const ConvertContext& ctx, const std::string& param, bool rocm, const char* what) {
  if (rocm == ctx.hip) return;
  fail(ctx, param,
       rocm ? std::string(what) +
                  " on a ROCm (AMD) device, but this call's kernel is for an NVIDIA GPU (a cuda: target, or the "
                  "runtime launching through libcuda); pass arrays of the GPU the kernel runs on, or set a hip: "
                  "target (triton_jit.set_target('hip:gfx942')) to specialize for an AMD GPU"
            : std::string(what) +
                  " on a CUDA (NVIDIA) device, but this call's kernel is for an AMD GPU (a hip: target, or the "
                  "runtime launching through the HIP runtime); pass arrays of the GPU the kernel runs on, or set a "
                  "cuda: target to specialize for an NVIDIA GPU");
}

ArgValue from_cuda_array_interface(PyObject* o, PyObject* cai, const std::string& param, ConvertContext& ctx) {
  if (!PyDict_Check(cai)) fail(ctx, param, "__cuda_array_interface__ is not a dict (" + type_name(cai) + ")");
  PyObject* data = PyDict_GetItemString(cai, "data");  // borrowed
  PyObject* typestr = PyDict_GetItemString(cai, "typestr");
  if (data == nullptr || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) < 1 || typestr == nullptr ||
      !PyUnicode_Check(typestr)) {
    fail(ctx, param, "__cuda_array_interface__ without a 'data' tuple and a 'typestr' (" + repr_of(cai) + ")");
  }
  const uint64_t address = as_address(PyTuple_GET_ITEM(data, 0), ctx, param, "__cuda_array_interface__['data'][0]");
  DType dtype;
  const std::string_view ts = PyUnicode_AsUTF8(typestr);
  if (!dtype_of_typestr(ts, &dtype)) {
    fail(ctx, param,
         "__cuda_array_interface__ typestr '" + std::string(ts) +
             "' has no Triton pointer type (bool, int8-64, uint8-64, float16/32/64 are understood; pass a torch "
             "tensor or a DLPack array for bfloat16 and float8)");
  }
  uint64_t span = 0;
  const bool span_known = (ctx.need_bytes || ctx.need_storage) &&
                          array_span(PyDict_GetItemString(cai, "shape"), PyDict_GetItemString(cai, "strides"),
                                     dtype_size(dtype), &span);
  const bool cupy = g_cupy_ndarray.is(o);
  if (cupy && ctx.launching) {
    // CuPy's ROCm build exposes the same interface over HIP memory; the build says which it is.
    if (!g_cupy_hip_read) {
      nb::object runtime = nb::module_::import_("cupy.cuda.runtime");
      nb::object is_hip = nb::steal(PyObject_GetAttrString(runtime.ptr(), "is_hip"));  // CuPy 8 and newer
      if (!is_hip.is_valid()) PyErr_Clear();
      g_cupy_hip = is_hip.is_valid() && PyObject_IsTrue(is_hip.ptr()) == 1;
      g_cupy_hip_read = true;
    }
    check_backend(ctx, param, g_cupy_hip, "a CuPy array");
  }
  note_tensor(ctx, cupy ? Framework::CuPy : Framework::Other, -1, param);
  return pointer_with_span(address, dtype, span_known, span, ctx);
}

const char* device_type_name(int32_t t) {
  switch (t) {
    case kDLCPU: return "the host (CPU)";
    case kDLCUDAHost: return "pinned host memory (CUDA host)";
    case 4: return "an OpenCL device";
    case 7: return "a Vulkan device";
    case 8: return "a Metal device";
    case kDLROCM: return "a ROCm device";
    case kDLROCMHost: return "pinned host memory (ROCm host)";
    case 14: return "a oneAPI device";
    default: return "a device that is not a CUDA GPU";
  }
}

ArgValue from_dlpack(PyObject* o, PyObject* dlpack_device_method, const std::string& param, ConvertContext& ctx) {
  nb::object dev = nb::steal(PyObject_CallNoArgs(dlpack_device_method));
  if (!dev.is_valid()) fail_python(ctx, param, "__dlpack_device__()");
  if (!PyTuple_Check(dev.ptr()) || PyTuple_GET_SIZE(dev.ptr()) != 2) {
    fail(ctx, param, "__dlpack_device__() returned " + repr_of(dev.ptr()) + ", not (device_type, device_id)");
  }
  const long type = PyLong_AsLong(PyTuple_GET_ITEM(dev.ptr(), 0));
  const long id = PyLong_AsLong(PyTuple_GET_ITEM(dev.ptr(), 1));
  if (PyErr_Occurred()) fail_python(ctx, param, "__dlpack_device__()");
  // Device memory of either vendor; it must be that of the call's target (kDLROCM for hip:).
  const bool rocm = type == kDLROCM;
  if (type != kDLCUDA && type != kDLCUDAManaged && !rocm) {
    fail(ctx, param,
         std::string("an array on ") + device_type_name(static_cast<int32_t>(type)) +
             "; kernels run on the GPU: move it to a " + (ctx.hip ? "ROCm" : "CUDA") + " device first");
  }
  check_backend(ctx, param, rocm, rocm ? "a DLPack array (kDLROCM)" : "a DLPack array (kDLCUDA)");
  nb::object method = nb::steal(PyObject_GetAttr(o, n.dlpack));
  if (!method.is_valid()) fail_python(ctx, param, "__dlpack__");
  nb::object capsule;
  if (ctx.dlpack_stream != nullptr) {
    PyObject* kwnames = PyTuple_Pack(1, n.stream);
    PyObject* argv[2] = {nullptr, ctx.dlpack_stream};
    capsule = nb::steal(PyObject_Vectorcall(method.ptr(), argv + 1, 0 | PY_VECTORCALL_ARGUMENTS_OFFSET, kwnames));
    Py_DECREF(kwnames);
  } else {
    capsule = nb::steal(PyObject_CallNoArgs(method.ptr()));
  }
  if (!capsule.is_valid()) fail_python(ctx, param, "__dlpack__()");
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (managed == nullptr) {
    PyErr_Clear();
    fail(ctx, param, "__dlpack__() did not return a 'dltensor' capsule");
  }
  const DLTensor& t = managed->dl_tensor;
  DType dtype;
  if (!dtype_of_dlpack(t.dtype.code, t.dtype.bits, t.dtype.lanes, &dtype)) {
    fail(ctx, param,
         "a DLPack array of type code " + std::to_string(t.dtype.code) + ", " + std::to_string(t.dtype.bits) +
             " bits, " + std::to_string(t.dtype.lanes) + " lanes, which Triton has no pointer type for");
  }
  const uint64_t address = reinterpret_cast<uintptr_t>(t.data) + t.byte_offset;
  // The span as array_span measures it (DLPack strides count elements).
  uint64_t span = 0;
  const bool span_known = (ctx.need_bytes || ctx.need_storage) && (t.shape != nullptr || t.ndim == 0);
  if (span_known) {
    const uint64_t itemsize = static_cast<uint64_t>(dtype_size(dtype));
    uint64_t contiguous = 1;
    bool empty = false;
    span = itemsize;
    for (int i = t.ndim - 1; i >= 0; --i) {
      const int64_t stride = t.strides != nullptr ? t.strides[i] : static_cast<int64_t>(contiguous);
      if (t.shape[i] <= 0) empty = true;
      span += static_cast<uint64_t>(t.shape[i] > 0 ? t.shape[i] - 1 : 0) *
              static_cast<uint64_t>(stride < 0 ? -stride : stride) * itemsize;
      contiguous *= static_cast<uint64_t>(t.shape[i] > 0 ? t.shape[i] : 0);
    }
    if (empty) span = 0;
  }
  // The capsule was not consumed: releasing it calls the producer's deleter; the memory stays
  // owned by `o`, which the caller holds for the whole call.
  capsule.reset();
  note_tensor(ctx, Framework::Other, static_cast<int>(id), param);
  return pointer_with_span(address, dtype, span_known, span, ctx);
}

// Cached answers about the process's GPUs, per framework.
int g_torch_gpus = -1;
int g_torch_rocm = -1;  // torch.version.hip is set: a ROCm build, whose 'cuda' device is an AMD GPU

bool torch_is_rocm() {
  if (g_torch_rocm >= 0) return g_torch_rocm == 1;
  nb::object hip = nb::module_::import_("torch").attr("version").attr("hip");
  g_torch_rocm = hip.is_none() ? 0 : 1;
  return g_torch_rocm == 1;
}

bool torch_multi_gpu() {
  if (g_torch_gpus >= 0) return g_torch_gpus > 1;  // asked once per process
  nb::module_ torch = nb::module_::import_("torch");
  g_torch_gpus = nb::cast<int>(torch.attr("cuda").attr("device_count")());
  return g_torch_gpus > 1;
}

[[noreturn]] void fail_not_cuda(PyObject* o, const ConvertContext& ctx, const std::string& param) {
  nb::object device = nb::steal(PyObject_GetAttr(o, n.device));
  if (!device.is_valid()) PyErr_Clear();
  fail(ctx, param,
       "a torch tensor on " + (device.is_valid() ? str_of(device.ptr()) : std::string("a non-CUDA device")) +
           "; kernels run on the GPU: move it with .cuda() or .to('cuda')");
}

// A torch tensor through its Python attributes (a subclass, a torch function mode, a patched
// torch.Tensor, or no triton_jit._torch_native), its element type in *dtype (a subclass's dtype
// attribute may return an object it does not keep).
TorchTensorFacts read_torch_in_python(PyObject* o, const std::string& param, const ConvertContext& ctx, bool multi_gpu,
                                      DType* dtype_out) {
  TorchTensorFacts f;
  PyObject* is_cuda = PyObject_GetAttr(o, n.is_cuda);
  if (is_cuda == nullptr) fail_python(ctx, param, "Tensor.is_cuda");
  Py_DECREF(is_cuda);  // True/False are immortal
  f.is_cuda = is_cuda == Py_True;
  if (!f.is_cuda) return f;
  nb::object addr = nb::steal(call_data_ptr(o));
  if (!addr.is_valid()) fail_python(ctx, param, "Tensor.data_ptr()");
  f.address = PyLong_AsUnsignedLongLong(addr.ptr());
  nb::object dtype = nb::steal(PyObject_GetAttr(o, n.dtype));
  if (!dtype.is_valid()) fail_python(ctx, param, "Tensor.dtype");
  *dtype_out = tensor_dtype(dtype.ptr(), ctx, param);
  if (multi_gpu) {
    nb::object index = nb::steal(PyObject_CallMethodNoArgs(o, n.get_device));
    if (!index.is_valid()) fail_python(ctx, param, "Tensor.get_device()");
    f.device = static_cast<int32_t>(PyLong_AsLong(index.ptr()));
  }
  if (ctx.need_bytes) {
    nb::object nbytes = nb::steal(PyObject_GetAttr(o, n.nbytes));
    if (nbytes.is_valid()) f.nbytes = PyLong_AsUnsignedLongLong(nbytes.ptr());
    if (PyErr_Occurred()) PyErr_Clear(), f.nbytes = 0;
  }
  return f;
}

ArgValue from_torch(PyObject* o, const std::string& param, ConvertContext& ctx, bool multi_gpu) {
  TorchTensorFacts f;
  DType d{};
  const TorchNativeApi* native = torch_native();
  const int read = native != nullptr ? native->read_tensor(o, ctx.need_bytes, &f) : 0;
  if (read < 0) fail_python(ctx, param, "Tensor.data_ptr()");
  if (read == 0) f = read_torch_in_python(o, param, ctx, multi_gpu, &d);
  if (!f.is_cuda) fail_not_cuda(o, ctx, param);
  // torch's own dtype object, which torch keeps for the process.
  if (read > 0) d = tensor_dtype(f.dtype, ctx, param);
  // A ROCm build of torch names its AMD GPUs 'cuda' too: its version says whose memory this is.
  if (ctx.launching) check_backend(ctx, param, torch_is_rocm(), "a torch tensor");
  note_tensor(ctx, Framework::Torch, multi_gpu ? f.device : -1, param);
  return ArgValue::pointer(reinterpret_cast<const void*>(static_cast<uintptr_t>(f.address)), d, f.nbytes);
}

ArgValue from_dtype(PyObject* o, const std::string& param, ConvertContext& ctx) {
  DType d;
  bool torch_spelling;
  if (!dtype_of(o, &d, &torch_spelling)) fail(ctx, param, "the dtype " + repr_of(o) + " has no Triton equivalent");
  return torch_spelling ? ArgValue::torch_dtype(d) : ArgValue::triton_dtype(d);
}

// What an argument's type says it is, decided once per type: a launch then reads its objects
// without probing attributes again.
enum class Kind : uint8_t { Torch, Dtype, Constexpr, HostDescriptor, DataPtr, CudaArrayInterface, DLPack, Probe };

// Triton's host TensorDescriptor (triton.tools.tensor_descriptor), by its class: Gluon's
// descriptors (triton.experimental.gluon...) carry a layout the key would need and are not this.
bool is_host_descriptor_type(PyTypeObject* type) {
  if (std::string_view(type->tp_name) != "TensorDescriptor") return false;
  nb::object module = nb::steal(PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), "__module__"));
  if (!module.is_valid()) {
    PyErr_Clear();
    return false;
  }
  return PyUnicode_Check(module.ptr()) &&
         std::string_view(PyUnicode_AsUTF8(module.ptr())) == "triton.tools.tensor_descriptor";
}

// A list of ints of a descriptor (shape, strides, block_shape): up to kMaxRank entries.
template <typename T>
int descriptor_ints(PyObject* o, const char* field, T* out, const ConvertContext& ctx, const std::string& param) {
  nb::object list = nb::steal(PyObject_GetAttrString(o, field));
  if (!list.is_valid()) fail_python(ctx, param, field);
  nb::object seq = nb::steal(PySequence_Fast(list.ptr(), "not a sequence"));
  if (!seq.is_valid()) {
    PyErr_Clear();
    fail(ctx, param, std::string("a TensorDescriptor whose ") + field + " is a " + type_name(list.ptr()) +
                         ", not a list of ints");
  }
  const Py_ssize_t size = PySequence_Fast_GET_SIZE(seq.ptr());
  if (size > TensorDescriptor::kMaxRank) {
    fail(ctx, param, std::string("a TensorDescriptor with ") + std::to_string(size) + " " + field +
                         " entries; a tensor descriptor has 1 to 5 dimensions");
  }
  for (Py_ssize_t i = 0; i < size; ++i) {
    const long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq.ptr(), i));
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      fail(ctx, param, std::string("a TensorDescriptor whose ") + field + " holds " +
                           repr_of(PySequence_Fast_GET_ITEM(seq.ptr(), i)) + ", not an int");
    }
    out[i] = static_cast<T>(v);
  }
  return static_cast<int>(size);
}

// Triton's TensorDescriptor as its binder reads it: the base tensor (its address, element type
// and device, as a tensor argument), shape, strides, block_shape and padding ("zero" or "nan").
ArgValue from_host_descriptor(PyObject* o, const std::string& param, ConvertContext& ctx) {
  nb::object tf32 = nb::steal(PyObject_GetAttrString(o, "round_f32_to_tf32"));  // Triton 3.7 and newer
  if (!tf32.is_valid()) {
    PyErr_Clear();
  } else if (PyObject_IsTrue(tf32.ptr()) == 1) {
    fail(ctx, param,
         "a TensorDescriptor with round_f32_to_tf32=True, which the runtime does not support; round the tensor "
         "before the call or pass round_f32_to_tf32=False");
  }
  nb::object base = nb::steal(PyObject_GetAttrString(o, "base"));
  if (!base.is_valid()) fail_python(ctx, param, "TensorDescriptor.base");
  const ArgValue pointer = convert_arg(base.ptr(), param, ctx);
  if (pointer.kind() != ArgValue::Kind::Pointer) {
    fail(ctx, param, "a TensorDescriptor whose base is a " + type_name(base.ptr()) + ", not a GPU tensor");
  }
  int64_t shape[TensorDescriptor::kMaxRank], strides[TensorDescriptor::kMaxRank];
  int32_t block[TensorDescriptor::kMaxRank];
  const int rank = descriptor_ints(o, "shape", shape, ctx, param);
  if (descriptor_ints(o, "strides", strides, ctx, param) != rank ||
      descriptor_ints(o, "block_shape", block, ctx, param) != rank) {
    fail(ctx, param, "a TensorDescriptor whose shape, strides and block_shape differ in length");
  }
  Padding padding = Padding::Zero;
  nb::object pad = nb::steal(PyObject_GetAttrString(o, "padding"));  // none on Triton 3.4
  if (!pad.is_valid()) {
    PyErr_Clear();
  } else if (PyUnicode_Check(pad.ptr()) && std::string_view(PyUnicode_AsUTF8(pad.ptr())) == "nan") {
    padding = Padding::Nan;
  } else if (!PyUnicode_Check(pad.ptr()) || std::string_view(PyUnicode_AsUTF8(pad.ptr())) != "zero") {
    fail(ctx, param, "a TensorDescriptor with padding " + repr_of(pad.ptr()) + "; it must be 'zero' or 'nan'");
  }
  if (!ctx.descriptors) ctx.descriptors.reset(new TensorDescriptor[ConvertContext::kMaxDescriptors]);
  if (ctx.num_descriptors == ConvertContext::kMaxDescriptors) {
    fail(ctx, param, "more than " + std::to_string(ConvertContext::kMaxDescriptors) + " tensor descriptors in one call");
  }
  TensorDescriptor& d = ctx.descriptors[ctx.num_descriptors];
  try {
    d = TensorDescriptor::make(TypedPtr{reinterpret_cast<const void*>(static_cast<uintptr_t>(pointer.address())),
                                        pointer.dtype(), pointer.extent()},
                               rank, shape, strides, block, padding);
  } catch (const ArgumentError& e) {
    fail(ctx, param, std::string("a ") + e.what());
  }
  ++ctx.num_descriptors;
  return ArgValue::tensor_descriptor(&d, d.base.dtype);
}

struct KindEntry {
  PyTypeObject* type;  // strong reference: a freed type's address must not be reused here
  Kind kind;
};
constexpr int kKindCache = 32;
KindEntry g_kinds[kKindCache];
int g_num_kinds = 0;

bool type_has(PyTypeObject* type, PyObject* name) {
  nb::object a = optional_attr(reinterpret_cast<PyObject*>(type), name);
  if (PyErr_Occurred()) PyErr_Clear();
  return a.is_valid();
}

Kind kind_of(PyObject* o) {
  PyTypeObject* type = Py_TYPE(o);
  for (int i = 0; i < g_num_kinds; ++i) {
    if (g_kinds[i].type == type) return g_kinds[i].kind;
  }
  Kind kind = Kind::Probe;  // attributes set on instances: probed on every call
  if (g_torch_tensor.is(o)) {
    kind = Kind::Torch;
  } else if (g_tl_dtype.is(o) || g_torch_dtype.is(o)) {
    kind = Kind::Dtype;
  } else if (g_tl_constexpr.is(o)) {
    kind = Kind::Constexpr;
  } else if (is_host_descriptor_type(type)) {
    kind = Kind::HostDescriptor;
  } else if (type_has(type, n.data_ptr)) {
    kind = Kind::DataPtr;
  } else if (type_has(type, n.cai)) {
    kind = Kind::CudaArrayInterface;
  } else if (type_has(type, n.dlpack_device)) {
    kind = Kind::DLPack;
  }
  if (g_num_kinds < kKindCache) {
    Py_INCREF(type);
    g_kinds[g_num_kinds++] = KindEntry{type, kind};
  }
  return kind;
}

ArgValue from_dlpack_object(PyObject* o, const std::string& param, ConvertContext& ctx);

ArgValue from_cai_object(PyObject* o, const std::string& param, ConvertContext& ctx) {
  nb::object cai = nb::steal(PyObject_GetAttr(o, n.cai));
  if (!cai.is_valid()) {
    // JAX arrays define the property but raise AttributeError for host buffers: their DLPack
    // device says where they are.
    if (PyErr_ExceptionMatches(PyExc_AttributeError) && type_has(Py_TYPE(o), n.dlpack_device)) {
      PyErr_Clear();
      return from_dlpack_object(o, param, ctx);
    }
    fail_python(ctx, param, "__cuda_array_interface__");
  }
  return from_cuda_array_interface(o, cai.ptr(), param, ctx);
}

ArgValue from_dlpack_object(PyObject* o, const std::string& param, ConvertContext& ctx) {
  nb::object m = nb::steal(PyObject_GetAttr(o, n.dlpack_device));
  if (!m.is_valid()) fail_python(ctx, param, "__dlpack_device__");
  return from_dlpack(o, m.ptr(), param, ctx);
}

}  // namespace

// The size of the buffer a pointer argument lies in, read as Triton's HIP backend reads it
// (HIPBackend.is_within_2gb): ptr_range() where the object has it, else a torch tensor's
// untyped_storage().size(); any other array (CuPy, JAX, DLPack) has none, and so no 'S', as in
// Triton. Asked only when the call specializes for a HIP target.
ArgValue with_storage(PyObject* o, const ArgValue& a, const std::string& param, ConvertContext& ctx) {
  if (!ctx.need_storage || a.kind() != ArgValue::Kind::Pointer) return a;
  nb::object size;
  if (PyObject_HasAttrString(o, "ptr_range")) {
    size = nb::steal(PyObject_CallMethod(o, "ptr_range", nullptr));
    if (!size.is_valid()) fail_python(ctx, param, "ptr_range()");
  } else if (g_torch_tensor.is(o)) {
    nb::object storage = nb::steal(PyObject_CallMethod(o, "untyped_storage", nullptr));
    if (!storage.is_valid()) fail_python(ctx, param, "Tensor.untyped_storage()");
    size = nb::steal(PyObject_CallMethod(storage.ptr(), "size", nullptr));
    if (!size.is_valid()) fail_python(ctx, param, "Tensor.untyped_storage().size()");
  } else {
    return a;
  }
  const long long bytes = PyLong_AsLongLong(size.ptr());
  if (bytes == -1 && PyErr_Occurred()) fail_python(ctx, param, "the buffer size");
  const void* address = reinterpret_cast<const void*>(static_cast<uintptr_t>(a.address()));
  return ArgValue::pointer_in_storage(address, a.dtype(), a.extent(), bytes < 0 ? 0 : static_cast<uint64_t>(bytes));
}

ArgValue convert_arg(PyObject* o, const std::string& param, ConvertContext& ctx) {
  // Scalars first: Triton's binder reads them by type, bool before int.
  if (o == Py_None) return ArgValue::none();
  if (PyBool_Check(o)) return ArgValue::boolean(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) {
      if (v == -1 && PyErr_Occurred()) fail_python(ctx, param, "int()");
      return ArgValue::integer(v);
    }
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) return ArgValue::unsigned_integer(u);
      PyErr_Clear();
    }
    fail(ctx, param, "the integer " + repr_of(o) + " is outside [-2**63, 2**64), which no Triton type holds");
  }
  if (PyFloat_Check(o)) return ArgValue::floating(PyFloat_AS_DOUBLE(o));
  if (PyUnicode_Check(o)) {
    Py_ssize_t size = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &size);  // owned by `o`, which outlives the call
    if (s == nullptr) fail_python(ctx, param, "str");
    return ArgValue::string(std::string_view(s, static_cast<size_t>(size)));
  }
  switch (kind_of(o)) {
    case Kind::Torch: return with_storage(o, from_torch(o, param, ctx, torch_multi_gpu()), param, ctx);
    case Kind::Dtype: return from_dtype(o, param, ctx);
    case Kind::Constexpr: {
      nb::object inner = nb::steal(PyObject_GetAttr(o, n.value));
      if (!inner.is_valid()) fail_python(ctx, param, "constexpr.value");
      if (g_tl_constexpr.is(inner.ptr())) fail(ctx, param, "a constexpr wrapping a constexpr");
      // The wrapper holds the value, and the caller holds the wrapper, for the whole call.
      return convert_arg(inner.ptr(), param, ctx);
    }
    case Kind::HostDescriptor: return from_host_descriptor(o, param, ctx);
    case Kind::DataPtr: return with_storage(o, from_data_ptr(o, param, ctx), param, ctx);
    case Kind::CudaArrayInterface: return with_storage(o, from_cai_object(o, param, ctx), param, ctx);
    case Kind::DLPack: return with_storage(o, from_dlpack_object(o, param, ctx), param, ctx);
    case Kind::Probe: break;
  }
  // Other frameworks, by protocol, where the object itself holds it.
  if (nb::object m = optional_attr(o, n.data_ptr); m.is_valid()) {
    return with_storage(o, from_data_ptr(o, param, ctx), param, ctx);
  }
  if (PyErr_Occurred()) fail_python(ctx, param, "data_ptr");
  if (nb::object cai = optional_attr(o, n.cai); cai.is_valid()) {
    return with_storage(o, from_cuda_array_interface(o, cai.ptr(), param, ctx), param, ctx);
  }
  if (PyErr_Occurred()) fail_python(ctx, param, "__cuda_array_interface__");
  if (nb::object m = optional_attr(o, n.dlpack_device); m.is_valid()) {
    return with_storage(o, from_dlpack(o, m.ptr(), param, ctx), param, ctx);
  }
  if (PyErr_Occurred()) fail_python(ctx, param, "__dlpack_device__");
  if (PyObject_HasAttrString(o, "__array_interface__") || PyObject_CheckBuffer(o)) {
    fail(ctx, param,
         "a " + type_name(o) +
             " in host memory; kernels run on the GPU: pass a device array (torch, CuPy, JAX, Numba, or any "
             "object with __cuda_array_interface__ or __dlpack__)");
  }
  const std::string type = type_name(o);
  if (type.rfind("jax", 0) == 0 && type.find("Tracer") != std::string::npos) {
    fail(ctx, param,
         "a JAX tracer (" + type +
             "): launching a kernel inside jax.jit or another JAX transformation is not supported yet; launch "
             "it on concrete arrays, outside the transformation");
  }
  fail(ctx, param,
       "unsupported argument type " + type +
           "; pass None, bool, int, float, str, a dtype, a triton.tools.tensor_descriptor.TensorDescriptor, or a GPU tensor (an object with data_ptr(), "
           "__cuda_array_interface__ or __dlpack__)");
}

PyObject* arg_to_python(const ArgValue& a) {
  switch (a.kind()) {
    case ArgValue::Kind::None: Py_RETURN_NONE;
    case ArgValue::Kind::Bool: return PyBool_FromLong(a.as_bool());
    case ArgValue::Kind::Int: return PyLong_FromLongLong(a.as_int());
    case ArgValue::Kind::UInt: return PyLong_FromUnsignedLongLong(a.as_uint());
    case ArgValue::Kind::Float: return PyFloat_FromDouble(a.as_float());
    case ArgValue::Kind::String: {
      const std::string_view s = a.as_string();
      return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
    }
    case ArgValue::Kind::DType: {
      const std::string_view s = a.is_torch_dtype() ? torch_name(a.dtype()) : triton_language_name(a.dtype());
      return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
    }
    default: return PyLong_FromUnsignedLongLong(a.address());
  }
}

void init_convert() {
  for (auto [field, name] : {std::pair{&n.data_ptr, "data_ptr"},
                             {&n.dtype, "dtype"},
                             {&n.is_cuda, "is_cuda"},
                             {&n.get_device, "get_device"},
                             {&n.cai, "__cuda_array_interface__"},
                             {&n.dlpack, "__dlpack__"},
                             {&n.dlpack_device, "__dlpack_device__"},
                             {&n.value, "value"},
                             {&n.device, "device"},
                             {&n.type, "type"},
                             {&n.nbytes, "nbytes"},
                             {&n.stream, "stream"},
                             {&n.ptr, "ptr"}}) {
    *field = intern(name);
  }
}

uint64_t framework_stream(const ConvertContext& ctx) {
  switch (ctx.framework) {
    case Framework::Torch: {
      static nb::object* raw = nullptr;  // torch._C._cuda_getCurrentRawStream, what Triton calls
      static nb::object* current_device = nullptr;
      static nb::object* current_stream = nullptr;  // torch.cuda.current_stream, Triton's fallback
      if (raw == nullptr && current_stream == nullptr) {
        nb::module_ c = nb::module_::import_("torch._C");
        current_device = new nb::object(c.attr("_cuda_getDevice"));
        // ROCm builds of torch keep the name (torch/csrc/cuda is hipified, not renamed): the
        // stream is the current hipStream_t. Where it is missing, Triton's GPUDriver reads
        // torch.cuda.current_stream(device).cuda_stream, and so does this.
        if (nb::object f = nb::steal(PyObject_GetAttrString(c.ptr(), "_cuda_getCurrentRawStream")); f.is_valid()) {
          raw = new nb::object(std::move(f));
        } else {
          PyErr_Clear();
          current_stream = new nb::object(nb::module_::import_("torch.cuda").attr("current_stream"));
        }
      }
      // With one GPU the current device can only be 0: no call to ask.
      const int device = ctx.device >= 0 ? ctx.device : g_torch_gpus == 1 ? 0 : nb::cast<int>((*current_device)());
      // The same stream from C++ through triton_jit._torch_native, without a Python call.
      uint64_t handle = 0;
      if (const TorchNativeApi* native = torch_native(); native != nullptr && native->current_stream(device, &handle)) {
        return handle;
      }
      if (raw == nullptr) return nb::cast<uint64_t>((*current_stream)(device).attr("cuda_stream"));
      return nb::cast<uint64_t>((*raw)(device));
    }
    case Framework::CuPy: {
      static nb::object* current = nullptr;  // cupy.cuda.get_current_stream
      if (current == nullptr) {
        current = new nb::object(nb::module_::import_("cupy.cuda").attr("get_current_stream"));
      }
      return nb::cast<uint64_t>((*current)().attr("ptr"));
    }
    default: return 0;
  }
}

void check_current_device(const ConvertContext& ctx) {
  if (ctx.framework != Framework::Torch || ctx.device < 0 || g_torch_gpus <= 1) return;
  const std::string& first_tensor_param = *ctx.device_param;
  static nb::object* current_device = nullptr;
  if (current_device == nullptr)
    current_device = new nb::object(nb::module_::import_("torch._C").attr("_cuda_getDevice"));
  const int current = nb::cast<int>((*current_device)());
  if (current != ctx.device) {
    throw ArgumentError("argument '" + first_tensor_param + "' of " + *ctx.function +
                            ": a tensor on cuda:" + std::to_string(ctx.device) +
                            " while the current device is cuda:" + std::to_string(current) +
                            "; launch under torch.cuda.device(" + std::to_string(ctx.device) + ") as with Triton",
                        *ctx.function, first_tensor_param);
  }
}

}  // namespace triton_jit::python

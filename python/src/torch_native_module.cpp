// triton_jit._torch_native: libtorch called from C++ where torch's Python bindings cost a launch
// more than the work (torch_native.h says how _C finds it):
// - torch outputs of triton_jit.empty_like placeholders. torch.empty_like called from C still spends
//   about 1.5 us parsing its Python arguments; the allocation itself (the CUDA caching allocator on
//   the current stream) is a fraction of that.
// - what a launch reads of each torch tensor argument: data_ptr(), dtype, is_cuda, get_device().
//   Through Python that is a method call and three attribute reads, 0.25 us a tensor (0.45 us a
//   Parameter); from C++ a few loads.
// - the current stream a launch runs on: through c10's device guard interface, without a Python
//   call (torch._C._cuda_getCurrentRawStream's own lookup).
// Built only when the build's python imports torch; imported by _C only after torch (the libraries
// it links are then loaded: it carries no path to them).
#include <Python.h>

#include <ATen/PythonTorchFunctionTLS.h>
#include <c10/core/Stream.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/DynamicTypes.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/generated/variable_factories.h>
#include <torch/csrc/autograd/python_variable.h>

#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "torch_native.h"

#ifndef TRITON_JIT_TORCH_VERSION
#error "TRITON_JIT_TORCH_VERSION (torch.__version__ of the torch built against) must be defined"
#endif

namespace {

// The GIL released for a scope, exceptions included.
struct GilReleased {
  PyThreadState* state = PyEval_SaveThread();
  GilReleased() = default;
  GilReleased(const GilReleased&) = delete;
  GilReleased& operator=(const GilReleased&) = delete;
  ~GilReleased() { PyEval_RestoreThread(state); }
};

// The shape tuple as int64 sizes; false for a dimension past int64 (torch's parser reports it).
bool sizes_of(PyObject* shape, std::vector<int64_t>& sizes) {
  const Py_ssize_t n = PyTuple_GET_SIZE(shape);
  sizes.resize(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    int overflow = 0;
    const long long d = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(shape, i), &overflow);
    if (overflow != 0 || (d == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
    sizes[static_cast<size_t>(i)] = d;
  }
  return true;
}

int empty_like(PyObject* like, PyObject* dtype, PyObject* shape, PyObject** out) {
  // A subclass (its __torch_function__) and a torch function mode belong to torch's Python functions.
  if (!THPVariable_CheckExact(like) || at::impl::torch_function_mode_enabled()) return 0;
  if (dtype != nullptr && !THPDtype_Check(dtype)) return 0;  // a Python type (float): torch's parser maps it
  std::vector<int64_t> sizes;
  if (shape != nullptr && (!PyTuple_Check(shape) || !sizes_of(shape, sizes))) return 0;
  try {
    const at::Tensor& self = THPVariable_Unpack(like);
    std::optional<at::ScalarType> scalar_type;
    if (dtype != nullptr) scalar_type = reinterpret_cast<THPDtype*>(dtype)->scalar_type;
    at::Tensor result;
    {
      // As torch's bindings: the allocator may wait (cudaMalloc, a free that synchronizes) and may
      // take the GIL itself (Python stacks of torch.cuda.memory._record_memory_history).
      GilReleased no_gil;
      if (shape == nullptr) {
        // torch.empty_like(like, dtype=dtype): its Python binding's options (memory_format None:
        // like's strides where dense, else contiguous; pin_memory=False; requires_grad=False).
        const at::TensorOptions options =
            at::TensorOptions().dtype(scalar_type).requires_grad(false).pinned_memory(false);
        result = torch::empty_like(self, options, std::nullopt);
      } else {
        // like.new_empty(shape, dtype=dtype): torch.empty on like's device and layout, contiguous.
        const at::TensorOptions options = at::TensorOptions()
                                              .dtype(scalar_type.value_or(self.scalar_type()))
                                              .device(self.device())
                                              .layout(self.layout())
                                              .requires_grad(false)
                                              .pinned_memory(false);
        result = self.new_empty(sizes, options);
      }
    }
    *out = THPVariable_Wrap(std::move(result));
    return *out != nullptr ? 1 : -1;
  } catch (...) {
    torch::translate_exception_to_python(std::current_exception());
    return -1;
  }
}

// ---- tensor reads ----

// The attributes a launch reads of a tensor. Where a class no longer has torch's own (torch.Tensor
// patched, as some device plugins patch data_ptr), its tensors are read through Python.
constexpr const char* kReadAttributes[] = {"data_ptr", "dtype", "is_cuda", "get_device", "nbytes"};
constexpr int kNumReadAttributes = sizeof(kReadAttributes) / sizeof(kReadAttributes[0]);
PyObject* g_read_names[kNumReadAttributes];
PyObject* g_torch_descriptors[kNumReadAttributes];  // torch._C.TensorBase's own descriptors

// For torch.Tensor ([0]) and torch.nn.Parameter ([1]), THPVariable_CheckExact's two classes, the
// type version tag under which the class's attributes were last found to be torch's own: Python
// gives a class a new tag whenever it or a base changes, so one comparison a read covers every
// assignment since. 0: not checked (or no tag: checked at each read).
unsigned int g_checked_tags[2];

bool has_torchs_attributes(PyTypeObject* type) {
  for (int i = 0; i < kNumReadAttributes; ++i) {
    PyObject* found = PyObject_GetAttr(reinterpret_cast<PyObject*>(type), g_read_names[i]);
    if (found == nullptr) {
      PyErr_Clear();
      return false;
    }
    Py_DECREF(found);  // the class keeps it: only its identity is compared
    if (found != g_torch_descriptors[i]) return false;
  }
  return true;
}

unsigned int valid_tag(PyTypeObject* type) {
#ifdef Py_TPFLAGS_VALID_VERSION_TAG  // Python 3.11 (3.12 resets the tag alone)
  if (!PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG)) return 0;
#endif
  return type->tp_version_tag;
}

// Whether tensors of `type` (an exact one) may be read from C++.
bool class_unchanged(PyTypeObject* type) {
  unsigned int& checked = g_checked_tags[type == reinterpret_cast<PyTypeObject*>(THPVariableClass) ? 0 : 1];
  const unsigned int tag = valid_tag(type);
  if (tag != 0 && tag == checked) return true;
  checked = 0;
  if (!has_torchs_attributes(type)) return false;
  checked = valid_tag(type);  // the lookups above gave the class a tag if it had none
  return true;
}

int read_tensor(PyObject* tensor, bool want_nbytes, triton_jit::python::TorchTensorFacts* out) {
  // What Python's check_has_torch_function answers for these two classes: a mode, else no.
  if (!THPVariable_CheckExact(tensor) || at::impl::torch_function_mode_enabled()) return 0;
  if (!class_unchanged(Py_TYPE(tensor))) return 0;
  try {
    const at::Tensor& t = THPVariable_Unpack(tensor);
    out->is_cuda = t.is_cuda();
    out->dtype = reinterpret_cast<PyObject*>(torch::getTHPDtype(t.scalar_type()));
    out->device = static_cast<int32_t>(t.get_device());
    // The mutable pointer, as Python's data_ptr(): a copy-on-write tensor gets its own storage.
    out->address = reinterpret_cast<uintptr_t>(t.data_ptr());
    out->nbytes = want_nbytes ? static_cast<uint64_t>(t.nbytes()) : 0;
    return 1;
  } catch (...) {
    torch::translate_exception_to_python(std::current_exception());
    return -1;
  }
}

// ---- the current stream ----

// Set once the backend has failed to give a handle (a guard without getStreamNativeHandle): every
// later launch asks Python at once, not through a thrown and caught c10::Error.
bool g_no_native_stream = false;

int current_stream(int device, uint64_t* out) {
  // torch._C._cuda_getCurrentRawStream(device) is c10::cuda::getCurrentCUDAStream(device).stream();
  // the CUDA guard's getStream and getStreamNativeHandle are those two calls, reached through c10
  // alone (this module links no CUDA library of torch's).
  if (g_no_native_stream) return 0;
  const c10::impl::DeviceGuardImplInterface* impl =
      c10::impl::device_guard_impl_registry[static_cast<size_t>(c10::DeviceType::CUDA)].load();
  if (impl == nullptr || device < 0 || device > std::numeric_limits<c10::DeviceIndex>::max()) return 0;
  try {
    const c10::Stream stream = impl->getStream(
        c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(device)));
    *out = reinterpret_cast<uintptr_t>(impl->getStreamNativeHandle(stream));
    return 1;
  } catch (...) {
    g_no_native_stream = true;  // a backend without native handles: Python's call answers (or raises)
    return 0;
  }
}

triton_jit::python::TorchNativeApi g_api = {triton_jit::python::kTorchNativeApiVersion, &empty_like, &read_tensor,
                                            &current_stream};

int exec_module(PyObject* m) {
  static_assert(std::is_same_v<decltype(&empty_like), triton_jit::python::TorchEmptyLike>);
  static_assert(std::is_same_v<decltype(&read_tensor), triton_jit::python::TorchReadTensor>);
  static_assert(std::is_same_v<decltype(&current_stream), triton_jit::python::TorchCurrentStream>);
  PyObject* torch_c = PyImport_ImportModule("torch._C");  // loaded: this module is imported after torch
  if (torch_c == nullptr) return -1;
  PyObject* tensor_base = PyObject_GetAttrString(torch_c, "TensorBase");
  Py_DECREF(torch_c);
  if (tensor_base == nullptr) return -1;
  for (int i = 0; i < kNumReadAttributes; ++i) {
    g_read_names[i] = PyUnicode_InternFromString(kReadAttributes[i]);
    g_torch_descriptors[i] = g_read_names[i] != nullptr ? PyObject_GetAttr(tensor_base, g_read_names[i]) : nullptr;
    if (g_torch_descriptors[i] == nullptr) {
      Py_DECREF(tensor_base);
      return -1;
    }
  }
  Py_DECREF(tensor_base);
  PyObject* capsule = PyCapsule_New(&g_api, triton_jit::python::kTorchNativeCapsuleName, nullptr);
  if (capsule == nullptr) return -1;
  if (PyModule_AddObject(m, "api", capsule) < 0) {
    Py_DECREF(capsule);
    return -1;
  }
  return PyModule_AddStringConstant(m, "TORCH_VERSION", TRITON_JIT_TORCH_VERSION);
}

PyModuleDef_Slot slots[] = {{Py_mod_exec, reinterpret_cast<void*>(exec_module)}, {0, nullptr}};

PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "triton_jit._torch_native",
    "libtorch from C++ for triton_jit._C: torch outputs of triton_jit.empty_like, and what a launch "
    "reads of torch tensors (used when TORCH_VERSION is the imported torch's).",
    0,
    nullptr,
    slots,
    nullptr,
    nullptr,
    nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__torch_native() { return PyModuleDef_Init(&module_def); }

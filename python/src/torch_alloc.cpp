// triton_jit._torch_alloc: torch outputs of triton_jit.empty_like placeholders allocated by libtorch
// from C++ (torch_alloc.h says how _C finds it). torch.empty_like called from C still spends about
// 1.5 us parsing its Python arguments; the allocation itself (the CUDA caching allocator on the
// current stream) is a fraction of that. Built only when the build's python imports torch;
// imported by _C only after torch (the libraries it links are then loaded: it carries no path to them).
#include <Python.h>

#include <ATen/PythonTorchFunctionTLS.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/generated/variable_factories.h>
#include <torch/csrc/autograd/python_variable.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <type_traits>
#include <vector>

#include "torch_alloc.h"

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

int exec_module(PyObject* m) {
  static_assert(std::is_same_v<decltype(&empty_like), triton_jit::python::TorchEmptyLike>);
  PyObject* capsule =
      PyCapsule_New(reinterpret_cast<void*>(&empty_like), triton_jit::python::kTorchAllocCapsuleName, nullptr);
  if (capsule == nullptr) return -1;
  if (PyModule_AddObject(m, "empty_like", capsule) < 0) {
    Py_DECREF(capsule);
    return -1;
  }
  return PyModule_AddStringConstant(m, "TORCH_VERSION", TRITON_JIT_TORCH_VERSION);
}

PyModuleDef_Slot slots[] = {{Py_mod_exec, reinterpret_cast<void*>(exec_module)}, {0, nullptr}};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                          "triton_jit._torch_alloc",
                          "torch outputs of triton_jit.empty_like allocated by libtorch from C++ (used by triton_jit._C "
                          "when TORCH_VERSION is the imported torch's).",
                          0,
                          nullptr,
                          slots,
                          nullptr,
                          nullptr,
                          nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__torch_alloc() { return PyModuleDef_Init(&module_def); }

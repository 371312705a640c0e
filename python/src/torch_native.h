#pragma once

#include <Python.h>

#include <cstdint>

namespace nanobind {
class module_;
}

// The contract between the extension triton_jit._C and the optional module triton_jit._torch_native
// (python/src/torch_native_module.cpp, built only against a torch found at build time), which calls
// libtorch from C++ where torch's Python bindings would cost a launch more than the work itself:
// outputs allocated, tensor arguments read, the current stream asked. _C
// never links libtorch: it reads the table below out of the module's capsule `api` (named
// kTorchNativeCapsuleName), after checking that the module's TORCH_VERSION is the imported torch's.
namespace triton_jit::python {

inline constexpr const char* kTorchNativeCapsuleName = "triton_jit._torch_native.api";
// Raised when the table changes; a module of another version is not used.
inline constexpr uint32_t kTorchNativeApiVersion = 2;

// The output a placeholder stands for, allocated by libtorch from C++: what torch.empty_like(like,
// dtype=dtype) returns when `shape` is nullptr, like.new_empty(shape, dtype=dtype) otherwise.
// `dtype` is a torch.dtype or nullptr (like's); `shape` a tuple of non-negative Python ints or
// nullptr. Returns 1 with *out a new reference; 0 when it declines (a like that is no plain
// torch.Tensor, an active torch function mode, a dtype that is no torch.dtype, a dimension past
// int64): the caller then takes torch's Python functions, which handle those exactly; -1 with the
// Python error set that torch's own function would have raised (out of memory).
using TorchEmptyLike = int (*)(PyObject* like, PyObject* dtype, PyObject* shape, PyObject** out);

// What a launch reads of a torch tensor argument, each as its Python attribute returns it.
struct TorchTensorFacts {
  uint64_t address = 0;       // data_ptr()
  PyObject* dtype = nullptr;  // dtype: a torch.dtype, borrowed (torch keeps one per scalar type)
  uint64_t nbytes = 0;        // nbytes, read only when asked
  int32_t device = -1;        // get_device(): the GPU's index, -1 on the host
  bool is_cuda = false;       // is_cuda
};

// Reads `tensor` from C++, for what its Python attributes would return: 1 with *out filled (nbytes
// only when `want_nbytes`); 0 when it declines, and the caller asks Python: anything but a
// torch.Tensor or torch.nn.Parameter (a subclass's __torch_function__ must run), an active torch
// function mode, or a class whose data_ptr, dtype, is_cuda, get_device or nbytes is no longer
// torch's own (replaced on torch.Tensor); -1 with the Python error set that Python's data_ptr()
// would have raised (a tensor without storage).
using TorchReadTensor = int (*)(PyObject* tensor, bool want_nbytes, TorchTensorFacts* out);

// torch's current stream on CUDA device `device`, as torch._C._cuda_getCurrentRawStream(device)
// returns it (what Triton's launch asks): 1 with *out the handle; 0 when it declines (no CUDA
// backend registered with torch, or one that gives no native handle): the caller asks Python.
using TorchCurrentStream = int (*)(int device, uint64_t* out);

struct TorchNativeApi {
  uint32_t version;  // kTorchNativeApiVersion
  TorchEmptyLike empty_like;
  TorchReadTensor read_tensor;
  TorchCurrentStream current_stream;
};

// The module's table, looked up at the first torch tensor or placeholder (through the package's
// triton_jit._frameworks.torch_native): nullptr where the module is absent, was built against
// another torch than the imported one, or is of another version. Torch must be imported. Throws
// nanobind::python_error when the lookup itself fails.
const TorchNativeApi* torch_native();

// _C's test hooks of the table: _read_torch_tensor_for_test, _torch_current_stream_for_test and
// _torch_native_reset_for_test (a fresh lookup at the next torch tensor or placeholder).
void register_torch_native(nanobind::module_& m);

}  // namespace triton_jit::python

#pragma once

#include <Python.h>

// The contract between the extension triton_jit._C and the optional module triton_jit._torch_alloc
// (python/src/torch_alloc.cpp, built only against a torch found at build time). _C never links
// libtorch: it reads the function below out of the module's capsule `empty_like` (named
// kTorchAllocCapsuleName), after checking that the module's TORCH_VERSION is the imported torch's.
namespace triton_jit::python {

inline constexpr const char* kTorchAllocCapsuleName = "triton_jit._torch_alloc.empty_like";

// The output a placeholder stands for, allocated by libtorch from C++: what torch.empty_like(like,
// dtype=dtype) returns when `shape` is nullptr, like.new_empty(shape, dtype=dtype) otherwise.
// `dtype` is a torch.dtype or nullptr (like's); `shape` a tuple of non-negative Python ints or
// nullptr. Returns 1 with *out a new reference; 0 when it declines (a like that is no plain
// torch.Tensor, an active torch function mode, a dtype that is no torch.dtype, a dimension past
// int64): the caller then takes torch's Python functions, which handle those exactly; -1 with the
// Python error set that torch's own function would have raised (out of memory).
using TorchEmptyLike = int (*)(PyObject* like, PyObject* dtype, PyObject* shape, PyObject** out);

}  // namespace triton_jit::python

#pragma once

#include <Python.h>

#include <cstdint>
#include <memory>
#include <string>

#include "triton_jit/arg.h"
#include "triton_jit/tensor_descriptor.h"

// Python objects to the runtime's tagged arguments (ArgValue), as Triton's binder reads them:
// None, bool, int, float, str, dtypes (triton.language's and torch's), Triton's host
// TensorDescriptor (triton.tools.tensor_descriptor: base tensor, shape, strides, block_shape,
// padding), and tensors of any
// framework, probed in order: data_ptr() (torch, and Triton's own wrappers), then
// __cuda_array_interface__ (CuPy, Numba), then __dlpack__/__dlpack_device__ (JAX). The element
// type comes from the object. Objects on the host or on another device are an ArgumentError
// (a ValueError in Python) naming the parameter.
namespace triton_jit::python {

// Which framework the first tensor of a call came from: it decides the stream a launch without
// `stream=` uses (torch's or CuPy's current stream; else the default stream).
enum class Framework : uint8_t { None, Torch, CuPy, Other };

// What a call's conversion learned and needs; one per call, on the stack.
struct ConvertContext {
  const std::string* function = nullptr;      // the kernel's name, for messages
  bool need_bytes = false;                    // record buffer sizes (autotune reset_to_zero/restore_value)
  bool need_storage = false;                  // a HIP target's specialization: the buffers' sizes ('S')
  bool hip = false;        // the call's target is an AMD GPU's (launch_target_is_hip): ROCm memory, not CUDA's
  bool launching = false;  // the call launches: the tensors' memory must be the launching runtime's
  Framework framework = Framework::None;      // of the first tensor
  int device = -1;                            // the first tensor's device ordinal, when known
  const std::string* device_param = nullptr;  // the parameter that tensor was passed for
  PyObject* dlpack_stream = nullptr;          // `stream=` as __dlpack__ takes it; nullptr: not given
  // Triton's host TensorDescriptor arguments, converted: their ArgValues point here for the call.
  // Made on a call's first descriptor (a call without any allocates nothing).
  static constexpr int kMaxDescriptors = 16;
  std::unique_ptr<TensorDescriptor[]> descriptors;
  int num_descriptors = 0;
};

// Converts `value`, the argument of parameter `param`. Throws ArgumentError naming the
// parameter (nanobind::python_error when Python itself fails while probing the object).
ArgValue convert_arg(PyObject* value, const std::string& param, ConvertContext& ctx);

// The Python value of a grid function's `meta` entry for an argument: int, float, bool, None, str
// or the dtype's name; nullptr-free (a new reference).
PyObject* arg_to_python(const ArgValue& arg);

// Interned attribute names and lazily resolved framework types; set up at module import.
void init_convert();

// The framework's current stream for a launch whose first tensor came from `ctx.framework`
// (torch: torch._C._cuda_getCurrentRawStream; CuPy: cupy.cuda.get_current_stream().ptr); 0 (the
// default stream) for other objects.
uint64_t framework_stream(const ConvertContext& ctx);

// Checks that the call's tensors are on the framework's current device when more than one GPU is
// visible (a launch runs on the current device, as Triton's does). Throws ArgumentError.
void check_current_device(const ConvertContext& ctx);

}  // namespace triton_jit::python

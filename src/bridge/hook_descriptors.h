#pragma once
// Host tensor descriptors in autotune hooks (bridge side): the Python object a hook receives for
// a descriptor argument. What the hooks left is read back by bridge::hooked_descriptors (bridge.h).

#include <pybind11/pybind11.h>

#include <string>

#include "triton_jit/tensor_descriptor.h"

namespace triton_jit::bridge {

// Triton's TensorDescriptor over `d`: its base is the torch tensor a hook gets for a pointer
// (hook_tensor: the bytes the descriptor spans) or its stand-in, the lists are `d`'s.
pybind11::object hook_descriptor(pybind11::module_& b, const TensorDescriptor& d, const std::string& param);

}  // namespace triton_jit::bridge

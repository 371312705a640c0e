// Host tensor descriptors in autotune hooks (hook_descriptors.h, bridge.h's hooked_descriptors).
#include "bridge/hook_descriptors.h"

#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "bridge/bridge.h"
#include "bridge/interpreter.h"
#include "triton_jit/errors.h"

namespace py = pybind11;

namespace triton_jit::bridge {
namespace {

// The base's size in bytes: the argument's own, unless the hook moved the base.
uint64_t base_bytes(const ArgValue& a, uintptr_t address) {
  const TypedPtr& base = a.as_tensor_descriptor()->base;
  return reinterpret_cast<uintptr_t>(base.ptr) == address ? base.bytes : 0;
}

}  // namespace

py::object hook_descriptor(py::module_& b, const TensorDescriptor& d, const std::string& param) {
  // The bytes the descriptor spans, so that the hook's base tensor covers them.
  int64_t last = 0;
  for (int i = 0; i < d.rank; ++i) last += (d.shape[i] - 1) * d.strides[i];
  const int64_t nbytes = (last + 1) * static_cast<int64_t>(dtype_size(d.base.dtype));
  py::object base = b.attr("hook_tensor")(py::int_(reinterpret_cast<uintptr_t>(d.base.ptr)),
                                          std::string(dtype_name(d.base.dtype)), py::int_(nbytes), param);
  py::list shape, strides, block;
  for (int i = 0; i < d.rank; ++i) {
    shape.append(d.shape[i]);
    strides.append(d.strides[i]);
    block.append(d.block_shape[i]);
  }
  return b.attr("hook_descriptor")(base, shape, strides, block, d.padding == Padding::Nan ? "nan" : "zero");
}

std::vector<std::pair<uint32_t, TensorDescriptor>> hooked_descriptors(PyHandle hook_args, const StaticSignature& sig,
                                                                      const ArgValue* args,
                                                                      const std::vector<uint32_t>& params) {
  std::vector<uint32_t> wanted;
  for (uint32_t p : params) {
    if (args[p].kind() == ArgValue::Kind::TensorDesc) wanted.push_back(p);
  }
  std::vector<std::pair<uint32_t, TensorDescriptor>> out;
  if (wanted.empty()) return out;
  GilGuard gil;
  py::list names;
  for (uint32_t p : wanted) names.append(sig.params[p].name);
  py::list read;
  try {
    read = bridge().attr("read_hook_descriptors")(py::handle(static_cast<PyObject*>(hook_args.object)), names);
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw ArgumentError(sig.function + ": reading the tensor descriptors back after autotune's hooks failed: " +
                            f.type + ": " + f.message,
                        sig.function, "");
  }
  for (size_t i = 0; i < wanted.size(); ++i) {
    const uint32_t p = wanted[i];
    const std::string& name = sig.params[p].name;
    py::tuple t = read[i].cast<py::tuple>();
    const auto address = t[0].cast<uintptr_t>();
    const auto shape = t[1].cast<std::vector<int64_t>>();
    const auto strides = t[2].cast<std::vector<int64_t>>();
    const auto block64 = t[3].cast<std::vector<int64_t>>();
    const auto padding = t[4].cast<std::string>();
    std::vector<int32_t> block(block64.begin(), block64.end());
    const auto fail = [&](const std::string& why) {
      return ArgumentError(sig.function + ": after autotune's hooks, tensor descriptor '" + name + "' " + why,
                           sig.function, name);
    };
    if (strides.size() != shape.size() || block.size() != shape.size()) {
      throw fail("has " + std::to_string(shape.size()) + " shape, " + std::to_string(strides.size()) + " stride and " +
                 std::to_string(block.size()) + " block_shape entries; a hook must keep one per dimension");
    }
    if (padding != "zero" && padding != "nan") throw fail("has padding '" + padding + "'; it must be 'zero' or 'nan'");
    try {
      out.emplace_back(p, TensorDescriptor::make(TypedPtr{reinterpret_cast<const void*>(address), args[p].dtype(), base_bytes(args[p], address)},
                                                 static_cast<int>(shape.size()), shape.data(), strides.data(),
                                                 block.data(), padding == "nan" ? Padding::Nan : Padding::Zero));
    } catch (const ArgumentError& e) {
      throw fail(std::string("is invalid: ") + e.what());
    }
  }
  return out;
}

}  // namespace triton_jit::bridge

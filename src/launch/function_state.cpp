// FunctionState's cold paths, compiled once here rather than into every includer: the errors a
// call's arguments or launch options raise, and the import of the function's Python objects.
#include "launch/function_state.h"

#include <mutex>
#include <string>
#include <vector>

#include "bridge/bridge.h"
#include "key/repr.h"
#include "triton_jit/errors.h"
#include "triton_jit/settings.h"

namespace triton_jit::detail {

namespace {

// Imports both objects at once: under fn.python_mutex, when one of them is still missing.
void import_python_objects(FunctionState& fn) {
  bridge::LoadedFunction loaded = bridge::load_function(fn.source(), fn.name);
  fn.py_function = loaded.function;
  fn.py_wrapper = loaded.wrapper;
}

}  // namespace

bridge::PyHandle FunctionState::python_function() {
  std::lock_guard<std::mutex> lock(python_mutex);
  if (py_function.object == nullptr) import_python_objects(*this);
  return py_function;
}

bridge::PyHandle FunctionState::python_wrapper() {
  std::lock_guard<std::mutex> lock(python_mutex);
  if (py_wrapper.object == nullptr) import_python_objects(*this);
  return py_wrapper;
}

bridge::PyHandle FunctionState::python_wrapper_or_why(std::string* why) {
  if (offline()) {
    *why = "offline mode is on (TRITON_JIT_OFFLINE)";
    return {};
  }
  if (source_sha256.empty()) {
    *why = "the kernel's source file is absent";
    return {};
  }
  try {
    return python_wrapper();
  } catch (const Error& e) {
    *why = e.what();
    return {};
  }
}

std::string FunctionState::annotation_mismatch(const ParamInfo& p, ArgValue::Kind given, const char* kind) {
  using K = ArgValue::Kind;
  const std::string head = "is annotated '" + p.annotation + "' and cannot take " +
                           (given == K::Int || given == K::UInt ? "an " : "a ") + kind + ": ";
  const bool pointer_annotation = !p.annotation.empty() && p.annotation[0] == '*';
  if (given == K::TensorDesc) {
    return head + "Triton ignores the annotation for a tensor descriptor (it keys it tensordesc<...>); remove the "
                  "annotation to pass one";
  }
  if (pointer_annotation) {
    return head + "Triton takes an integer there as the device address; pass the address as a pointer "
                  "(TypedPtr{reinterpret_cast<void*>(address), DType::...}, or a typed pointer)";
  }
  if (given == K::Pointer) {
    return head + "Triton keys a tensor there as " + p.annotation +
           " but its launcher then passes only a one-element tensor's value (anything else raises TypeError); pass "
           "the value itself, or the address as an integer "
           "(static_cast<int64_t>(reinterpret_cast<uintptr_t>(ptr)))";
  }
  if (given == K::Float) {
    return head + "Triton keys it as " + p.annotation +
           " but its launcher then raises TypeError ('float' object cannot be interpreted as an integer); convert "
           "it first (static_cast<int64_t>(x)), or remove the annotation to pass a float (fp32)";
  }
  return head + "pass a value of the annotated type";
}

void FunctionState::fail_arg(int index, ArgProblem problem, const ArgValue& arg) const {
  const ParamInfo& p = signature.params[static_cast<size_t>(index)];
  const char* kind = kind_name(arg.kind());
  std::string what;
  switch (problem) {
    case ArgProblem::PointerForConstexpr:
      what = "is a tl.constexpr and needs a compile-time value (int, bool, float, None, string or dtype), but a "
             "device pointer (a runtime value) was given";
      break;
    case ArgProblem::DTypeForRuntime:
      what = "is a runtime parameter; a dtype (here " + python_dtype_repr(arg.dtype(), arg.is_torch_dtype()) +
             ") can only be passed to a tl.constexpr parameter";
      break;
    case ArgProblem::NoSuchDType:
      what = static_cast<int>(arg.dtype()) < kNumDTypes
                 ? "was given torch's spelling of " + std::string(dtype_name(arg.dtype())) +
                       ", which torch has no dtype for; pass DType::" + std::string(dtype_name(arg.dtype())) + " (" +
                       python_dtype_repr(arg.dtype(), false) + ") instead"
                 : "was given an unknown dtype (" + std::to_string(static_cast<int>(arg.dtype())) + ")";
      break;
    case ArgProblem::DescriptorForConstexpr:
      what =
          "is a tl.constexpr and needs a compile-time value (int, bool, float, None, string or dtype), but a tensor "
          "descriptor (a runtime value) was given";
      break;
    case ArgProblem::StringForRuntime:
      what = "is a runtime parameter; a string can only be passed to a tl.constexpr parameter";
      break;
    case ArgProblem::KindForAnnotation: what = annotation_mismatch(p, arg.kind(), kind); break;
    case ArgProblem::None: what = "was rejected"; break;
  }
  throw ArgumentError(signature.function + ": parameter '" + p.name + "' (#" + std::to_string(index) + ") " + what,
                      signature.function, p.name);
}

void FunctionState::fail_config(const LaunchConfig& c) const {
  throw ArgumentError(
      signature.function + ": invalid launch options num_warps=" + std::to_string(c.num_warps) +
          ", num_stages=" + std::to_string(c.num_stages) + ", num_ctas=" + std::to_string(c.num_ctas) +
          " (num_warps must be a power of two in 1..64, num_stages in 0..255 or kTargetDefaultNumStages (" +
          std::to_string(kTargetDefaultNumStages) + ": the target's default), num_ctas in 1..16)",
      signature.function, "");
}

void FunctionState::fail_none_scalar(uint32_t index, const ParamCode& code) const {
  const ParamInfo& p = signature.params[index];
  throw ArgumentError(signature.function + ": parameter '" + p.name + "' (#" + std::to_string(index) + ") has type " +
                          type_string(code) + " and cannot be None; pass a value",
                      signature.function, p.name);
}

void FunctionState::fail_descriptor(uint32_t i, const std::string& why) const {
  const ParamInfo& p = signature.params[i];
  throw ArgumentError(
      signature.function + ": parameter '" + p.name + "' (#" + std::to_string(i) + "): the tensor descriptor " + why,
      signature.function, p.name);
}

}  // namespace triton_jit::detail

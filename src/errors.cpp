#include "triton_jit/errors.h"

#include <utility>

namespace triton_jit {

KernelLookupError::KernelLookupError(const std::string& message, std::string path, std::string function,
                                     std::string traceback)
    : Error(message), path_(std::move(path)), function_(std::move(function)), traceback_(std::move(traceback)) {}

PreloadError::PreloadError(const std::string& message, std::string module, std::string path, std::string function,
                           std::string traceback)
    : KernelLookupError(message, std::move(path), std::move(function), std::move(traceback)),
      module_(std::move(module)) {}

ArgumentError::ArgumentError(const std::string& message, std::string function, std::string parameter)
    : Error(message), function_(std::move(function)), parameter_(std::move(parameter)) {}

CompileError::CompileError(const std::string& message, std::string function, std::string signature, std::string key,
                           std::string file, int line, std::string python_type, std::string traceback)
    : Error(message),
      function_(std::move(function)),
      signature_(std::move(signature)),
      key_(std::move(key)),
      file_(std::move(file)),
      line_(line),
      python_type_(std::move(python_type)),
      traceback_(std::move(traceback)) {}

PythonError::PythonError(const std::string& message, std::string traceback)
    : Error(message), traceback_(std::move(traceback)) {}

CudaError::CudaError(const std::string& message, int code) : Error(message), code_(code) {}

MissingKernelError::MissingKernelError(const std::string& message, std::string function, std::string key,
                                       std::string manifest_line)
    : Error(message), function_(std::move(function)), key_(std::move(key)), manifest_line_(std::move(manifest_line)) {}

PackError::PackError(const std::string& message, std::string path) : Error(message), path_(std::move(path)) {}

}  // namespace triton_jit

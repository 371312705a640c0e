#pragma once

#include <stdexcept>
#include <string>

#include "triton_jit/export.h"

namespace triton_jit {

// Base of every error the runtime throws. The message is complete on its own: what went wrong,
// where (function, parameter, key) and what to do.
class TRITON_JIT_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The file or module, the function, or a @triton.jit function in it could not be found or
// imported. path() is the file, or "module:NAME" for a function named by module.
class TRITON_JIT_API KernelLookupError : public Error {
 public:
  KernelLookupError(const std::string& message, std::string path, std::string function, std::string traceback = {});
  const std::string& path() const noexcept { return path_; }
  const std::string& function() const noexcept { return function_; }
  // Python traceback when the file failed to import; empty otherwise.
  const std::string& traceback() const noexcept { return traceback_; }

 private:
  std::string path_, function_, traceback_;
};

// A module to preload (TRITON_JIT_PRELOAD, preload_modules) failed to import. Raised by the first
// kernel import after it was asked for, and by every later one until it imports.
class TRITON_JIT_API PreloadError : public KernelLookupError {
 public:
  PreloadError(const std::string& message, std::string module, std::string path, std::string function,
               std::string traceback);
  // The module that failed.
  const std::string& module() const noexcept { return module_; }

 private:
  std::string module_;
};

// A call whose arguments do not fit the kernel's signature.
class TRITON_JIT_API ArgumentError : public Error {
 public:
  ArgumentError(const std::string& message, std::string function, std::string parameter);
  const std::string& function() const noexcept { return function_; }
  // Name of the offending parameter; empty when the error concerns the whole call.
  const std::string& parameter() const noexcept { return parameter_; }

 private:
  std::string function_, parameter_;
};

// triton.compile raised: carries Triton's message, the kernel source location and the traceback.
class TRITON_JIT_API CompileError : public Error {
 public:
  CompileError(const std::string& message, std::string function, std::string signature, std::string key,
               std::string file, int line, std::string python_type, std::string traceback);
  const std::string& function() const noexcept { return function_; }
  // The specialization in Triton's signature syntax ("*fp32:16,i32,1024").
  const std::string& signature() const noexcept { return signature_; }
  // The whole kernel key (signature, launch options, compile options, target), in the form
  // MissingKernelError::key() and the kernel index use.
  const std::string& key() const noexcept { return key_; }
  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }
  const std::string& python_type() const noexcept { return python_type_; }
  const std::string& traceback() const noexcept { return traceback_; }

 private:
  std::string function_, signature_, key_, file_;
  int line_;
  std::string python_type_, traceback_;
};

// The embedded Python interpreter, or the bridge module, failed outside a compile.
class TRITON_JIT_API PythonError : public Error {
 public:
  PythonError(const std::string& message, std::string traceback);
  const std::string& traceback() const noexcept { return traceback_; }

 private:
  std::string traceback_;
};

// A CUDA driver call failed; the message has cuGetErrorName/cuGetErrorString text.
class TRITON_JIT_API CudaError : public Error {
 public:
  CudaError(const std::string& message, int code);
  int code() const noexcept { return code_; }

 private:
  int code_;
};

// No CUDA driver could be loaded, or it reports no device.
class TRITON_JIT_API NoDeviceError : public CudaError {
 public:
  using CudaError::CudaError;
};

// The kernel's binary was built for another GPU architecture than the device's.
class TRITON_JIT_API ArchitectureMismatchError : public Error {
 public:
  using Error::Error;
};

// A launch configuration the device cannot run (grid over limits, too much shared memory, ...).
class TRITON_JIT_API LaunchConfigError : public Error {
 public:
  using Error::Error;
};

// A kernel that is in no loaded pack and not in the index, and cannot be compiled here: Python
// or Triton is unavailable, offline mode is on, or the launch is being captured into a CUDA
// graph. The message names the function, the key and the pack-manifest line that would add it.
class TRITON_JIT_API MissingKernelError : public Error {
 public:
  MissingKernelError(const std::string& message, std::string function, std::string key, std::string manifest_line);
  const std::string& function() const noexcept { return function_; }
  // The whole kernel key, as CompileError::key().
  const std::string& key() const noexcept { return key_; }
  // The line for a pack manifest (`triton-jit pack`) that would compile this kernel.
  const std::string& manifest_line() const noexcept { return manifest_line_; }

 private:
  std::string function_, key_, manifest_line_;
};

// A kernel pack or pack manifest that cannot be read: missing, damaged, another format version,
// or a manifest line that does not parse.
class TRITON_JIT_API PackError : public Error {
 public:
  PackError(const std::string& message, std::string path);
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

}  // namespace triton_jit

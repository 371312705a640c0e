#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "triton_jit/arg.h"
#include "triton_jit/export.h"
#include "triton_jit/kernel_info.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/settings.h"
#include "triton_jit/signature.h"
#include "triton_jit/specialization.h"

namespace triton_jit {

namespace detail {
struct FunctionAccess;
}

// How a C++ type becomes an argument. Specialize for your own types (the torch layer does so for
// at::Tensor); the default handles the built-in types listed in arg.h.
template <typename T, typename = void>
struct ArgConverter {
  static ArgValue convert(const T& value) { return to_arg(value); }
};

// One @triton.jit function of a Python file, callable like Triton's `kernel[grid](...)`.
class TRITON_JIT_API TritonJitFunction {
 public:
  // The function `name` of `path`; one object per (canonical path, name), created on first use
  // and alive until the process ends. Thread-safe. The static signature comes from a loaded pack
  // or the persistent index when they have it (no Python), else through Python. With a pack
  // holding the function, the file need not exist (a deployment without sources).
  // Throws KernelLookupError for a missing file or function, a file that fails to import, or an
  // object that is not a @triton.jit function (autotune/heuristics wrappers are unwrapped).
  static TritonJitFunction& get(std::string_view path, std::string_view name);

  TritonJitFunction(const TritonJitFunction&) = delete;
  TritonJitFunction& operator=(const TritonJitFunction&) = delete;
  ~TritonJitFunction();

  // fn(config, args...): specializes, compiles on a miss, launches on config.stream.
  template <typename... Args>
  void operator()(const LaunchConfig& config, const Args&... args) const {
    if constexpr (sizeof...(Args) == 0) {
      launch(config, ArgSpan{});
    } else {
      // decay of `const Args` turns a string literal into const char*, not char*.
      const ArgValue values[] = {ArgConverter<std::decay_t<const Args>>::convert(args)...};
      launch(config, ArgSpan{values, sizeof...(Args)});
    }
  }

  // The non-template form of the call. Trailing parameters with defaults may be omitted.
  void launch(const LaunchConfig& config, ArgSpan args) const;

  // The specialization a call with these arguments uses; no compile, no device needed.
  Specialization specialize(const LaunchConfig& config, ArgSpan args) const;

  // Compiles (or finds in the cache) the kernel a call would launch, without launching. The
  // target is the current device's, else explicit_target(), else cuda:90. The reference stays
  // valid as long as the process.
  const KernelInfo& compile(const LaunchConfig& config, ArgSpan args) const;

  // Compiles a specialization given in Triton's signature syntax ("*fp16:16,i32,1024"), for
  // ahead-of-time use. Always compiles; not kept in memory, but stored in the persistent index.
  KernelInfo compile_signature(std::string_view signature, int num_warps, int num_stages, int num_ctas,
                               const Target& target, const CompileOptions* options = nullptr) const;

  const StaticSignature& signature() const noexcept;
  const std::string& name() const noexcept;
  const std::string& path() const noexcept;
  CacheStats stats() const noexcept;

  struct Impl;

 private:
  friend struct detail::FunctionAccess;
  explicit TritonJitFunction(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace triton_jit

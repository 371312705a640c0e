#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "triton_jit/arg.h"
#include "triton_jit/binder.h"
#include "triton_jit/decorators.h"
#include "triton_jit/export.h"
#include "triton_jit/kernel_info.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/signature.h"
#include "triton_jit/specialization.h"
#include "triton_jit/stats.h"
#include "triton_jit/target.h"

namespace triton_jit {

namespace detail {
struct FunctionState;
class Resolver;
struct FunctionFactory;
}  // namespace detail

// One specialization to compile ahead of time, in Triton's signature syntax.
struct CompileRequest {
  // One item per parameter: "*fp32:16,*fp32:16,i32,1024".
  std::string signature;
  int num_warps = kDefaultNumWarps;
  int num_stages = kTargetDefaultNumStages;  // the target's default, as LaunchConfig's
  int num_ctas = kDefaultNumCtas;
  CompileOptions options;
  // Default: the target a launch on the current device uses (explicit_target(), else the
  // device's, else cuda:90).
  std::optional<Target> target;
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
  // A file inside a package whose root folder is on Python's sys.path (every folder up to the
  // root holds an __init__.py) is imported as that package's module: the packages' __init__ run
  // first and relative imports work. `name` may continue with attributes: "kernel.fn" is the
  // @triton.jit function under @triton.autotune/@triton.heuristics wrappers, as in Python.
  static TritonJitFunction& get(std::string_view path, std::string_view name);

  // The function `name` of the module `module` ("pkg.sub.kernels"), imported the normal Python
  // way (importlib.import_module: packages initialised, relative imports working). The same
  // object as get() on the module's file. Where Python imported the module once, the index
  // records its file, so a process without Python finds it there; else a loaded pack holding it
  // by module name serves it (packed as "module:pkg.sub.kernels:FN"). Throws KernelLookupError
  // (with Python's traceback) when the module cannot be imported, PreloadError when a preload
  // fails.
  static TritonJitFunction& get_module(std::string_view module, std::string_view name);

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
  template <typename... Args>
  Specialization specialize(const LaunchConfig& config, const Args&... args) const {
    return with_args([&](ArgSpan span) { return specialize(config, span); }, args...);
  }
  Specialization specialize(const LaunchConfig& config, ArgSpan args) const;

  // Compiles (or finds in memory, a pack or the index) the kernel a call with these arguments
  // would launch, without launching. The target is the current device's, else
  // explicit_target(), else cuda:90. The reference stays valid as long as the process.
  template <typename... Args>
  const KernelInfo& compile(const LaunchConfig& config, const Args&... args) const {
    return with_args([&](ArgSpan span) -> const KernelInfo& { return compile(config, span); }, args...);
  }
  const KernelInfo& compile(const LaunchConfig& config, ArgSpan args) const;

  // Compiles a specialization given in Triton's signature syntax, for ahead-of-time use. Always
  // compiles; the kernel is stored in the persistent index, not kept in memory.
  KernelInfo compile(const CompileRequest& request) const;

  [[deprecated("use compile(CompileRequest{signature, num_warps, num_stages, num_ctas, options, target})")]] KernelInfo
  compile_signature(std::string_view signature, int num_warps, int num_stages, int num_ctas, const Target& target,
                    const CompileOptions* options = nullptr) const {
    return compile(CompileRequest{std::string(signature), num_warps, num_stages, num_ctas,
                                  options != nullptr ? *options : CompileOptions{}, target});
  }

  // Heuristics that have no C++ program run through Python once per distinct input and are
  // memoized, which assumes a heuristic depends only on the arguments it reads and on what is
  // constant for the process (device properties, say). `true` runs every heuristic through
  // Python on every call instead (slow: for heuristics that break that assumption).
  void set_heuristics_through_python(bool on) noexcept;

  // The parameters and, in `decorators`, the @triton.heuristics and @triton.autotune wrappers.
  // A call passes the parameters no decorator sets, in order.
  const StaticSignature& signature() const noexcept;
  // How a call's arguments meet the parameters: what the caller passes, defaults, names (the
  // binder every call goes through; front ends such as the Python extension bind keywords by it).
  const Binder& binder() const noexcept;
  const std::string& name() const noexcept;
  // The canonical file ("module:NAME" for a module served by a pack alone, its file unknown).
  const std::string& path() const noexcept;
  // The module the function was first got by (get_module); empty when got by path.
  const std::string& module() const noexcept;
  Stats stats() const noexcept;

  // For each @triton.autotune wrapper, outermost first, what it decided the last time a call in
  // this process gave it a tuning key it had no choice for in memory: the timed configs and the
  // chosen one, or a choice read from the kernel index (TuningResult::from_index). Autotuners that
  // never met a new key (and those with one config, which never time) are left out; empty for a
  // function without @triton.autotune. Thread-safe; meant for tools and logs, not the hot path.
  std::vector<TuningResult> last_tuning() const;

 private:
  friend class detail::Resolver;
  friend struct detail::FunctionFactory;
  explicit TritonJitFunction(std::unique_ptr<detail::FunctionState> state);

  // Calls `body` with the arguments converted (ArgConverter) into an array on the stack.
  template <typename Body, typename... Args>
  static decltype(auto) with_args(Body&& body, const Args&... args) {
    if constexpr (sizeof...(Args) == 0) {
      return body(ArgSpan{});
    } else {
      const ArgValue values[] = {ArgConverter<std::decay_t<const Args>>::convert(args)...};
      return body(ArgSpan{values, sizeof...(Args)});
    }
  }

  std::unique_ptr<detail::FunctionState> state_;
};

}  // namespace triton_jit

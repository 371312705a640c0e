#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernel/kernel_fields.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/settings.h"
#include "triton_jit/signature.h"
#include "triton_jit/specialization.h"
#include "triton_jit/tensor_descriptor.h"

// The C++ face of the triton_jit_bridge package (src/bridge/python). No pybind11 in this header:
// callers stay free of Python.
namespace triton_jit::bridge {

// A reference to a Python object (the JITFunction), owned by the runtime for the process's life.
struct PyHandle {
  void* object = nullptr;
};

struct LoadedFunction {
  PyHandle function;  // the @triton.jit function
  PyHandle wrapper;   // the object the name holds: the outermost decorator, or the function
  StaticSignature signature;
  // The source files of the wrappers' classes (Triton's aside), which decided the layers' kinds:
  // dependencies of the signature the index keeps.
  std::vector<std::string> wrapper_files;
};

// A function's source as the bridge takes it: a file path, or kModulePrefix and a module name
// (the spelling of the CLI and pack manifests too: "module:pkg.sub.kernels:FN").
inline constexpr const char* kModulePrefix = "module:";
inline std::string module_source(const std::string& module) { return kModulePrefix + module; }

// Imports `source` (a file, or a module_source) after the pending preloads, and reads the static
// signature of `name` (a dotted attribute path after the name is followed: "kernel.fn"). Throws
// KernelLookupError; PreloadError when a preload fails.
LoadedFunction load_function(const std::string& source, const std::string& name);

// The canonical path of the file `module` is imported from (imported after the pending
// preloads), to get its `function` (named in errors). Throws KernelLookupError (with Python's
// traceback) when it cannot be imported, PreloadError when a preload fails, PythonError when
// Python or Triton is unusable.
std::string module_file(const std::string& module, const std::string& function);

// A compile's result: the kernel and the source files it depends on (recorded by the bridge).
struct CompileResult {
  detail::CompiledKernel kernel;
  std::vector<std::string> dependency_files;
  std::string triton_file;  // the Triton installation's __init__.py
};

// Runs triton.compile for one specialization. Throws CompileError carrying Triton's message.
// `key`: the kernel key's text, carried by a CompileError.
CompileResult compile(PyHandle function, const StaticSignature& signature, const Specialization& spec,
                      const std::string& key, const CompileOptions* options, const Target& target);

// Checks, before anything compiles, that the installed Triton can build for `target` (it has
// that backend; for cuda, its ptxas knows the architecture) and that each of `options` is a
// compile option of that backend with a value of its type. Throws ArgumentError naming the
// function and, as parameter(), the option or "target".
void check_compile_request(const std::string& function, const CompileOptions* options, const Target& target);

// A HIP target's rules, asked of the installed Triton before anything specializes for it: throws
// ArgumentError (parameter "target") naming the target and the processors Triton's AMD backend
// builds when it cannot build this one; else returns whether Triton's HIP binder adds 'S' to
// pointers in buffers of at most 2^31 - 1 bytes (knobs.amd.use_buffer_ops).
bool hip_buffer_ops(const Target& target);

// The num_stages the installed Triton compiles with for `target` when a launch does not name it:
// its backend's options without num_stages (parse_options), HIPOptions' 2 and CUDAOptions' 3 in
// Triton 3.4 to 3.9. Throws Error when Triton cannot be asked.
int target_default_num_stages(const Target& target);

// One compile for the compile worker pool (compile_many here, compile_in_pool in
// bridge/compile_pool.h): the function by source and name, as a worker process loads it.
struct CompileJob {
  std::string source;                          // a file path or a module_source, as load_function takes it
  std::string name;                            // the function's name there, as load_function takes it
  const StaticSignature* signature = nullptr;  // for messages; outlives the call
  Specialization spec;
  std::string key;  // the whole kernel key's text, for errors
  const CompileOptions* options = nullptr;
  Target target;
};

// Runs `jobs` on the compile worker pool (bridge/compile_pool.h), `workers` at once (more than
// compile_workers() when asked: the pool grows for this batch). `on_done(i, result, error)` is
// called on this thread as each job ends, with the result or the error (a CompileError) of
// jobs[i]. Throws PythonError when the pool cannot be used at all (no Python).
void compile_many(const std::vector<CompileJob>& jobs, int workers,
                  const std::function<void(size_t, CompileResult*, std::exception_ptr)>& on_done);

// The heuristic `name` of decorator layer `layer` (outermost 0) of a function's wrapper.
PyHandle decorator_callable(PyHandle wrapper, size_t layer, const std::string& name);

// Triton's own autotuning cache (Autotuner.check_disk_cache) for autotuner `layer` of `wrapper`
// and the tuning key whose repr is `key_repr` (str of Triton's key tuple): the config Triton
// recorded as fastest, if any; and the store of the runtime's timings, one {median, p20, p80}
// per config (infinite where it failed), as Triton writes them.
std::optional<size_t> autotune_cache_lookup(PyHandle wrapper, size_t layer, const std::string& key_repr,
                                            const Target& target);
void autotune_cache_store(PyHandle wrapper, size_t layer, const std::string& key_repr, const Target& target,
                          const std::vector<std::array<double, 3>>& timings);

// The configs (indices) autotuner `layer` of `wrapper` keeps for a call under its prune_configs_by
// (early_config_prune, perf_model and top_k), run by Triton's own Autotuner.prune_configs on the
// caller's `num_args` leading arguments (tensors as the bridge's TensorArg). Throws ArgumentError
// with Python's traceback when a pruning function raises.
std::vector<size_t> prune_autotune_configs(PyHandle wrapper, size_t layer, const StaticSignature& sig,
                                           const ArgValue* args, size_t num_args);

std::string triton_version();

// ---- @triton.heuristics values (src/decorators/heuristic_program.h) ----

// Translates one heuristic (a value of a @triton.heuristics dict) of the function `sig` describes
// into a HeuristicProgram's text: (text) or (nullopt, with *reason saying why it stays in Python).
std::optional<std::string> translate_heuristic(PyHandle func, const StaticSignature& sig, std::string* reason);

struct HeuristicCall {
  DefaultValue result;                // what the heuristic returned, as a constexpr value
  std::vector<uint32_t> params_read;  // indices of the parameters it read, sorted
};

// Runs the Python heuristic over the call's arguments `args[0..n)` (parameter i = args[i]). In
// Python: ints, floats, bools, None, strings, dtypes as the objects their reprs name
// (triton.language.float16, torch.float16), pointers as the bridge's TensorArg (dtype,
// data_ptr(), element_size()), tensor descriptors as an opaque stand-in. `args` is a mapping that
// records the names read. Throws ArgumentError (function, parameter = heuristic_name) with
// Python's traceback when the heuristic raises, and when its result cannot be a constexpr (not an
// int in [-2^63, 2^64), float, bool, None, str or dtype the runtime knows), naming the type.
HeuristicCall call_heuristic(PyHandle func, const StaticSignature& sig, std::string_view heuristic_name,
                             const ArgValue* args, size_t n);

// ---- autotune hooks (src/decorators/autotune_hooks.h) ----

enum class AutotuneHook { ConfigPreHook, PreHook, PostHook };
// "Config.pre_hook", "pre_hook", "post_hook". Inline: the core names hooks without the bridge.
inline const char* hook_name(AutotuneHook hook) noexcept {
  switch (hook) {
    case AutotuneHook::ConfigPreHook: return "Config.pre_hook";
    case AutotuneHook::PreHook: return "pre_hook";
    default: return "post_hook";
  }
}

// The dict autotuner `layer` of `wrapper` passes its hooks for config `config`, in Triton's
// order: the first `num_passed` of `params` (the caller's arguments, args[p] each), `grid` and
// `warmup` (False), as Python's kernel[grid](...) adds them, the rest of `params` (what outer
// wrappers set), then the config's all_kwargs(). Pointers become 1-D torch tensors over their
// memory when torch has CUDA and their extent is known, else stand-ins whose other attributes
// raise a message saying what to pass. A new reference: release() it.
PyHandle autotune_hook_args(PyHandle wrapper, size_t layer, size_t config, const StaticSignature& sig,
                            const ArgValue* args, const std::vector<uint32_t>& params, size_t num_passed,
                            const Grid& grid);
// Runs one hook on `hook_args` with torch's current stream set to `stream`, as Triton's
// Autotuner calls it (`reset_only`: the pre_hook after tuning; `exception`: the launch's error
// for a post_hook after a failed launch). Throws ArgumentError (function, parameter = the hook's
// name) with Python's traceback when the hook raises.
void call_autotune_hook(PyHandle wrapper, size_t layer, size_t config, AutotuneHook hook, PyHandle hook_args,
                        const StaticSignature& sig, void* stream, bool reset_only, const std::string* exception);
// ---- FlagGems' LibTuner policy (src/decorators/lib_tuner.h) ----

// Runs the policy of LibTuner `layer` of `wrapper` as LibTuner.run calls it on a tuning miss:
// policy(bench_fn, configs, args, kwargs), with configs[i] for i in `kept` (in that order), the
// first `num_passed` of `params` as args and the others (what outer wrappers set) as kwargs,
// values as autotune_hook_args makes them; bench_fn(config) calls `bench` with the config's index
// (the GIL released) and gives Python the list [p50, p20, p80]. Returns the chosen config's
// index. What `bench` throws is thrown again as itself; a policy that raises is an ArgumentError
// (function, parameter "policy") with Python's traceback.
uint32_t run_libtuner_policy(PyHandle wrapper, size_t layer, const StaticSignature& sig, const ArgValue* args,
                             const std::vector<uint32_t>& params, size_t num_passed, const std::vector<size_t>& kept,
                             const std::function<std::array<double, 3>(uint32_t)>& bench);

// What the hooks left in `hook_args` for the tensor descriptor parameters among `params` (each
// args[p] of kind TensorDesc): Triton's TensorDescriptor objects the hooks received, which a config
// pre_hook may change (FlagGems' host-TMA mm sets `.block_shape`). One (param, descriptor) each,
// checked as TensorDescriptor::make checks; the element type stays the argument's. Throws
// ArgumentError (function, parameter) when the hook left something that is not a valid descriptor.
std::vector<std::pair<uint32_t, TensorDescriptor>> hooked_descriptors(PyHandle hook_args, const StaticSignature& sig,
                                                                      const ArgValue* args,
                                                                      const std::vector<uint32_t>& params);
// ---- a wrapper's own run (src/decorators/python_wrapper.h) ----

// Runs Python's `wrapper[grid](*args, **kwargs)` as Triton's kernel[grid](...) would: the caller's
// `args[i]` for parameter `params[i]` (positional while they are the leading parameters in order,
// by name after), `config`'s launch options where they differ from Triton's defaults and its compile
// options by name, `config.grid` as a tuple or `config.grid_fn` as a callable taking Triton's
// dict of the call's arguments, with torch's current stream set to `config.stream`. Pointers become
// 1-D torch tensors over their memory when torch has CUDA and their size is known, else stand-ins
// with dtype, data_ptr() and element_size(). Throws ArgumentError (function, parameter "") with
// Python's traceback when the wrapper raises.
void run_python_wrapper(PyHandle wrapper, const StaticSignature& sig, const std::vector<uint32_t>& params,
                        const ArgValue* args, size_t num_args, const LaunchConfig& config);

// Drops a reference autotune_hook_args returned (nothing for a null handle).
void release(PyHandle object) noexcept;

// ---- Triton's launch hooks (triton.knobs.runtime.launch_enter_hook / launch_exit_hook) ----

// One launch, as Triton's launch hooks are told of it.
struct PythonLaunch {
  PyHandle function;  // the @triton.jit function: its launch_metadata and arg_names
  const StaticSignature* signature = nullptr;
  const void* kernel_id = nullptr;  // the compiled kernel: its metadata namedtuple is built once per id
  const std::string* metadata_json = nullptr;
  std::string_view kernel_name;
  void* cu_function = nullptr;
  void* stream = nullptr;
  Grid grid;
  const ArgValue* args = nullptr;  // the complete call, in parameter order
  size_t num_args = 0;
};

// Does what Triton's launch does before the kernel runs: reads both hooks, builds the LazyDict
// (name, function, stream, and the function's launch_metadata(grid, metadata, args) added
// lazily) when the enter hook is set, and calls the enter hook with it. Returns what
// python_launch_exit needs (null when there is no exit hook). Throws PythonError, with Python's
// traceback, when the hook raises: the kernel is then not launched.
PyHandle python_launch_enter(const PythonLaunch& launch);
// Calls the exit hook read by python_launch_enter with the same metadata, and drops `state`
// (also when the hook raises: PythonError). A launch that failed drops it with release().
void python_launch_exit(PyHandle state, const StaticSignature& signature);

// The Python environment whose Triton this process compiles with, known without starting Python:
// the host's sys.executable when the process runs Python itself (the runtime joins it), else the
// python the runtime would start (python_select.h), as an absolute path with
// its symlinks kept (virtualenvs link to one base python). The persistent index keys its entries
// by it, so a process never takes a kernel compiled by another Triton installation.
std::string python_environment();

// True once this process has started or joined a Python interpreter through the runtime.
bool interpreter_used() noexcept;

// Releases the GIL for its lifetime when the calling thread holds it (a host Python thread
// calling into the runtime), so that a thread it waits for can run Python (a compile) meanwhile.
class ScopedGilRelease {
 public:
  ScopedGilRelease();
  ~ScopedGilRelease();
  ScopedGilRelease(const ScopedGilRelease&) = delete;
  ScopedGilRelease& operator=(const ScopedGilRelease&) = delete;

 private:
  void* saved_ = nullptr;  // the PyThreadState to restore
};

}  // namespace triton_jit::bridge

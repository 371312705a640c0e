#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "triton_jit/export.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/target.h"

namespace triton_jit {

// The target used to compile: an explicit one (this setting, else TRITON_JIT_TARGET) wins;
// otherwise the current device's; with no GPU, cuda:90.
TRITON_JIT_API void set_target(std::optional<Target> target);
TRITON_JIT_API std::optional<Target> explicit_target();

// Whether a launch from here compiles for an AMD GPU: the explicit target is a hip: one, or, with
// none set, the runtime launches through the HIP runtime (its device is an AMD GPU). False where
// no GPU runtime loads. For front ends, which read what only HIP keys need (the size of each
// tensor's buffer, for Triton's 'S' flag) and check whose memory a tensor is; no driver call once
// the runtime is loaded.
TRITON_JIT_API bool launch_target_is_hip() noexcept;

// Memory for kernels that need global or profile scratch. Allocation is stream-ordered so that
// launches stay asynchronous and capturable in CUDA graphs.
class TRITON_JIT_API ScratchAllocator {
 public:
  virtual ~ScratchAllocator();
  virtual void* allocate(size_t bytes, size_t alignment, CUstream_st* stream) = 0;
  // Called right after the launch on the same stream: the memory may be reused once the kernel ends.
  virtual void deallocate(void* ptr, size_t bytes, CUstream_st* stream) = 0;
};

// Replaces the scratch allocator (nullptr restores the default: cuMemAllocAsync/cuMemFreeAsync).
TRITON_JIT_API void set_scratch_allocator(std::shared_ptr<ScratchAllocator> allocator);

enum class LogLevel { Off, Info, Debug };
// Initially from TRITON_JIT_LOG ("info", "debug"); silent by default.
TRITON_JIT_API void set_log_level(LogLevel level);
TRITON_JIT_API LogLevel log_level();

// Offline mode never starts Python: kernels come from packs and the persistent index only, and a
// missing one is a MissingKernelError. Initially on when TRITON_JIT_OFFLINE=1.
TRITON_JIT_API void set_offline(bool offline);
TRITON_JIT_API bool offline();

// Modules to import, in order, before any kernel is imported through Python: for libraries whose
// kernels need the package imported first (flag_gems registers things at import). Initially
// TRITON_JIT_PRELOAD (comma-separated module names); each call appends its modules (skipping ones
// already listed). Starts no Python: the modules are imported before the next kernel import
// (get, get_module, or a compile's lazy import), and in compile workers; a process whose kernels
// all come from packs or the index never imports them. A module that fails to import makes that
// kernel import, and every later one until it imports, throw PreloadError naming it.
TRITON_JIT_API void preload_modules(const std::vector<std::string>& modules);

// Compile worker processes: Python processes started on demand and kept for the process's life,
// shared by prepare(), pack builds, autotuning and concurrent misses (a lone miss compiles in
// this process). At most this many run at once (a prepare() asking for more jobs gets them).
// workers >= 1: that limit; 0: no worker processes, every compile in this process, one at a
// time; negative: the default, TRITON_JIT_COMPILE_WORKERS when set (same meanings), else one
// per core, at most kMaxDefaultCompileWorkers. compile_workers() is the limit in force.
inline constexpr int kMaxDefaultCompileWorkers = 32;
TRITON_JIT_API void set_compile_workers(int workers);
TRITON_JIT_API int compile_workers();

// True once the runtime has started (or joined) a Python interpreter in this process. A process
// whose kernels all come from packs or the persistent index never does.
TRITON_JIT_API bool python_used() noexcept;

// Version of the Triton package the embedded interpreter imports (initializes Python).
TRITON_JIT_API std::string triton_version();

}  // namespace triton_jit

#pragma once

#include <memory>
#include <string>

#include "triton_jit/export.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/target.h"

namespace triton_jit {

namespace detail {
struct LaunchMetadata;
struct KernelInfoAccess;
}  // namespace detail

// A compiled kernel: what a user may want to know of it. The launch metadata (scratch sizes,
// cluster and launch attributes) stays inside the runtime; to_json() shows every field.
struct TRITON_JIT_API KernelInfo {
  std::string name;  // entry point in the cubin
  Target target;
  std::string cubin;  // the binary's bytes
  int num_warps = kDefaultNumWarps;
  int num_ctas = kDefaultNumCtas;
  int shared = 0;              // dynamic shared memory in bytes
  std::string hash;            // Triton's hash of the compilation
  std::string triton_version;  // of the Triton that compiled it

  // Every field of the compile, the launch metadata included, as one JSON object; Triton's own
  // metadata is under "metadata", and the binary appears as "cubin_size".
  std::string to_json() const;

 private:
  friend struct detail::KernelInfoAccess;
  std::shared_ptr<const detail::LaunchMetadata> launch_;  // set by the runtime; immutable
};

}  // namespace triton_jit

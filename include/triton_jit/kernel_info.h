#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "triton_jit/settings.h"

namespace triton_jit {

// A compiled kernel: the binary and the metadata a launch needs, as triton.compile returned them.
struct KernelInfo {
  std::string name;  // entry point in the cubin
  Target target;
  std::string cubin;  // bytes
  int num_warps = 4;
  int num_ctas = 1;
  int shared = 0;  // dynamic shared memory in bytes
  int cluster_dims[3] = {1, 1, 1};
  int64_t global_scratch_size = 0;  // bytes per program
  int64_t global_scratch_align = 1;
  int64_t profile_scratch_size = 0;
  int64_t profile_scratch_align = 1;
  bool launch_pdl = false;
  bool launch_cooperative_grid = false;
  // Trailing kernel parameters the launcher appends after the user's arguments, in order
  // ("global_scratch", "profile_scratch"); the set depends on the Triton version.
  std::vector<std::string> scratch_params;
  std::string hash;            // Triton's hash of the compilation
  std::string triton_version;
  std::string metadata_json;   // every metadata field, as JSON
};

}  // namespace triton_jit

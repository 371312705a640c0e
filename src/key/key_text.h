#pragma once

#include <string>

#include "triton_jit/launch_config.h"
#include "triton_jit/specialization.h"
#include "triton_jit/target.h"

namespace triton_jit::detail {

// Everything besides the function that identifies a compiled kernel. Its text form names the
// kernel in the index and in packs; equal texts mean the same binary.
struct KernelKey {
  std::string signature;  // Triton's signature syntax: "*fp32:16,i32,1024"
  int num_warps = kDefaultNumWarps;
  int num_stages = kDefaultNumStages;
  int num_ctas = kDefaultNumCtas;
  std::string options;  // "name=value;..." sorted by name (options_text)
  Target target;

  std::string text() const;
  // The pack-manifest line that would compile this kernel of `file`:`function`.
  std::string manifest_line(const std::string& file, const std::string& function) const;
};

// The key of `spec` (a call's specialization, with its launch options) compiled with `options`
// for `target`.
KernelKey make_kernel_key(const Specialization& spec, const CompileOptions* options, const Target& target);

// "maxnreg=128;enable_fp_fusion=False": Python literals, sorted by name; empty for none.
std::string options_text(const CompileOptions* options);

}  // namespace triton_jit::detail

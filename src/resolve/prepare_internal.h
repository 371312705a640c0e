#pragma once

#include <vector>

#include "launch/kernel_table.h"
#include "store/records.h"
#include "triton_jit/prepare.h"

namespace triton_jit::detail {

// A kernel prepare made ready, in request order (duplicates share an entry).
struct PreparedKernel {
  const TritonJitFunction* function = nullptr;
  const KernelEntry* entry = nullptr;
  KernelKey key;
};

// prepare(), with the label its progress bar shows and, when `out` is given, the kernels.
PrepareReport prepare_kernels(const std::vector<KernelRequest>& requests, const PrepareOptions& options,
                              const char* label, std::vector<PreparedKernel>* out);

}  // namespace triton_jit::detail

#pragma once
// The launch metadata of a compiled kernel, which KernelInfo keeps private, for tests and
// benchmarks that check or mimic what the launcher reads (inline: works with the shared library).
#include <stdexcept>

#include "kernel/kernel_fields.h"

namespace triton_jit::test {

inline const detail::LaunchMetadata& launch_metadata(const KernelInfo& info) {
  const detail::LaunchMetadata* launch = detail::KernelInfoAccess::launch(info);
  if (launch == nullptr) throw std::logic_error("KernelInfo of " + info.name + " carries no launch metadata");
  return *launch;
}

}  // namespace triton_jit::test

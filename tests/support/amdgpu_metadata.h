#pragma once
// The kernel-argument layout an AMD code object (hsaco) declares for its kernels: the AMDGPU
// metadata note (ELF note "AMDGPU", type NT_AMDGPU_METADATA = 32, a msgpack map; LLVM's
// AMDGPUUsage, "Code Object V3+ Metadata"): amdhsa.kernels[].{.name, .kernarg_segment_size,
// .args[].{.offset, .size, .value_kind}}. A small bounded reader: every length is checked against
// the buffer; a malformed object throws std::runtime_error. The fake HIP runtime builds the
// kernarg segment from it, as the real runtime does, and the tests check layouts against it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace amdgpu {

struct KernelArg {
  uint64_t offset = 0;
  uint64_t size = 0;
  std::string value_kind;  // "global_buffer", "by_value", "hidden_block_count_x", ...
  bool hidden() const { return value_kind.rfind("hidden_", 0) == 0; }
};

struct Kernel {
  std::string name;
  uint64_t kernarg_segment_size = 0;
  std::vector<KernelArg> args;  // in the metadata's order (hidden arguments last)
  std::vector<KernelArg> explicit_args() const;
};

// The kernels an hsaco's metadata note declares. `size` 0: read the ELF header to find the end.
std::vector<Kernel> read_kernels(const void* elf, size_t size = 0);

}  // namespace amdgpu

#pragma once
// Device memory for autotuning: what @triton.autotune's reset_to_zero and restore_value do to the
// named arguments around each benchmarked launch, on the caller's stream, without torch.

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "triton_jit/export.h"

namespace triton_jit::detail {

// One argument's memory: `bytes` from device address `address`. An empty range (bytes == 0) is
// skipped, as Triton 3.8+ skips an argument that is None.
struct Range {
  uint64_t address = 0;
  uint64_t bytes = 0;
};

// Device memory from cuMemAlloc in the current context, freed by cuMemFree. Movable.
class TRITON_JIT_API DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Throws CudaError (naming cuMemAlloc) when the allocation fails. 0 bytes allocates nothing.
  explicit DeviceBuffer(uint64_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  uint64_t address() const noexcept { return address_; }
  uint64_t bytes() const noexcept { return bytes_; }
  explicit operator bool() const noexcept { return address_ != 0; }
  // Frees now (cuMemFree's errors are ignored, as in the destructor).
  void reset() noexcept;

 private:
  uint64_t address_ = 0;
  uint64_t bytes_ = 0;
};

// Stream-ordered zeroing of [address, address + bytes): cuMemsetD32Async when address and size
// are multiples of 4, else cuMemsetD8Async. Nothing for 0 bytes. Throws CudaError naming the call.
TRITON_JIT_API void zero_async(CUstream stream, uint64_t address, uint64_t bytes);
// Stream-ordered cuMemcpyDtoDAsync of `bytes` from src to dst. Nothing for 0 bytes.
TRITON_JIT_API void copy_async(CUstream stream, uint64_t dst, uint64_t src, uint64_t bytes);
// zero_async of each range, in order (Autotuner.pre_hook(reset_only=True) after tuning).
TRITON_JIT_API void zero_all_async(CUstream stream, const std::vector<Range>& ranges);

// restore_value: one device buffer (allocated once, in the constructor) holding a copy of each
// range. save() copies the ranges into it (Triton's clone() in the pre-hook), restore() copies
// them back (the post-hook's copy_()); both on the stream, asynchronous.
class TRITON_JIT_API RestoreSet {
 public:
  RestoreSet() = default;
  explicit RestoreSet(std::vector<Range> ranges);

  void save(CUstream stream) const;
  void restore(CUstream stream) const;

  const std::vector<Range>& ranges() const noexcept { return ranges_; }
  bool empty() const noexcept { return ranges_.empty(); }
  // Where range i's copy lives (for tests).
  uint64_t copy_address(size_t i) const { return copies_.address() + offsets_.at(i); }

 private:
  std::vector<Range> ranges_;
  std::vector<uint64_t> offsets_;  // of each range's copy in copies_, 256-byte aligned
  DeviceBuffer copies_;
};

// The call to benchmark for one config, in Autotuner._bench's order (Triton 3.4-3.9):
//   zero each reset_to_zero range; save the restore_value ranges; launch(); restore them.
// When launch() throws, the ranges are restored and the launch's exception propagates (a failure
// of the restore itself is dropped then, so the launch's error is the one seen).
// The restore copies are allocated here, once; the returned function owns them.
TRITON_JIT_API std::function<void()> wrap_for_tuning(std::function<void()> launch,
                                                     const std::vector<Range>& reset_to_zero,
                                                     const std::vector<Range>& restore_value, CUstream stream);
// The same with a RestoreSet shared by several configs' calls (one allocation for a whole tuning).
TRITON_JIT_API std::function<void()> wrap_for_tuning(std::function<void()> launch,
                                                     const std::vector<Range>& reset_to_zero,
                                                     std::shared_ptr<const RestoreSet> restore_value, CUstream stream);

}  // namespace triton_jit::detail

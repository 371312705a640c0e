#include "cuda/device_memory.h"

#include <string>
#include <utility>

#include "cuda/driver_api.h"

namespace triton_jit::detail {
namespace {

constexpr uint64_t kCopyAlignment = 256;  // cuMemAlloc's alignment, kept for each copy

}  // namespace

DeviceBuffer::DeviceBuffer(uint64_t bytes) {
  if (bytes == 0) return;
  CUdeviceptr p = 0;
  const CUresult r = cuda::driver().MemAlloc(&p, static_cast<size_t>(bytes));
  if (r != CUDA_SUCCESS) {
    cuda::throw_cuda_error(r, "cuMemAlloc", ("allocating " + std::to_string(bytes) + " bytes for autotuning").c_str());
  }
  address_ = static_cast<uint64_t>(p);
  bytes_ = bytes;
}

DeviceBuffer::~DeviceBuffer() { reset(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : address_(std::exchange(other.address_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    address_ = std::exchange(other.address_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::reset() noexcept {
  if (address_ == 0) return;
  try {
    cuda::driver().MemFree(static_cast<CUdeviceptr>(address_));
  } catch (...) {  // no driver any more: nothing to free
  }
  address_ = 0;
  bytes_ = 0;
}

void zero_async(CUstream stream, uint64_t address, uint64_t bytes) {
  if (bytes == 0) return;
  const cuda::DriverApi& d = cuda::driver();
  if (address % 4 == 0 && bytes % 4 == 0) {
    const CUresult r = d.MemsetD32Async(static_cast<CUdeviceptr>(address), 0, static_cast<size_t>(bytes / 4), stream);
    if (r != CUDA_SUCCESS) cuda::throw_cuda_error(r, "cuMemsetD32Async", "zeroing a reset_to_zero argument");
  } else {
    const CUresult r = d.MemsetD8Async(static_cast<CUdeviceptr>(address), 0, static_cast<size_t>(bytes), stream);
    if (r != CUDA_SUCCESS) cuda::throw_cuda_error(r, "cuMemsetD8Async", "zeroing a reset_to_zero argument");
  }
}

void copy_async(CUstream stream, uint64_t dst, uint64_t src, uint64_t bytes) {
  if (bytes == 0) return;
  const CUresult r = cuda::driver().MemcpyDtoDAsync(static_cast<CUdeviceptr>(dst), static_cast<CUdeviceptr>(src),
                                                    static_cast<size_t>(bytes), stream);
  if (r != CUDA_SUCCESS) cuda::throw_cuda_error(r, "cuMemcpyDtoDAsync", "copying a restore_value argument");
}

void zero_all_async(CUstream stream, const std::vector<Range>& ranges) {
  for (const Range& range : ranges) zero_async(stream, range.address, range.bytes);
}

RestoreSet::RestoreSet(std::vector<Range> ranges) : ranges_(std::move(ranges)) {
  uint64_t total = 0;
  offsets_.reserve(ranges_.size());
  for (const Range& range : ranges_) {
    offsets_.push_back(total);
    total += (range.bytes + kCopyAlignment - 1) / kCopyAlignment * kCopyAlignment;
  }
  copies_ = DeviceBuffer(total);
}

void RestoreSet::save(CUstream stream) const {
  for (size_t i = 0; i < ranges_.size(); ++i) {
    copy_async(stream, copies_.address() + offsets_[i], ranges_[i].address, ranges_[i].bytes);
  }
}

void RestoreSet::restore(CUstream stream) const {
  for (size_t i = 0; i < ranges_.size(); ++i) {
    copy_async(stream, ranges_[i].address, copies_.address() + offsets_[i], ranges_[i].bytes);
  }
}

std::function<void()> wrap_for_tuning(std::function<void()> launch, const std::vector<Range>& reset_to_zero,
                                      const std::vector<Range>& restore_value, CUstream stream) {
  std::shared_ptr<const RestoreSet> restore;
  if (!restore_value.empty()) restore = std::make_shared<const RestoreSet>(restore_value);
  return wrap_for_tuning(std::move(launch), reset_to_zero, std::move(restore), stream);
}

std::function<void()> wrap_for_tuning(std::function<void()> launch, const std::vector<Range>& reset_to_zero,
                                      std::shared_ptr<const RestoreSet> restore_value, CUstream stream) {
  if (restore_value && restore_value->empty()) restore_value.reset();
  if (reset_to_zero.empty() && !restore_value) return launch;  // Triton's hooks do nothing then
  // Autotuner._bench's kernel_call: pre_hook (zero, then clone), run, post_hook (copy back).
  return [launch = std::move(launch), reset = reset_to_zero, restore = std::move(restore_value), stream]() {
    zero_all_async(stream, reset);
    if (restore) restore->save(stream);
    try {
      launch();
    } catch (...) {
      if (restore) {
        try {
          restore->restore(stream);
        } catch (...) {  // the launch's error is the one to report
        }
      }
      throw;
    }
    if (restore) restore->restore(stream);
  };
}

}  // namespace triton_jit::detail

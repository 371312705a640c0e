// The scratch allocator a launch takes Triton's global and profile scratch from: the default
// (stream-ordered driver memory) or the one set_scratch_allocator installed.
#include "launch/scratch_allocator.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "cuda/driver_api.h"
#include "triton_jit/settings.h"

namespace triton_jit {
namespace {

// Stream-ordered device memory: capturable in CUDA graphs and free of host synchronisation.
class DefaultScratchAllocator final : public ScratchAllocator {
 public:
  void* allocate(size_t bytes, size_t alignment, CUstream_st* stream) override {
    CUdeviceptr ptr = 0;
    // cuMemAllocAsync returns memory aligned to at least 256 bytes, more than Triton asks for.
    (void)alignment;
    CUresult r = cuda::driver().MemAllocAsync(&ptr, bytes, stream);
    if (r != CUDA_SUCCESS) cuda::throw_cuda_error(r, "cuMemAllocAsync", "allocating kernel scratch memory");
    return reinterpret_cast<void*>(ptr);
  }
  void deallocate(void* ptr, size_t, CUstream_st* stream) override {
    CUresult r = cuda::driver().MemFreeAsync(reinterpret_cast<CUdeviceptr>(ptr), stream);
    if (r != CUDA_SUCCESS) cuda::throw_cuda_error(r, "cuMemFreeAsync", "freeing kernel scratch memory");
  }
};

DefaultScratchAllocator g_default_allocator;
std::shared_ptr<ScratchAllocator> g_user_allocator;  // keeps the user's allocator alive
std::atomic<ScratchAllocator*> g_allocator{&g_default_allocator};

std::mutex g_allocator_mutex;

}  // namespace

ScratchAllocator::~ScratchAllocator() = default;

void set_scratch_allocator(std::shared_ptr<ScratchAllocator> allocator) {
  std::lock_guard<std::mutex> lock(g_allocator_mutex);
  // The previous user allocator stays alive: a launch on another thread may still hold it.
  static std::vector<std::shared_ptr<ScratchAllocator>> retired;
  if (g_user_allocator) retired.push_back(g_user_allocator);
  g_user_allocator = std::move(allocator);
  g_allocator.store(g_user_allocator ? g_user_allocator.get() : &g_default_allocator, std::memory_order_release);
}

namespace detail {

ScratchAllocator& scratch_allocator() noexcept { return *g_allocator.load(std::memory_order_acquire); }

}  // namespace detail
}  // namespace triton_jit

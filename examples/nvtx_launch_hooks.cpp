// Launch hooks that mark every kernel launch as an NVTX range, named after the kernel, in a
// "triton_jit" domain: Nsight Systems then shows which Triton kernel each launch was, on the
// launching thread's timeline (the range covers the launch call, not the kernel's run on the GPU,
// which Nsight shows itself).
//
// NVTX3 is header-only (the CUDA toolkit's nvtx3/): nothing is linked; without a profiler
// attached each call returns at once. With a GPU: launches add_kernel a few times inside the
// hooks. Without one: registers and removes the hooks, and says that nothing launched.
//
//   nsys profile -t cuda,nvtx build/examples/nvtx_launch_hooks
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <stdexcept>

#include "triton_jit/triton_jit.h"

#ifndef EXAMPLE_KERNELS_DIR
#define EXAMPLE_KERNELS_DIR "examples/kernels"
#endif

namespace {

struct NvtxRanges {
  nvtxDomainHandle_t domain = nvtxDomainCreateA("triton_jit");
  int launches = 0;
};

void enter(const triton_jit::LaunchHookInfo& launch, void* user_data) {
  auto* ranges = static_cast<NvtxRanges*>(user_data);
  nvtxEventAttributes_t attributes = {};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = launch.kernel->name.c_str();  // KernelInfo::name: NUL-terminated, no copy
  attributes.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  attributes.payload.ullValue = static_cast<uint64_t>(launch.grid.x * launch.grid.y * launch.grid.z);
  nvtxDomainRangePushEx(ranges->domain, &attributes);
  ++ranges->launches;
}

void exit_range(const triton_jit::LaunchHookInfo&, void* user_data) {
  nvtxDomainRangePop(static_cast<NvtxRanges*>(user_data)->domain);
}

bool gpu_present() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace

int main() {
  static NvtxRanges ranges;  // outlives every launch that may call the hooks
  const uint64_t id = triton_jit::add_launch_hooks({&enter, &exit_range, &ranges});
  int status = 0;
  try {
    if (gpu_present()) {
      auto& add = triton_jit::TritonJitFunction::get(EXAMPLE_KERNELS_DIR "/vector_add.py", "add_kernel");
      const int n = 1 << 20;
      float* buffers[3] = {};
      for (float*& b : buffers) {
        if (cudaMalloc(&b, n * sizeof(float)) != cudaSuccess) throw std::runtime_error("cudaMalloc failed");
      }
      for (int i = 0; i < 10; ++i) {
        add(triton_jit::LaunchConfig{{triton_jit::cdiv(n, 1024)}, 4}, buffers[0], buffers[1], buffers[2], n, 1024);
      }
      cudaDeviceSynchronize();
      for (float* b : buffers) cudaFree(b);
      std::printf("%d launches, each inside an NVTX range of the domain \"triton_jit\"\n", ranges.launches);
    } else {
      std::printf("No GPU is present: the hooks were registered, and nothing launched (%d ranges)\n",
                  ranges.launches);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    status = 1;
  }
  triton_jit::remove_launch_hooks(id);
  return status;
}

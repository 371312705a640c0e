// A program as a deployment ships it, built against the *installed* libtriton_jit
// (tests/deploy/run_deploy.cmake): it loads a pack and runs add_kernel(x, y, out, n, BLOCK) from it.
//   deploy_probe PACK FILE.py FUNCTION BLOCK
// With a GPU it launches on 1000 floats and checks out == x + y; without one it prepares the
// kernel for cuda:90 (found in the pack, or the error). It prints
//   result=ok kernels_from_pack=N compiles=N index_hits=N   or   error=TYPE: message / manifest_line=...
//   python_used=0|1 bridge_loaded=0|1 libpython_loaded=0|1   (read from /proc/self/maps)
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "triton_jit/triton_jit.h"

namespace {

bool mapped(const std::string& needle) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(needle) != std::string::npos) return true;
  }
  return false;
}

void print_state() {
  std::cout << "python_used=" << triton_jit::python_used() << " bridge_loaded=" << mapped("libtriton_jit_python")
            << " libpython_loaded=" << mapped("libpython") << std::endl;
}

// The driver's copies, for the GPU run only (the runtime itself needs no CUDA library linked).
using MemcpyHtoD = int (*)(uint64_t, const void*, size_t);
using MemcpyDtoH = int (*)(void*, uint64_t, size_t);

int run_on_gpu(triton_jit::TritonJitFunction& fn, int block) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  auto htod = reinterpret_cast<MemcpyHtoD>(cuda ? dlsym(cuda, "cuMemcpyHtoD_v2") : nullptr);
  auto dtoh = reinterpret_cast<MemcpyDtoH>(cuda ? dlsym(cuda, "cuMemcpyDtoH_v2") : nullptr);
  if (htod == nullptr || dtoh == nullptr) {
    std::cout << "error=probe: libcuda has no cuMemcpyHtoD_v2/cuMemcpyDtoH_v2" << std::endl;
    return 4;
  }
  const int n = 1000;
  std::vector<float> x(n), y(n), out(n, 0.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 0.5f * static_cast<float>(i);
  }
  triton_jit::DeviceMemory dx(n * sizeof(float)), dy(n * sizeof(float)), dout(n * sizeof(float));
  htod(dx.address(), x.data(), n * sizeof(float));
  htod(dy.address(), y.data(), n * sizeof(float));
  triton_jit::LaunchConfig config;
  config.grid = {static_cast<unsigned>((n + block - 1) / block), 1, 1};
  fn(config, static_cast<const float*>(dx.data()), static_cast<const float*>(dy.data()),
     static_cast<float*>(dout.data()), n, block);
  triton_jit::synchronize();
  dtoh(out.data(), dout.address(), n * sizeof(float));
  for (int i = 0; i < n; ++i) {
    if (std::fabs(out[i] - (x[i] + y[i])) > 1e-6f) {
      std::cout << "error=probe: out[" << i << "] = " << out[i] << ", expected " << x[i] + y[i] << std::endl;
      return 4;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: deploy_probe PACK FILE.py FUNCTION BLOCK\n";
    return 2;
  }
  const int block = std::stoi(argv[4]);
  int rc = 0;
  try {
    triton_jit::load_pack(argv[1]);
    auto& fn = triton_jit::TritonJitFunction::get(argv[2], argv[3]);
    bool gpu = true;
    try {
      const std::string device = triton_jit::device_name();
      std::cout << "device=" << device << std::endl;
    } catch (const triton_jit::NoDeviceError&) {
      gpu = false;
    }
    if (gpu) {
      rc = run_on_gpu(fn, block);
    } else {
      triton_jit::KernelRequest request(&fn, "*fp32:16,*fp32:16,*fp32:16,i32," + std::to_string(block));
      request.target = triton_jit::Target::parse("cuda:90");
      triton_jit::prepare({request});
    }
    if (rc == 0) {
      const triton_jit::Stats s = fn.stats();
      std::cout << "result=ok kernels_from_pack=" << s.pack_hits << " compiles=" << s.compiles
                << " index_hits=" << s.index_hits << std::endl;
    }
  } catch (const triton_jit::MissingKernelError& e) {
    std::cout << "error=MissingKernelError: " << e.what() << "\nmanifest_line=" << e.manifest_line() << std::endl;
    rc = 3;
  } catch (const triton_jit::Error& e) {
    std::cout << "error=" << typeid(e).name() << ": " << e.what() << std::endl;
    rc = 3;
  }
  print_state();
  return rc;
}

// Triton's launch hooks around a launch from C++, compared with what Triton's own launch of the
// same kernel (tests/kernels/launch_metadata.py, which has a launch_metadata function) gives the
// same hooks, in the runtime's interpreter; and the C++ hooks seeing the real launch.
#include <gtest/gtest.h>

#include <string>

#include "gpu_test_util.h"
#include "python_reference.h"
#include "triton_jit/launch_hooks.h"

using gpu_test::run_python;

namespace {

class GpuLaunchHooks : public gpu_test::GpuTest {};

TEST_F(GpuLaunchHooks, TritonsHooksGetWhatTritonsLaunchGives) {
  auto& scale = triton_jit::TritonJitFunction::get(std::string(TRITON_JIT_TEST_KERNELS_DIR) + "/launch_metadata.py",
                                                   "scale_kernel");
  const int n = 3000, block = 64, grid = (n + block - 1) / block;
  const std::string pointers = run_python(
      "import importlib.util, torch, triton\n"
      "from triton import knobs\n"
      "_spec = importlib.util.spec_from_file_location('launch_metadata_ref', '" TRITON_JIT_TEST_KERNELS_DIR
      "/launch_metadata.py')\n"
      "ref = importlib.util.module_from_spec(_spec)\n"
      "_spec.loader.exec_module(ref)\n"
      "x = torch.randn(3000, device='cuda')\n"
      "out = torch.empty_like(x)\n"
      "seen = []\n"
      "saved = (knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook)\n"
      "knobs.runtime.launch_enter_hook = lambda md: seen.append(('enter', md, md.get()))\n"
      "knobs.runtime.launch_exit_hook = lambda md: seen.append(('exit', md, None))\n"
      "ref.scale_kernel[(47,)](x, out, 3000, 2.5, BLOCK=64)\n"
      "torch.cuda.synchronize()\n"
      "tritons = list(seen)\n"
      "seen.clear()\n"
      "out.zero_()\n"
      "result = f'{x.data_ptr()} {out.data_ptr()}'\n");
  const auto addresses = gpu_test::addresses(pointers);
  ASSERT_EQ(addresses.size(), 2u);
  triton_jit::LaunchConfig c;
  c.grid = triton_jit::Grid(grid);
  scale(c, reinterpret_cast<float*>(addresses[0]), reinterpret_cast<float*>(addresses[1]), n, 2.5f, block);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string verdict = run_python(
      "knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook = saved\n"
      "ours = list(seen)\n"
      "assert [w for w, _, _ in tritons] == ['enter', 'exit'], tritons\n"
      "assert [w for w, _, _ in ours] == ['enter', 'exit'], ours\n"
      "assert type(ours[0][1]) is type(tritons[0][1])\n"
      "assert ours[1][1] is ours[0][1]\n"
      "t, o = dict(tritons[0][2]), dict(ours[0][2])\n"
      "assert isinstance(t.pop('function'), int) and isinstance(o.pop('function'), int)\n"
      "assert t.pop('grid_seen') == (47,) and o.pop('grid_seen') == (47, 1, 1), (t, o)\n"
      "assert t == o, (t, o)\n"
      "torch.testing.assert_close(out, x * 2.5)\n"
      "result = 'same'\n");
  EXPECT_EQ(verdict, "same");
}

void count(const triton_jit::LaunchHookInfo& launch, void* user_data) {
  if (launch.cu_function != nullptr && launch.kernel_name == "add_kernel") ++*static_cast<int*>(user_data);
}

TEST_F(GpuLaunchHooks, CppHooksAroundRealLaunches) {
  auto& add = triton_jit::TritonJitFunction::get(gpu_test::add_kernel_path(), "add_kernel");
  float* buffers[3] = {};
  const int n = 4096;
  for (float*& b : buffers) CUDA_CHECK(cudaMalloc(&b, n * sizeof(float)));
  int calls = 0;
  const uint64_t id = triton_jit::add_launch_hooks({&count, &count, &calls});
  triton_jit::LaunchConfig c;
  c.grid = triton_jit::Grid(n / 1024);
  for (int i = 0; i < 3; ++i) add(c, buffers[0], buffers[1], buffers[2], n, 1024);
  EXPECT_TRUE(triton_jit::remove_launch_hooks(id));
  add(c, buffers[0], buffers[1], buffers[2], n, 1024);
  CUDA_CHECK(cudaDeviceSynchronize());
  for (float* b : buffers) CUDA_CHECK(cudaFree(b));
  EXPECT_EQ(calls, 6) << "enter and exit of the three launches made while registered";
}

}  // namespace

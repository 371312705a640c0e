// Gluon kernels (@gluon.jit, tests/kernels/gluon_kernels.py) launched through the runtime against
// Triton's own Python launch of the same kernels (run in the runtime's interpreter, where torch
// and triton are): outputs must be bit-identical. Inputs are random, outputs poisoned with NaN,
// sizes not multiples of the blocks.
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "python_reference.h"

using gpu_test::addresses;
using gpu_test::run_python;
using triton_jit::DType;
using triton_jit::TritonJitFunction;
using triton_jit::TypedPtr;

namespace {

class GpuGluon : public gpu_test::GpuTest {
 protected:
  void SetUp() override {
    gpu_test::GpuTest::SetUp();
    if (IsSkipped()) return;
    int major = 0, minor = 0;
    std::sscanf(triton_jit::triton_version().c_str(), "%d.%d", &major, &minor);
    if (major == 3 && minor < 5) GTEST_SKIP() << "Triton " << triton_jit::triton_version() << " refuses Gluon kernels";
    run_python("import importlib.util, torch, triton\n"
               "_spec = importlib.util.spec_from_file_location('gluon_kernels_ref', '" TRITON_JIT_TEST_KERNELS_DIR
               "/gluon_kernels.py')\n"
               "gk = importlib.util.module_from_spec(_spec)\n"
               "_spec.loader.exec_module(gk)\n"
               "keep = {}\n");
  }
  static std::string path() { return TRITON_JIT_TEST_KERNELS_DIR "/gluon_kernels.py"; }
};

TEST_F(GpuGluon, ElementwiseKernelIsBitIdenticalToTritonsLaunch) {
  auto& scale_add = TritonJitFunction::get(path(), "scale_add_kernel");
  const int n = 100003;
  const std::vector<uintptr_t> p = addresses(
      run_python("n = 100003\n"
                 "x = torch.randn(n, device='cuda'); y = torch.randn(n, device='cuda')\n"
                 "out_ref = torch.full_like(x, float('nan')); out_ours = torch.full_like(x, float('nan'))\n"
                 "gk.scale_add_kernel[(triton.cdiv(n, 1024),)](x, y, out_ref, n, 0.75, 1024, 8, 4, num_warps=4)\n"
                 "torch.cuda.synchronize()\n"
                 "keep.update(x=x, y=y, out_ref=out_ref, out_ours=out_ours)\n"
                 "result = f'{x.data_ptr()} {y.data_ptr()} {out_ours.data_ptr()}'\n"));
  ASSERT_EQ(p.size(), 3u);
  scale_add(triton_jit::LaunchConfig{{(n + 1023) / 1024}, 4}, reinterpret_cast<const float*>(p[0]),
            reinterpret_cast<const float*>(p[1]), reinterpret_cast<float*>(p[2]), n, 0.75f, 1024, 8, 4);
  CUDA_CHECK(cudaDeviceSynchronize());
  // Bits equal to Triton's own launch; and near torch's x * 0.75 + y, which rounds twice where the
  // kernel may fuse a multiply-add (atol: results near zero).
  EXPECT_EQ(run_python("result = f\"{torch.equal(keep['out_ref'], keep['out_ours'])} "
                       "{torch.allclose(keep['out_ours'], keep['x'] * 0.75 + keep['y'], rtol=1e-6, atol=1e-6)}\"\n"),
            "True True");
}

TEST_F(GpuGluon, RowReductionIsBitIdenticalToTritonsLaunch) {
  auto& row_sum = TritonJitFunction::get(path(), "row_sum_kernel");
  const int rows = 333, cols = 1000;
  const std::vector<uintptr_t> p = addresses(run_python(
      "rows, cols = 333, 1000\n"
      "x = torch.randn(rows, cols, device='cuda', dtype=torch.float16)\n"
      "s_ref = torch.full((rows,), float('nan'), device='cuda'); s_ours = torch.full_like(s_ref, float('nan'))\n"
      "gk.row_sum_kernel[(triton.cdiv(rows, 16),)](x, s_ref, rows, cols, x.stride(0), 16, 64, 4, num_warps=4)\n"
      "torch.cuda.synchronize()\n"
      "keep.update(x=x, s_ref=s_ref, s_ours=s_ours)\n"
      "result = f'{x.data_ptr()} {s_ours.data_ptr()}'\n"));
  ASSERT_EQ(p.size(), 2u);
  row_sum(triton_jit::LaunchConfig{{(rows + 15) / 16}, 4}, TypedPtr{reinterpret_cast<void*>(p[0]), DType::fp16},
          reinterpret_cast<float*>(p[1]), rows, cols, cols, 16, 64, 4);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(run_python("result = f\"{torch.equal(keep['s_ref'], keep['s_ours'])} "
                       "{torch.allclose(keep['s_ours'], keep['x'].float().sum(1), rtol=1e-3, atol=1e-2)}\"\n"),
            "True True");
}

}  // namespace

// Wrappers the runtime does not emulate (tests/kernels/run_overrides.py) on the GPU: an
// Autotuner subclass whose run always picks the last config, a Heuristics subclass and a wrapper of
// no Triton class run their own run through Python, so the runtime launches what the wrapper
// chooses; each against Triton's own launch of the same wrapped kernel in the runtime's
// interpreter (bit-identical outputs, the same BLOCK written by the kernel).
#include "kernel_file_test.h"

namespace {

class GpuPythonWrappers : public gpu_test::KernelFileTest {
 protected:
  GpuPythonWrappers() : KernelFileTest("run_overrides.py", "ro") {}
  // x (n floats) and out (64 ints) twice: Triton's launch of `call` writes the reference pair.
  std::vector<uintptr_t> buffers(int n, const std::string& call) {
    return addresses(run_python("n = " + std::to_string(n) +
                                "\n"
                                "x = torch.randn(n, device='cuda'); x_ref = x.clone()\n"
                                "out = torch.zeros(64, dtype=torch.int32, device='cuda'); out_ref = out.clone()\n"
                                "grid = lambda meta: (triton.cdiv(n, meta['BLOCK']),)\n" +
                                call +
                                "\n"
                                "torch.cuda.synchronize()\n"
                                "keep.update(x=x, x_ref=x_ref, out=out, out_ref=out_ref)\n"
                                "result = f'{x.data_ptr()} {out.data_ptr()}'\n"));
  }
  static bool same_as_triton() {
    return run_python("result = torch.equal(keep['x'], keep['x_ref']) and torch.equal(keep['out'], keep['out_ref'])\n") ==
           "True";
  }
};

TypedPtr f32(uintptr_t p, uint64_t bytes) { return TypedPtr{reinterpret_cast<void*>(p), DType::fp32, bytes}; }
TypedPtr i32(uintptr_t p) { return TypedPtr{reinterpret_cast<void*>(p), DType::i32, 64 * 4}; }

}  // namespace

TEST_F(GpuPythonWrappers, AutotunerSubclassChoiceIsTheSubclasses) {
  auto& k = fn("last_config_kernel");
  const int n = 1000;
  const auto p = buffers(n, "ro.last_config_kernel[grid](x_ref, out_ref, n)");
  ASSERT_EQ(p.size(), 2u);
  LaunchConfig config;
  config.grid_fn = [n](const GridMeta& meta) { return Grid(cdiv(n, meta["BLOCK"])); };
  k(config, f32(p[0], n * 4), i32(p[1]), n);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(same_as_triton());
  EXPECT_EQ(run_python("result = str(keep['out'][:8].tolist())\n"), "[128, 128, 128, 128, 128, 128, 128, 128]")
      << "the last config (BLOCK 128), never timed";
  EXPECT_EQ(k.stats().python_wrapper_calls, 1u);
  EXPECT_EQ(k.stats().tunings, 0u);
}

TEST_F(GpuPythonWrappers, HeuristicsSubclassAndUnknownWrapperAreTheirOwn) {
  const int n = 999;
  auto& odd = fn("odd_heuristics_kernel");
  auto p = buffers(n, "ro.odd_heuristics_kernel[(triton.cdiv(n, 64),)](x_ref, out_ref, n)");
  odd(LaunchConfig{Grid(triton_jit::cdiv(n, 64))}, f32(p[0], n * 4), i32(p[1]), n);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(same_as_triton());
  auto& block = fn("block_wrapper_kernel");
  p = buffers(n, "ro.block_wrapper_kernel[(4,)](x_ref, out_ref, n)");
  block(LaunchConfig{Grid(4)}, f32(p[0], n * 4), i32(p[1]), n);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(same_as_triton());
  EXPECT_EQ(run_python("result = str(keep['out'][:4].tolist())\n"), "[256, 256, 256, 256]");
  EXPECT_EQ(odd.stats().python_wrapper_calls + block.stats().python_wrapper_calls, 2u);
}

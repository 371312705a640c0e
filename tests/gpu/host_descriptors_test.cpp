// Host tensor descriptors on the GPU, against Triton's own Python launch of the same kernels
// (run in the runtime's interpreter, where torch and triton are): the outputs must be
// bit-identical. Inputs are random, outputs are poisoned with NaN before each launch, shapes are
// not multiples of the blocks.
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "python_reference.h"
#include "triton_jit/tensor_descriptor.h"

using gpu_test::addresses;
using gpu_test::run_python;
using triton_jit::DType;
using triton_jit::TensorDescriptor;
using triton_jit::TritonJitFunction;
using triton_jit::TypedPtr;

namespace {

const char* torch_dtype(DType d) { return d == DType::bf16 ? "torch.bfloat16" : "torch.float16"; }

class GpuHostDescriptors : public gpu_test::GpuTest {
 protected:
  void SetUp() override {
    gpu_test::GpuTest::SetUp();
    if (IsSkipped()) return;
    const int arch = gpu_test::device_arch();
    if (arch < 90) GTEST_SKIP() << "TMA tensor descriptors need sm_90 or newer; the device is sm_" << arch;
    run_python("import importlib.util, torch, triton\n"
               "from triton.tools.tensor_descriptor import TensorDescriptor\n"
               "_spec = importlib.util.spec_from_file_location('host_descriptors_ref', '" +
               gpu_test::kernel_path("host_descriptors.py") +
               "')\n"
               "hd = importlib.util.module_from_spec(_spec)\n"
               "_spec.loader.exec_module(hd)\n"
               "keep = {}\n");
  }
};

// A persistent matmul loading A and B and storing C through host descriptors, fp16 and bf16.
TEST_F(GpuHostDescriptors, PersistentMatmulIsBitIdenticalToTritonsLaunch) {
  auto& mm = TritonJitFunction::get(gpu_test::kernel_path("host_descriptors.py"), "matmul_persistent_desc_kernel");
  const int num_sms = gpu_test::device_attribute(cudaDevAttrMultiProcessorCount);
  constexpr int BM = 128, BN = 128, BK = 64, GROUP = 8;
  struct Shape {
    int m, n, k;
  };
  for (const DType dtype : {DType::fp16, DType::bf16}) {
    for (const Shape s : {Shape{1000, 776, 520}, Shape{384, 512, 256}, Shape{77, 1032, 200}}) {
      SCOPED_TRACE(std::string(triton_jit::dtype_name(dtype)) + " " + std::to_string(s.m) + "x" + std::to_string(s.n) +
                   "x" + std::to_string(s.k));
      const std::string dims = std::to_string(s.m) + ", " + std::to_string(s.n) + ", " + std::to_string(s.k);
      const std::vector<uintptr_t> p = addresses(
          run_python("M, N, K = " + dims +
                     "\n"
                     "dt = " +
                     torch_dtype(dtype) +
                     "\n"
                     "a = torch.randn(M, K, device='cuda', dtype=dt)\n"
                     "b = torch.randn(N, K, device='cuda', dtype=dt)\n"
                     "c_ref = torch.full((M, N), float('nan'), device='cuda', dtype=dt)\n"
                     "c_ours = torch.full((M, N), float('nan'), device='cuda', dtype=dt)\n"
                     "hd.matmul_persistent_desc_kernel[(" +
                     std::to_string(num_sms) +
                     ",)](\n"
                     "    TensorDescriptor.from_tensor(a, [128, 64]), TensorDescriptor.from_tensor(b, [128, 64]),\n"
                     "    TensorDescriptor.from_tensor(c_ref, [128, 128]), M, N, K, 128, 128, 64, 8, " +
                     std::to_string(num_sms) +
                     ", num_warps=8, num_stages=3)\n"
                     "torch.cuda.synchronize()\n"
                     "keep.update(a=a, b=b, c_ref=c_ref, c_ours=c_ours)\n"
                     "result = f'{a.data_ptr()} {b.data_ptr()} {c_ours.data_ptr()}'\n"));
      ASSERT_EQ(p.size(), 3u);
      const auto a = TensorDescriptor::make(TypedPtr{reinterpret_cast<void*>(p[0]), dtype}, {s.m, s.k}, {s.k, 1},
                                            {BM, BK});
      const auto b = TensorDescriptor::make(TypedPtr{reinterpret_cast<void*>(p[1]), dtype}, {s.n, s.k}, {s.k, 1},
                                            {BN, BK});
      const auto c = TensorDescriptor::make(TypedPtr{reinterpret_cast<void*>(p[2]), dtype}, {s.m, s.n}, {s.n, 1},
                                            {BM, BN});
      triton_jit::LaunchConfig config{{num_sms}, 8, 3};
      mm(config, a, b, c, s.m, s.n, s.k, BM, BN, BK, GROUP, num_sms);
      CUDA_CHECK(cudaDeviceSynchronize());
      EXPECT_EQ(run_python("ref = keep['a'].float() @ keep['b'].float().T\n"
                           "err = ((keep['c_ours'].float() - ref).norm() / ref.norm()).item()\n"
                           "result = f\"{torch.equal(keep['c_ref'], keep['c_ours'])} {err < 2e-2}\"\n"),
                "True True");
    }
  }
}

// Descriptors on load and store, with NaN padding on the input, and one inside a captured graph.
TEST_F(GpuHostDescriptors, CopyThroughDescriptorsInAndOutOfAGraph) {
  auto& copy = TritonJitFunction::get(TRITON_JIT_TEST_KERNELS_DIR "/descriptors.py", "copy2d_kernel");
  const int M = 300, N = 200;  // not multiples of 64
  const std::vector<uintptr_t> p = addresses(
      run_python("_spec = importlib.util.spec_from_file_location('descriptors_ref', '" TRITON_JIT_TEST_KERNELS_DIR
                 "/descriptors.py')\n"
                 "kd = importlib.util.module_from_spec(_spec)\n"
                 "_spec.loader.exec_module(kd)\n"
                 "x = torch.randn(300, 200, device='cuda', dtype=torch.float16)\n"
                 "y_ref = torch.full_like(x, float('nan'))\n"
                 "y_ours = torch.full_like(x, float('nan'))\n"
                 "y_graph = torch.full_like(x, float('nan'))\n"
                 "kd.copy2d_kernel[(5, 4)](TensorDescriptor.from_tensor(x, [64, 64], padding='nan'),\n"
                 "                             TensorDescriptor.from_tensor(y_ref, [64, 64]), 1.5, 64, 64)\n"
                 "torch.cuda.synchronize()\n"
                 "keep.update(x=x, y_ref=y_ref, y_ours=y_ours, y_graph=y_graph)\n"
                 "result = f'{x.data_ptr()} {y_ours.data_ptr()} {y_graph.data_ptr()}'\n"));
  ASSERT_EQ(p.size(), 3u);
  const auto in = TensorDescriptor::make(TypedPtr{reinterpret_cast<void*>(p[0]), DType::fp16}, {M, N}, {N, 1}, {64, 64},
                                         triton_jit::Padding::Nan);
  const auto out = TensorDescriptor::make(TypedPtr{reinterpret_cast<void*>(p[1]), DType::fp16}, {M, N}, {N, 1},
                                          {64, 64});
  const auto out_graph = TensorDescriptor::make(TypedPtr{reinterpret_cast<void*>(p[2]), DType::fp16}, {M, N}, {N, 1},
                                                {64, 64});
  copy(triton_jit::LaunchConfig{{5, 4}}, in, out, 1.5f, 64, 64);

  // The kernel is compiled and loaded now; a capture only records the launch (and its map).
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  triton_jit::LaunchConfig captured{{5, 4}};
  captured.stream = stream;
  copy(captured, in, out_graph, 1.5f, 64, 64);
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaGraphLaunch(exec, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(run_python("result = f\"{torch.equal(keep['y_ref'], keep['y_ours'])} "
                       "{torch.equal(keep['y_ref'], keep['y_graph'])} "
                       "{torch.equal(keep['y_ref'], (keep['x'] * 1.5).half())}\"\n"),
            "True True True");
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(stream));
}

// A tensor the TMA engine cannot address (a dimension over 2^32 elements) comes back as the
// driver's error from cuTensorMapEncodeTiled, with the parameter named; nothing is launched.
TEST_F(GpuHostDescriptors, TensorTheHardwareRejectsIsAnArgumentError) {
  auto& copy = TritonJitFunction::get(TRITON_JIT_TEST_KERNELS_DIR "/descriptors.py", "copy2d_kernel");
  gpu_test::DeviceBuffer<uint16_t> y(64 * 64);
  const auto huge = TensorDescriptor::make(TypedPtr{y.get(), DType::fp16}, {int64_t{1} << 33, 64}, {64, 1}, {64, 64});
  const auto out = TensorDescriptor::make(TypedPtr{y.get(), DType::fp16}, {64, 64}, {64, 1}, {64, 64});
  try {
    copy(triton_jit::LaunchConfig{{1, 1}}, huge, out, 1.0f, 64, 64);
    CUDA_CHECK(cudaDeviceSynchronize());
    ADD_FAILURE() << "a 2^33-row tensor map was accepted";
  } catch (const triton_jit::ArgumentError& e) {
    std::printf("rejected as expected: %s\n", e.what());
    EXPECT_EQ(e.parameter(), "in_desc");
    EXPECT_NE(std::string(e.what()).find("cuTensorMapEncodeTiled"), std::string::npos) << e.what();
  }
}

}  // namespace

// FlagGems' host-TMA mm as FlagGems calls it (tests/kernels/host_tma_mm.py: descriptors with a
// dummy [1, 1] block, each autotune config's pre_hook setting their block_shape from its tile
// sizes): per config, and tuned over the three, the runtime's launch from C++ gives the bits of
// Triton's own launch of the same config (the one the runtime chose, for the tuned one).
TEST_F(GpuHostDescriptors, PreHookSettingBlockShapeIsBitIdenticalToTritonsLaunch) {
  constexpr int M = 384, N = 256, K = 320;
  const std::string kernels = TRITON_JIT_TEST_KERNELS_DIR "/host_tma_mm.py";
  run_python("_spec = importlib.util.spec_from_file_location('host_tma_mm_ref', '" + kernels +
             "')\n"
             "hm = importlib.util.module_from_spec(_spec)\n"
             "_spec.loader.exec_module(hm)\n"
             "def hm_call(name, c):\n"
             "    a, b = keep['a'], keep['b']\n"
             "    d = [TensorDescriptor(t, t.shape, t.stride(), [1, 1]) for t in (a, b, c)]\n"
             "    getattr(hm, name)[hm.grid(a.shape[0], b.shape[1])](*d, a.shape[0], b.shape[1], a.shape[1],\n"
             "        GROUP_M=8, A_ROW_MAJOR=True, B_ROW_MAJOR=True)\n"
             "    torch.cuda.synchronize()\n");
  const std::vector<uintptr_t> p = addresses(
      run_python("g = torch.Generator(device='cuda').manual_seed(0)\n"
                 "a = torch.randn(" +
                 std::to_string(M) + ", " + std::to_string(K) +
                 ", device='cuda', dtype=torch.float16, generator=g)\n"
                 "b = torch.randn(" +
                 std::to_string(K) + ", " + std::to_string(N) +
                 ", device='cuda', dtype=torch.float16, generator=g)\n"
                 "c_ours = torch.full((a.shape[0], b.shape[1]), float('nan'), device='cuda', dtype=torch.float16)\n"
                 "keep.update(a=a, b=b, c_ours=c_ours)\n"
                 "result = f'{a.data_ptr()} {b.data_ptr()} {c_ours.data_ptr()}'\n"));
  ASSERT_EQ(p.size(), 3u);
  const auto desc = [](uintptr_t address, int64_t rows, int64_t cols) {
    return TensorDescriptor::make(TypedPtr{reinterpret_cast<void*>(address), DType::fp16}, {rows, cols}, {cols, 1},
                                  {1, 1});
  };
  const TensorDescriptor a = desc(p[0], M, K), b = desc(p[1], K, N), c = desc(p[2], M, N);
  triton_jit::LaunchConfig config;
  config.grid_fn = [](const triton_jit::GridMeta& meta) {
    return triton_jit::Grid(triton_jit::cdiv(M, meta["BLOCK_M"]) * triton_jit::cdiv(N, meta["BLOCK_N"]));
  };
  const auto same_as_tritons = [&](const std::string& name) {
    return run_python("c_ref = torch.full_like(keep['c_ours'], float('nan'))\n"
                      "hm_call('" +
                      name +
                      "', c_ref)\n"
                      "ref = keep['a'].float() @ keep['b'].float()\n"
                      "err = ((keep['c_ours'].float() - ref).norm() / ref.norm()).item()\n"
                      "result = f\"{torch.equal(c_ref, keep['c_ours'])} {err < 2e-2}\"\n");
  };
  for (int i = 0; i < 3; ++i) {
    const std::string name = "host_tma_mm_c" + std::to_string(i);
    SCOPED_TRACE(name);
    run_python("keep['c_ours'].fill_(float('nan'))\n");
    TritonJitFunction::get(kernels, name)(config, a, b, c, M, N, K, 8, true, true);
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(same_as_tritons(name), "True True");
  }
  auto& tuned = TritonJitFunction::get(kernels, "host_tma_mm");
  run_python("keep['c_ours'].fill_(float('nan'))\n");
  tuned(config, a, b, c, M, N, K, 8, true, true);
  tuned(config, a, b, c, M, N, K, 8, true, true);  // the cached launch runs the chosen hook again
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto tuning = tuned.last_tuning();
  ASSERT_EQ(tuning.size(), 1u);
  for (const auto& row : tuning[0].rows) EXPECT_TRUE(row.failure.empty()) << row.config << ": " << row.failure;
  EXPECT_EQ(same_as_tritons("host_tma_mm_c" + std::to_string(tuning[0].chosen)), "True True");
}

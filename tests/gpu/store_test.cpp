// No Python on the GPU: a warm kernel index and a kernel pack each serve a fresh process whose
// Python cannot import triton (store_gpu_probe); prepare() before CUDA graph capture.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../support/child_process.h"
#include "gpu_test_util.h"

namespace fs = std::filesystem;

namespace {

using gpu_test::DeviceBuffer;

using Report = test_support::ChildRun;

class StoreGpuTest : public gpu_test::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    root_ = fs::temp_directory_path() / ("triton_jit_gpu_store_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    for (const char* f : {"scaled_add.py", "store_helpers.py"}) {
      fs::copy_file(fs::path(TRITON_JIT_TEST_KERNELS_DIR) / "store" / f, root_ / "src" / f);
    }
    fs::copy_file(fs::path(TRITON_JIT_TEST_KERNELS_DIR) / "decorated.py", root_ / "src" / "decorated.py");
    test_support::write_unimportable_triton(root_ / "no_triton");
  }
  void TearDown() override {
    std::error_code ec;
    if (!root_.empty()) fs::remove_all(root_, ec);
  }
  std::string kernel_file() const { return (root_ / "src" / "scaled_add.py").string(); }

  // `tuned`: the probe launches src/decorated.py:scale_kernel (autotuned) instead of scaled_add.
  Report run(const std::string& env, const std::string& cache, bool tuned = false) const {
    const std::string file = tuned ? (root_ / "src" / "decorated.py").string() : kernel_file();
    const Report r = test_support::run_child("env TRITON_JIT_TEST_KEEP_INDEX_DIR=1 TRITON_JIT_INDEX_DIR='" + cache +
                                             "' " + env + " '" STORE_GPU_PROBE_PATH "' '" + file + "'" +
                                             (tuned ? " tuned" : ""));
    std::printf("probe (%s):\n%s", env.c_str(), r.output.c_str());
    return r;
  }
  std::string no_python() const { return "PYTHONPATH='" + (root_ / "no_triton").string() + "'"; }

  fs::path root_;
};

TEST_F(StoreGpuTest, WarmIndexLaunchesWithoutPython) {
  const std::string cache = (root_ / "cache").string();
  const Report cold = run("", cache);
  ASSERT_EQ(cold.status, 0) << cold.output;
  EXPECT_EQ(cold["correct"], "1");
  EXPECT_EQ(cold["compiles"], "1");
  const Report warm = run(no_python(), cache);
  ASSERT_EQ(warm.status, 0) << warm.output;
  EXPECT_EQ(warm["correct"], "1");
  EXPECT_EQ(warm["compiles"], "0");
  EXPECT_EQ(warm["index_hits"], "1");
  EXPECT_EQ(warm["python_used"], "0");
}

// An autotuned kernel: the first process tunes it (timing both configs) and stores the choice
// and the kernels; a fresh process whose Python cannot import triton launches it from the warm
// index with no tuning, no compile and no Python.
TEST_F(StoreGpuTest, WarmIndexLaunchesATunedKernelWithoutPython) {
  const std::string cache = (root_ / "cache").string();
  const Report cold = run("", cache, /*tuned=*/true);
  ASSERT_EQ(cold.status, 0) << cold.output;
  EXPECT_EQ(cold["correct"], "1");
  EXPECT_EQ(cold["tunings"], "1");
  const Report warm = run(no_python(), cache, /*tuned=*/true);
  ASSERT_EQ(warm.status, 0) << warm.output;
  EXPECT_EQ(warm["correct"], "1");
  EXPECT_EQ(warm["tunings"], "0");
  EXPECT_EQ(warm["compiles"], "0");
  EXPECT_EQ(warm["python_used"], "0");
}

// A pack whose manifest names the tuning choice (no tuning anywhere): a process with the pack
// alone (no sources, no triton, an empty index) launches the autotuned kernel with that config.
TEST_F(StoreGpuTest, PackOnlyProcessLaunchesATunedKernelFromTheManifestsChoice) {
  std::ofstream(root_ / "manifest.txt")
      << "src/decorated.py:scale_kernel autotune key=(100000, False, 'torch.float32', 'torch.float32') config=1\n"
      << "src/decorated.py:scale_kernel *fp32:16,*fp32:16,i32:16,fp32,False,1024 num_warps=8 target=cuda:"
      << gpu_test::device_arch() << "\n";
  triton_jit::PrepareOptions quiet;
  quiet.progress = triton_jit::Progress::Never;
  const std::string pack = (root_ / "tuned.tjp").string();
  triton_jit::build_pack((root_ / "manifest.txt").string(), pack, quiet);
  fs::remove_all(root_ / "src");
  const Report r = run(no_python() + " TRITON_JIT_PACKS='" + pack + "'", (root_ / "empty_cache").string(),
                       /*tuned=*/true);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r["correct"], "1");
  EXPECT_EQ(r["tunings"], "0");
  EXPECT_EQ(r["pack_hits"], "1");
  EXPECT_EQ(r["compiles"], "0");
  EXPECT_EQ(r["python_used"], "0");
}

TEST_F(StoreGpuTest, PackOnlyProcessLaunchesWithoutPythonOrSources) {
  std::ofstream(root_ / "manifest.txt") << "src/scaled_add.py:scaled_add *fp32:16,*fp32:16,*fp32:16,i32:16,1024"
                                        << " target=cuda:" << gpu_test::device_arch() << "\n";
  triton_jit::PrepareOptions quiet;
  quiet.progress = triton_jit::Progress::Never;
  const std::string pack = (root_ / "kernels.tjp").string();
  triton_jit::build_pack((root_ / "manifest.txt").string(), pack, quiet);
  // The deployment has the pack only: no kernel sources, no triton, an empty kernel index.
  fs::remove_all(root_ / "src");
  const Report r = run(no_python() + " TRITON_JIT_PACKS='" + pack + "'", (root_ / "empty_cache").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r["correct"], "1");
  EXPECT_EQ(r["pack_hits"], "1");
  EXPECT_EQ(r["compiles"], "0");
  EXPECT_EQ(r["python_used"], "0");
}

TEST_F(StoreGpuTest, PreparedKernelsLaunchInsideGraphCaptureUnpreparedOnesFail) {
  auto& fn = triton_jit::TritonJitFunction::get(kernel_file(), "scaled_add");
  constexpr int n = 4096;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i), y[i] = 1.0f;
  DeviceBuffer<float> dx(n), dy(n), o1(n), o2(n);
  dx.upload(x);
  dy.upload(y);
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  triton_jit::LaunchConfig c64{triton_jit::Grid(n / 64)}, c256{triton_jit::Grid(n / 256)};
  c64.stream = c256.stream = reinterpret_cast<CUstream_st*>(stream);
  triton_jit::PrepareOptions quiet;
  quiet.progress = triton_jit::Progress::Never;
  const auto report = triton_jit::prepare({triton_jit::request(fn, c64, dx.get(), dy.get(), o1.get(), n, 64),
                                           triton_jit::request(fn, c256, dx.get(), dy.get(), o2.get(), n, 256)},
                                          quiet);
  EXPECT_EQ(report.requested, 2u);
  const triton_jit::Stats before = fn.stats();

  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  fn(c64, dx.get(), dy.get(), o1.get(), n, 64);
  fn(c256, dx.get(), dy.get(), o2.get(), n, 256);
  std::string error;
  try {
    fn(c64, dx.get(), dy.get(), o1.get(), n, 128);  // never prepared
  } catch (const triton_jit::MissingKernelError& e) {
    error = e.what();
  }
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  EXPECT_NE(error.find("prepare"), std::string::npos) << error;
  const triton_jit::Stats after = fn.stats();
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_EQ(after.loads, before.loads) << "prepare loaded the modules ahead";

  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaGraphLaunch(exec, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<float> expect(n);
  for (int i = 0; i < n; ++i) expect[i] = x[i] + 2.0f * y[i];
  EXPECT_EQ(o1.download(), expect);
  EXPECT_EQ(o2.download(), expect);
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace

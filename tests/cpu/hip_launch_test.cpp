// Launches of HIP kernels, proven without AMD hardware: real kernels of tests/kernels compile for
// hip:gfx942 (wave64) and hip:gfx1100 (wave32) through the runtime and launch through its HIP
// driver table (cuda/hip_driver.cpp) into the fake HIP runtime (tests/support/fake_hip.h), a
// shared library loaded with dlopen as libamdhip64.so is. The fake builds each launch's kernarg
// segment as the HIP runtime does, from the code object's own AMDGPU metadata note. Each launch is
// checked against two independent references:
//  (a) the hsaco: its metadata's explicit arguments (offset, size, value kind; read by
//      tests/support/amdgpu_metadata.h, a bounded ELF-note and msgpack reader) hold the call's
//      values, then NULL global scratch and NULL profile scratch;
//  (b) Triton's own AMD launcher for the same call: the parameter array, block size and global
//      scratch its make_launcher generates (tests/support/triton_reference.py, hip_launcher_layout,
//      from the installed Triton's backends/amd/driver.py and the signature its binder builds).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "../support/python_reference.h"
#include "amdgpu_metadata.h"
#include "cuda/driver_api.h"
#include "cuda/hip_driver.h"
#include "decorators/benchmark.h"
#include "fake_driver.h"
#include "fake_hip.h"
#include "support/launch_metadata.h"
#include "test_util.h"

namespace py = pybind11;
using triton_jit::ArgValue;
using triton_jit::DType;
using triton_jit::TritonJitFunction;

namespace {

#ifndef FAKE_HIP_LIBRARY
#error "FAKE_HIP_LIBRARY must name the fake HIP runtime (tests/support/fake_hip.cpp)"
#endif

using triton_jit::test::triton_reference;

const triton_jit::cuda::DriverApi& hip_table() {
  static const triton_jit::cuda::DriverApi* table = [] {
    std::string error;
    const auto* t = triton_jit::cuda::load_hip_driver(FAKE_HIP_LIBRARY, &error);
    if (t == nullptr) throw std::runtime_error(error);
    return t;
  }();
  return *table;
}

fake_hip::State& fake() {
  static fake_hip::State* state = [] {
    hip_table();  // loaded
    void* lib = dlopen(FAKE_HIP_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
    auto get = reinterpret_cast<fake_hip::State* (*)()>(dlsym(lib, "fake_hip_state"));
    return get();
  }();
  return *state;
}

struct ScopedTarget {
  explicit ScopedTarget(const std::string& text) { triton_jit::set_target(triton_jit::Target::parse(text)); }
  ~ScopedTarget() { triton_jit::set_target(std::nullopt); }
};

class HipLaunch : public testing::Test {
 protected:
  void SetUp() override {
    if (!triton_jit::test::triton_links_hsaco())
      GTEST_SKIP() << "Triton " << triton_jit::triton_version() << " needs ROCm's ld.lld to link";
    device("gfx942:sramecc+:xnack-", 64);
  }
  void TearDown() override {
    triton_jit::set_scratch_allocator(nullptr);
    triton_jit::cuda::set_driver_for_testing(nullptr);
  }
  // The fake's one device, of processor `gcn_arch_name` and warp size `warp_size`.
  static void device(const char* gcn_arch_name, int warp_size, int max_shared = 65536) {
    fake().reset();
    fake().gcn_arch_name = gcn_arch_name;
    fake().warp_size = warp_size;
    fake().max_shared_per_block = max_shared;
    triton_jit::cuda::set_driver_for_testing(&hip_table());  // forgets the devices read before
  }
};

// The runtime's own choice, without a test hook: where libcuda is missing (or finds no device),
// the first launch loads the HIP runtime TRITON_JIT_HIP_LIBRARY names. First in the file: the choice
// is made once per process (each case of this suite runs in its own under CTest).
TEST(HipRuntimeSelection, WithoutLibcudaTheHipRuntimeIsLoaded) {
  setenv("TRITON_JIT_HIP_LIBRARY", FAKE_HIP_LIBRARY, 1);
  if (!triton_jit::test::triton_links_hsaco())
    GTEST_SKIP() << "Triton " << triton_jit::triton_version() << " needs ROCm's ld.lld to link";
  fake().reset();
  const triton_jit::cuda::DriverApi& d = triton_jit::cuda::driver();
  if (d.DeviceGetGfxArch == nullptr) GTEST_SKIP() << "libcuda is here and has a device: the runtime launches on it";
  EXPECT_EQ(&d, &hip_table()) << "the HIP table of the library TRITON_JIT_HIP_LIBRARY names";
  auto& fn = TritonJitFunction::get(test::canonical(test::kernel("add.py")), "add_kernel");
  fn(test::config(4), test::ptr(0x1000), test::ptr(0x2000), test::ptr(0x3000), 1000, 128);
  ASSERT_EQ(fake().launches.size(), 1u);
  EXPECT_EQ(fake().launches[0].block[0], 256u);  // 4 warps of 64: the device's gfx942
  EXPECT_EQ(fake().launches[0].grid[0], 4u);
  EXPECT_EQ(fake().launches[0].args[3], 1000u);
}

// One call: the arguments, each pointer's buffer size (-1: unknown), and the value the kernel
// must read for each argument (zero-extended bits; unused for constexprs).
struct Call {
  const char* file;
  const char* function;
  std::vector<ArgValue> args;
  std::vector<int64_t> storage;
  std::vector<uint64_t> expected;
  int num_warps = 4;
};

py::object to_python(const ArgValue& a, int64_t storage) {
  switch (a.kind()) {
    case ArgValue::Kind::None: return py::none();
    case ArgValue::Kind::Bool: return py::bool_(a.as_bool());
    case ArgValue::Kind::Int: return py::int_(a.as_int());
    case ArgValue::Kind::UInt: return py::int_(a.as_uint());
    case ArgValue::Kind::Float: return py::float_(a.as_float());
    case ArgValue::Kind::Pointer: {
      const std::string dtype(triton_jit::dtype_name(a.dtype()));
      if (storage < 0) return triton_reference().attr("make_pointer")(py::int_(a.address()), dtype);
      return triton_reference().attr("make_pointer")(py::int_(a.address()), dtype, py::int_(storage));
    }
    default: throw std::logic_error("argument kind not used here");
  }
}

size_t c_type_size(const std::string& t) {
  static const std::map<std::string, size_t> sizes = {
      {"hipDeviceptr_t", 8}, {"int8_t", 1},  {"uint8_t", 1},  {"int16_t", 2}, {"uint16_t", 2}, {"int32_t", 4},
      {"uint32_t", 4},       {"int64_t", 8}, {"uint64_t", 8}, {"float", 4},   {"double", 8}};
  auto it = sizes.find(t);
  if (it == sizes.end()) throw std::logic_error("unknown C type " + t);
  return it->second;
}

uint64_t low_bytes(uint64_t v, uint64_t size) { return size >= 8 ? v : v & ((uint64_t{1} << (8 * size)) - 1); }

// Launches `c` on the fake device (target `target`, warp size `warp`) and checks the launch
// against the hsaco's metadata and Triton's own launcher.
void launch_and_check(const Call& c, const char* target, int warp) {
  SCOPED_TRACE(std::string(c.function) + " on " + target);
  const std::string path = test::canonical(test::kernel(c.file));
  auto& fn = TritonJitFunction::get(path, c.function);
  triton_jit::LaunchConfig config = test::config(3, c.num_warps);
  config.grid.y = 2;
  config.stream = reinterpret_cast<CUstream>(uintptr_t{0x77});
  const size_t before = fake().launches.size();
  fn.launch(config, test::span(c.args));
  ASSERT_EQ(fake().launches.size(), before + 1);
  const fake_hip::Launch l = fake().launches.back();
  // The kernel the launch used: compile() finds it for the device's target, no compile.
  const triton_jit::KernelInfo& k = fn.compile(config, test::span(c.args));
  EXPECT_EQ(k.target.str(), target);
  EXPECT_EQ(k.target.warp_size, warp);

  // What the launch itself was given: the kernel, grid, block, shared memory, stream.
  EXPECT_EQ(l.kernel, k.name);
  EXPECT_FALSE(l.cooperative);
  EXPECT_EQ(l.grid[0], 3u);
  EXPECT_EQ(l.grid[1], 2u);
  EXPECT_EQ(l.grid[2], 1u);
  EXPECT_EQ(l.block[0], static_cast<unsigned>(c.num_warps * warp));
  EXPECT_EQ(l.block[1], 1u);
  EXPECT_EQ(l.block[2], 1u);
  EXPECT_EQ(l.shared, static_cast<unsigned>(k.shared));
  EXPECT_EQ(l.stream, reinterpret_cast<void*>(uintptr_t{0x77}));

  // (a) The code object's own kernel-argument layout.
  const std::vector<amdgpu::Kernel> kernels = amdgpu::read_kernels(k.cubin.data(), k.cubin.size());
  const amdgpu::Kernel* meta = nullptr;
  for (const auto& kernel : kernels) {
    if (kernel.name == k.name) meta = &kernel;
  }
  ASSERT_NE(meta, nullptr) << "the hsaco's metadata declares no kernel " << k.name;
  const std::vector<amdgpu::KernelArg> explicit_args = meta->explicit_args();
  EXPECT_EQ(l.kernarg.size(), meta->kernarg_segment_size);
  EXPECT_EQ(l.num_explicit_args, explicit_args.size());
  ASSERT_EQ(l.args.size(), explicit_args.size());
  std::printf("%s on %s: kernarg segment %llu bytes; explicit arguments (offset:size:kind):", k.name.c_str(), target,
              static_cast<unsigned long long>(meta->kernarg_segment_size));
  for (const auto& a : explicit_args) {
    std::printf(" %llu:%llu:%s", static_cast<unsigned long long>(a.offset), static_cast<unsigned long long>(a.size),
                a.value_kind.c_str());
  }
  std::printf("\n");
  EXPECT_EQ(triton_jit::test::launch_metadata(k).profile_scratch_size, 0) << "these kernels need no profile scratch";

  // (b) Triton's own launcher for the same call.
  triton_reference();  // imported (it takes the GIL itself)
  triton_jit::bridge::GilGuard gil;
  py::object jit_fn = triton_jit::bridge::bridge().attr("load_function")(path, c.function)[py::int_(0)];
  py::tuple py_args(c.args.size());
  for (size_t i = 0; i < c.args.size(); ++i) py_args[i] = to_python(c.args[i], c.storage[i]);
  const py::dict layout = triton_reference().attr("hip_launcher_layout")(jit_fn, py_args,
                                                                         triton_reference().attr("hip_target")(target));
  std::vector<std::string> params;
  for (auto p : layout["params"]) params.push_back(p.cast<std::string>());
  const py::dict types = layout["types"];
  EXPECT_EQ(layout["warp_size"].cast<int>(), warp) << "Triton's block size is warp_size * num_warps";
  // Triton passes NULL for the global scratch (up to 3.7) or allocates what the metadata asks for
  // (3.8 on): the runtime allocates exactly that much (the bridge's launch_global_scratch_size).
  const int64_t global_scratch = triton_jit::test::launch_metadata(k).global_scratch_size;
  if (layout["global_scratch_null"].cast<bool>()) EXPECT_EQ(global_scratch, 0);
  EXPECT_EQ(global_scratch, 0) << "these kernels need no global scratch";
  // Triton's parameter array, the hsaco's explicit arguments and what the kernel read: one to one.
  ASSERT_EQ(params.size(), explicit_args.size()) << "Triton's launcher and the code object disagree";
  ASSERT_GE(params.size(), 2u);
  EXPECT_EQ(params[params.size() - 2], "global_scratch");
  EXPECT_EQ(params.back(), "profile_scratch");
  for (size_t j = 0; j < params.size(); ++j) {
    SCOPED_TRACE("kernel parameter " + std::to_string(j) + " (" + params[j] + ")");
    const amdgpu::KernelArg& arg = explicit_args[j];
    if (params[j] == "global_scratch" || params[j] == "profile_scratch") {
      EXPECT_EQ(arg.size, 8u);
      EXPECT_EQ(arg.value_kind, "global_buffer");
      EXPECT_EQ(l.args[j], 0u) << "Triton passes NULL here for these kernels";
      continue;
    }
    ASSERT_EQ(params[j].rfind("arg", 0), 0u);
    const size_t i = std::stoul(params[j].substr(3));
    ASSERT_LT(i, c.expected.size());
    const std::string c_type = types[py::str(params[j])].cast<std::string>();
    EXPECT_EQ(arg.size, c_type_size(c_type)) << "Triton passes it as " << c_type;
    EXPECT_EQ(arg.value_kind, c_type == "hipDeviceptr_t" ? "global_buffer" : "by_value");
    EXPECT_EQ(l.args[j], low_bytes(c.expected[i], arg.size)) << "call argument " << i;
  }
}

ArgValue sized(uint64_t address, int64_t storage) {
  return ArgValue::pointer_in_storage(reinterpret_cast<const void*>(static_cast<uintptr_t>(address)), DType::fp32, 0,
                                      static_cast<uint64_t>(storage));
}

uint64_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}
uint64_t double_bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

// add_kernel: a tiled kernel; x in a 4 KiB buffer ('S'), y of unknown size, out in 3 GiB.
Call add_call(int64_t n, int num_warps) {
  return Call{"add.py",
              "add_kernel",
              {sized(0x1000, 4096), test::ptr(0x2000), sized(0x3000, int64_t{3} << 30), ArgValue::integer(n),
               ArgValue::integer(256)},
              {4096, -1, int64_t{3} << 30, -1, -1},
              {0x1000, 0x2000, 0x3000, static_cast<uint64_t>(n), 0},
              num_warps};
}

TEST_F(HipLaunch, TiledKernelOnGfx942) { launch_and_check(add_call(1000, 4), "hip:gfx942", 64); }

TEST_F(HipLaunch, TiledKernelOnGfx1100IsWave32) {
  device("gfx1100", 32);
  launch_and_check(add_call(1000, 8), "hip:gfx1100", 32);
}

TEST_F(HipLaunch, IntegerOneIsCompiledIn) { launch_and_check(add_call(1, 2), "hip:gfx942", 64); }

TEST_F(HipLaunch, LargeIntegerIsI64) { launch_and_check(add_call((int64_t{1} << 40) + 3, 4), "hip:gfx942", 64); }

TEST_F(HipLaunch, ScalarsOfEveryWidth) {
  // out_ptr, a: fp16, b: bf16, c: fp32, d: fp64, e: i64, f: u1, g: i8, BLOCK
  const Call c{"scalars.py",
               "scalars_kernel",
               {test::ptr(0x4000), ArgValue::floating(1.5), ArgValue::floating(-2.25), ArgValue::floating(3.0),
                ArgValue::floating(2.5), ArgValue::integer(-5), ArgValue::boolean(true), ArgValue::integer(-3),
                ArgValue::integer(32)},
               {-1, -1, -1, -1, -1, -1, -1, -1, -1},
               {0x4000, 0x3E00, 0xC010, float_bits(3.0f), double_bits(2.5), static_cast<uint64_t>(int64_t{-5}), 1,
                static_cast<uint64_t>(int64_t{-3}), 0}};
  launch_and_check(c, "hip:gfx942", 64);
  device("gfx1100", 32);
  launch_and_check(c, "hip:gfx1100", 32);
}

TEST_F(HipLaunch, AnnotatedParametersAndANonePointer) {
  // out_ptr: *fp16, n: i64, scale: fp32, flag: u1, src_ptr: const, kptr: *kfp32 given None, count: u64
  const Call c{"annotated.py",
               "annotated_kernel",
               {test::ptr(0x1000), ArgValue::integer(10), ArgValue::floating(1.0), ArgValue::boolean(true),
                sized(0x2000, 1 << 20), ArgValue::none(), ArgValue::integer(3), ArgValue::integer(64)},
               {-1, -1, -1, -1, 1 << 20, -1, -1, -1},
               {0x1000, 10, float_bits(1.0f), 1, 0x2000, 0, 3, 0}};
  launch_and_check(c, "hip:gfx942", 64);
}

TEST_F(HipLaunch, DefaultsFillTheCall) {
  // defaults_kernel(x_ptr, n): the constexpr defaults (a string, None, a float, a bool), scale=2
  // at run time and one=1 compiled in.
  const Call c{"defaults.py",
               "defaults_kernel",
               {sized(0x8000, 4096), ArgValue::integer(100)},
               {4096, -1},
               {0x8000, 100, 0, 0, 0, 0, 0, 2, 0}};
  device("gfx1100", 32);
  launch_and_check(c, "hip:gfx1100", 32);
}

TEST_F(HipLaunch, ACachedLaunchHitsAndReloadsNothing) {
  auto& fn = TritonJitFunction::get(test::canonical(test::kernel("add.py")), "add_kernel");
  const Call c = add_call(1000, 4);
  fn.launch(test::config(), test::span(c.args));
  const auto s0 = fn.stats();
  const size_t loads = fake().loaded_kernels.size();
  for (int i = 0; i < 3; ++i) fn.launch(test::config(), test::span(c.args));
  const auto s1 = fn.stats();
  EXPECT_EQ(s1.compiles, s0.compiles);
  EXPECT_EQ(s1.hits, s0.hits + 3) << "x lies in a 4 KiB buffer: its key has 'S', found on the second lookup";
  EXPECT_EQ(s1.misses, s0.misses);
  EXPECT_EQ(fake().loaded_kernels.size(), loads);
  EXPECT_EQ(fake().launches.size(), 4u);
}

TEST_F(HipLaunch, CooperativeLaunchGoesThroughHipModuleLaunchCooperativeKernel) {
  auto& fn = TritonJitFunction::get(test::canonical(test::kernel("add.py")), "add_kernel");
  const triton_jit::CompileOptions options{{"launch_cooperative_grid", true}};
  triton_jit::LaunchConfig config = test::config(2);
  config.options = &options;
  const Call c = add_call(1000, 4);
  fn.launch(config, test::span(c.args));
  ASSERT_EQ(fake().launches.size(), 1u);
  EXPECT_TRUE(fake().launches[0].cooperative);
  EXPECT_EQ(fake().launches[0].block[0], 256u);
  EXPECT_EQ(fake().launches[0].args[0], 0x1000u);
}

TEST_F(HipLaunch, SharedMemoryOverTheDeviceLimitIsALaunchConfigError) {
  auto& fn = TritonJitFunction::get(test::canonical(test::kernel("scratch.py")), "sum_kernel");
  const std::vector<ArgValue> args = {test::ptr(0x1000), test::ptr(0x2000), ArgValue::integer(1024)};
  const int shared = fn.compile(test::config(), test::span(args)).shared;
  ASSERT_GT(shared, 0) << "a block-wide reduction over 4 warps exchanges partial sums through LDS";
  device("gfx942", 64, shared - 1);
  try {
    fn.launch(test::config(), test::span(args));
    ADD_FAILURE() << "launched beyond the device's shared memory";
  } catch (const triton_jit::LaunchConfigError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(test::contains(what, std::to_string(shared) + " bytes of shared memory")) << what;
    EXPECT_TRUE(test::contains(what, "at most " + std::to_string(shared - 1))) << what;
  }
  EXPECT_TRUE(fake().launches.empty());
}

TEST_F(HipLaunch, AKernelForAnotherProcessorIsAnArchitectureMismatch) {
  auto& fn = TritonJitFunction::get(test::canonical(test::kernel("add.py")), "add_kernel");
  const Call c = add_call(1000, 4);
  for (const char* other : {"hip:gfx1100", "cuda:90"}) {
    const ScopedTarget target(other);
    try {
      fn.launch(test::config(), test::span(c.args));
      ADD_FAILURE() << "a kernel for " << other << " launched on gfx942";
    } catch (const triton_jit::ArchitectureMismatchError& e) {
      const std::string what = e.what();
      EXPECT_TRUE(test::contains(what, std::string(other) == "cuda:90" ? "sm_90" : other)) << what;
      EXPECT_TRUE(test::contains(what, "hip:gfx942")) << what;
    }
  }
  EXPECT_TRUE(fake().launches.empty());
}

TEST_F(HipLaunch, ACodeObjectTheRuntimeRejectsIsAnArchitectureMismatch) {
  fake().load_result = 209;  // hipErrorNoBinaryForGpu
  auto& fn = TritonJitFunction::get(test::canonical(test::kernel("add.py")), "add_kernel");
  const Call c = add_call(1000, 1);
  try {
    fn.launch(test::config(1, c.num_warps), test::span(c.args));  // a kernel no other test loads
    ADD_FAILURE() << "launched a rejected code object";
  } catch (const triton_jit::ArchitectureMismatchError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(test::contains(what, "hipErrorNoBinaryForGpu")) << what;
    EXPECT_TRUE(test::contains(what, "hip:gfx942")) << what;
  }
}

// A pack holds the CUDA and the HIP kernel of one call; a function the pack serves (the same
// source at another path: nothing in memory, an empty index, offline, so no compile) launches the
// one of its device: the hsaco on the fake gfx942, the cubin on the fake NVIDIA sm_90.
TEST_F(HipLaunch, APackServesEachDeviceItsOwnKernel) {
  const std::filesystem::path root = std::filesystem::temp_directory_path() /
                                     ("triton_jit_hip_pack_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "built");
  std::filesystem::create_directories(root / "served");
  std::filesystem::create_directories(root / "empty");
  for (const char* dir : {"built", "served"}) {
    std::filesystem::copy_file(test::kernel("add.py"), root / dir / "add.py",
                               std::filesystem::copy_options::overwrite_existing);
  }
  const std::string manifest = (root / "built" / "manifest.txt").string();
  std::ofstream(manifest)
      << "add.py:add_kernel *fp32:16,*fp32:16,*fp32:16,i32,512 num_warps=2 target=cuda:90,hip:gfx942\n";
  const std::string pack = (root / "both.tjp").string();
  triton_jit::PrepareOptions quiet;
  quiet.progress = triton_jit::Progress::Never;
  quiet.load = false;
  ASSERT_EQ(triton_jit::build_pack(manifest, pack, quiet).kernels, 2u);
  triton_jit::load_pack(pack);
  triton_jit::set_index_dir((root / "empty").string());
  triton_jit::set_offline(true);
  struct Restore {
    std::filesystem::path root;
    ~Restore() {
      triton_jit::set_offline(false);
      triton_jit::set_index_dir(std::nullopt);
      fake::uninstall();
      std::error_code ignored;
      std::filesystem::remove_all(root, ignored);
    }
  } restore{root};
  auto& fn = TritonJitFunction::get((root / "served" / "add.py").string(), "add_kernel");
  const std::vector<ArgValue> args = {test::ptr(0x1000), test::ptr(0x2000), test::ptr(0x3000), ArgValue::integer(1000),
                                      ArgValue::integer(512)};
  // The manifest line names no num_stages, nor does the launch: each target's own default (2 on
  // the AMD device, 3 on the NVIDIA one), in the pack and in the launch's key alike.
  triton_jit::LaunchConfig config = test::config(2, 2);
  config.num_stages = triton_jit::kTargetDefaultNumStages;
  fn.launch(config, test::span(args));
  ASSERT_EQ(fake().launches.size(), 1u);
  EXPECT_EQ(fake().launches[0].block[0], 128u);  // 2 warps of 64
  EXPECT_EQ(fake().launches[0].args[0], 0x1000u);
  EXPECT_EQ(fn.stats().pack_hits, 1u);
  fake::install();  // now an NVIDIA device
  fn.launch(config, test::span(args));
  ASSERT_EQ(fake::state().launches.size(), 1u);
  EXPECT_EQ(fake::state().launches[0].block[0], 64u);  // 2 warps of 32
  EXPECT_EQ(fake::state().launches[0].u64(0), 0x1000u);
  EXPECT_EQ(fn.stats().pack_hits, 2u);
  EXPECT_EQ(fn.stats().compiles, 0u);
  EXPECT_EQ(fake().launches.size(), 1u);
}

// A launch that leaves num_stages to the target, on the AMD device (its own target, none set):
// the kernel triton.compile builds from Triton's launch without num_stages (HIPOptions' 2), keyed
// as one stating 2; one stating 3 is another kernel, Triton's with num_stages=3.
TEST_F(HipLaunch, ALaunchWithoutNumStagesRunsTritonsDefaultKernel) {
  const std::string path = test::canonical(test::kernel("add.py"));
  auto& fn = TritonJitFunction::get(path, "add_kernel");
  const Call c = add_call(1000, 4);
  triton_jit::LaunchConfig unset;
  unset.grid = triton_jit::Grid(3);
  fn.launch(unset, test::span(c.args));
  ASSERT_EQ(fake().launches.size(), 1u);
  const triton_jit::KernelInfo& k = fn.compile(unset, test::span(c.args));
  EXPECT_EQ(k.target.str(), "hip:gfx942");
  EXPECT_EQ(fake().launches[0].kernel, k.name);
  EXPECT_EQ(fn.specialize(unset, test::span(c.args)).num_stages, 2);
  triton_jit::LaunchConfig two = unset;
  two.num_stages = 2;
  fn.launch(two, test::span(c.args));
  EXPECT_EQ(&fn.compile(two, test::span(c.args)), &k) << "num_stages=2 is the kernel the default compiled";
  triton_jit::LaunchConfig three = unset;
  three.num_stages = 3;
  fn.launch(three, test::span(c.args));
  ASSERT_EQ(fake().launches.size(), 3u);
  const triton_jit::KernelInfo& k3 = fn.compile(three, test::span(c.args));
  EXPECT_NE(k3.hash, k.hash) << "num_stages=3 is another kernel";
  triton_reference();
  triton_jit::bridge::GilGuard gil;
  py::object jit_fn = triton_jit::bridge::bridge().attr("load_function")(path, c.function)[py::int_(0)];
  py::tuple py_args(c.args.size());
  for (size_t i = 0; i < c.args.size(); ++i) py_args[i] = to_python(c.args[i], c.storage[i]);
  py::dict kwargs;
  kwargs["num_warps"] = 4;
  py::object r = triton_reference().attr("triton_compile")(jit_fn, py_args, kwargs,
                                                           triton_reference().attr("hip_target")("hip:gfx942"));
  if (r.is_none()) GTEST_SKIP() << "this Triton has no JITFunction._pack_args to compile the reference with";
  EXPECT_EQ(k.hash, r[py::int_(0)].cast<std::string>()) << "Triton's launch without num_stages";
  kwargs["num_stages"] = 3;
  r = triton_reference().attr("triton_compile")(jit_fn, py_args, kwargs,
                                                triton_reference().attr("hip_target")("hip:gfx942"));
  EXPECT_EQ(k3.hash, r[py::int_(0)].cast<std::string>()) << "Triton's launch with num_stages=3";
}

// Graph capture as on CUDA (hipStreamIsCapturing): a miss during capture never compiles and says
// to prepare; a prepared kernel launches into the capture.
TEST_F(HipLaunch, ALaunchDuringCaptureNeverCompiles) {
  auto& fn = TritonJitFunction::get(test::canonical(test::kernel("add.py")), "add_kernel");
  const std::vector<ArgValue> args = {test::ptr(0x1000), test::ptr(0x2000), test::ptr(0x3000), ArgValue::integer(1000),
                                      ArgValue::integer(2048)};
  const uint64_t compiles = fn.stats().compiles;
  fake().capture_status = 1;
  try {
    fn.launch(test::config(), test::span(args));
    ADD_FAILURE() << "launched an unprepared kernel during capture";
  } catch (const triton_jit::MissingKernelError& e) {
    EXPECT_TRUE(test::contains(e.what(), "triton_jit::prepare()")) << e.what();
  }
  EXPECT_EQ(fn.stats().compiles, compiles);
  EXPECT_TRUE(fake().launches.empty());
  fake().capture_status = 0;
  fn.compile(test::config(), test::span(args));  // prepared, for the device's target
  fake().capture_status = 1;
  fn.launch(test::config(), test::span(args));
  EXPECT_EQ(fake().launches.size(), 1u);
}

// The autotuner's timing through HIP: events, the flush buffer's memset, synchronization.
TEST_F(HipLaunch, TimingUsesHipEvents) {
  auto& fn = TritonJitFunction::get(test::canonical(test::kernel("add.py")), "add_kernel");
  const Call c = add_call(1000, 4);
  const triton_jit::LaunchConfig config = test::config(2);
  auto launch = [&] { fn.launch(config, test::span(c.args)); };
  const triton_jit::detail::BenchmarkResult r = triton_jit::detail::benchmark(
      config.stream, launch, triton_jit::detail::BenchmarkOptions{5.0, 20.0});
  EXPECT_DOUBLE_EQ(r.median_ms, fake_hip::kLaunchMs);  // each timed run is one launch
  EXPECT_GT(r.runs, 0);
  EXPECT_GE(fake().memsets, r.runs) << "the cache is flushed before every timed run";
  EXPECT_GE(fake().allocations, 1) << "the flush buffer";
  triton_jit::detail::release_flush_buffers();
}

// What front ends ask before reading a call's arguments (the Python extension: which memory its
// arrays must be, and whether their buffers' sizes are read for 'S'): the explicit target's
// backend, else whether the runtime launches through the HIP table.
TEST(HipRuntime, LaunchTargetIsHipFollowsTheTargetThenTheRuntime) {
  triton_jit::cuda::set_driver_for_testing(&hip_table());
  EXPECT_TRUE(triton_jit::launch_target_is_hip());
  {
    const ScopedTarget target("cuda:90");
    EXPECT_FALSE(triton_jit::launch_target_is_hip()) << "an explicit CUDA target wins over the AMD device";
  }
  triton_jit::cuda::set_driver_for_testing(&fake::table());  // an NVIDIA device
  EXPECT_FALSE(triton_jit::launch_target_is_hip());
  {
    const ScopedTarget target("hip:gfx1100");
    EXPECT_TRUE(triton_jit::launch_target_is_hip()) << "an explicit HIP target wins over the NVIDIA device";
  }
  triton_jit::cuda::set_driver_for_testing(nullptr);
}

TEST(HipRuntime, AMissingRuntimeIsOneLine) {
  std::string error;
  EXPECT_EQ(triton_jit::cuda::load_hip_driver("/nonexistent/libamdhip64.so", &error), nullptr);
  EXPECT_TRUE(test::contains(error, "/nonexistent/libamdhip64.so could not be loaded")) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  if (triton_jit::cuda::driver_available()) GTEST_SKIP() << "a GPU runtime is present: no error to read";
  try {
    triton_jit::cuda::driver();
    ADD_FAILURE() << "no driver, yet driver() returned";
  } catch (const triton_jit::NoDeviceError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(test::contains(what, "libcuda")) << what;
    EXPECT_TRUE(test::contains(what, "libamdhip64.so")) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

// The global scratch a HIP launch allocates is what Triton's own HIPLauncher allocates: none
// before 3.8 (it passes NULL), the metadata's from 3.8 on; a CUDA launch always the metadata's.
TEST(HipRuntime, GlobalScratchFollowsTritonsAmdLauncher) {
  triton_jit::bridge::GilGuard gil;
  triton_jit::bridge::bridge();
  const py::module_ inspect = py::module_::import("inspect");
  const py::object launcher = py::module_::import("triton.backends.amd.driver").attr("HIPLauncher");
  const bool allocates = inspect.attr("getsource")(launcher).cast<std::string>().find("global_scratch_size") !=
                         std::string::npos;
  const py::object versions = py::module_::import("triton_jit_bridge.versions");
  const py::object metadata = py::module_::import("types").attr("SimpleNamespace")(py::arg("global_scratch_size") = 64);
  EXPECT_EQ(versions.attr("launch_global_scratch_size")("hip", metadata).cast<int>(), allocates ? 64 : 0);
  EXPECT_EQ(versions.attr("launch_global_scratch_size")("cuda", metadata).cast<int>(), 64);
}

TEST(HipRuntime, GfxNamesParseAsTargetArchitectures) {
  EXPECT_EQ(triton_jit::cuda::parse_gfx_arch("gfx942:sramecc+:xnack-"), 0x942);
  EXPECT_EQ(triton_jit::cuda::parse_gfx_arch("gfx90a"), 0x90a);
  EXPECT_EQ(triton_jit::cuda::parse_gfx_arch("gfx1100"), 0x1100);
  EXPECT_EQ(triton_jit::cuda::parse_gfx_arch("sm_90"), -1);
  EXPECT_EQ(triton_jit::cuda::parse_gfx_arch("gfx"), -1);
  EXPECT_EQ(triton_jit::cuda::parse_gfx_arch("gfx12345"), -1);
}

}  // namespace

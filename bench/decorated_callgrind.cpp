// Instructions per cached launch of an autotuned kernel against a plain launch of the same
// cubin, counted by callgrind (run it through bench/callgrind-decorated.sh):
//
//   bench_decorated_callgrind [N]
//
// scale_kernel of bench/kernels/decorated_kernels.py (@triton.autotune over three configs, key n)
// on the benchmark's fake driver. Its choice for the key comes from a kernel pack built here from
// a manifest that names it (the fake driver cannot time anything), so a first launch takes it and
// every later launch is a cached one: the tuning key computed and looked up, the config applied.
// The plain launch calls the @triton.jit function under the decorator (scale_kernel.fn) with the
// chosen config's BLOCK and num_warps: the same kernel, no decorator. Regions (N launches each):
//   tjb_region_tuned          fn(config, x, y, n, alpha) with a fixed grid
//   tjb_region_tuned_grid_fn  the same with a grid_fn (grid from meta["BLOCK"])
//   tjb_region_plain          plain(config, x, y, n, alpha, BLOCK)
// And a FlagGems LibEntry kernel's hit (libentry_scale_kernel of bench/kernels/libentry_kernels.py,
// FlagGems' own LibEntry with its device runtime stubbed; its key frozen by a first launch):
//   tjb_region_libentry          entry(config, x, y, n, alpha) with a fixed grid
//   tjb_region_libentry_grid_fn  the same with a grid_fn
//   tjb_region_libentry_plain    the @triton.jit function under it with the frozen BLOCK, EVEN_N
// Python init, the pack build and the compiles happen before the regions.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "fake_driver.h"
#include "triton_jit/triton_jit.h"

using triton_jit::LaunchConfig;
using triton_jit::TritonJitFunction;

namespace {

constexpr int kN = 200;  // one program for every config; neither 1 nor a multiple of 16
constexpr float kAlpha = 2.0f;

}  // namespace

extern "C" {
__attribute__((noinline)) void tjb_region_tuned(const TritonJitFunction* fn, const LaunchConfig* config, float* x,
                                                float* y, long n) {
  for (long i = 0; i < n; ++i) (*fn)(*config, x, y, kN, kAlpha);
}
__attribute__((noinline)) void tjb_region_tuned_grid_fn(const TritonJitFunction* fn, const LaunchConfig* config,
                                                        float* x, float* y, long n) {
  for (long i = 0; i < n; ++i) (*fn)(*config, x, y, kN, kAlpha);
}
__attribute__((noinline)) void tjb_region_libentry(const TritonJitFunction* fn, const LaunchConfig* config, float* x,
                                                   float* y, long n) {
  for (long i = 0; i < n; ++i) (*fn)(*config, x, y, kN, kAlpha);
}
__attribute__((noinline)) void tjb_region_libentry_grid_fn(const TritonJitFunction* fn, const LaunchConfig* config,
                                                           float* x, float* y, long n) {
  for (long i = 0; i < n; ++i) (*fn)(*config, x, y, kN, kAlpha);
}
__attribute__((noinline)) void tjb_region_libentry_plain(const TritonJitFunction* fn, const LaunchConfig* config,
                                                         float* x, float* y, long n) {
  for (long i = 0; i < n; ++i) (*fn)(*config, x, y, kN, kAlpha, 256, false);
}
__attribute__((noinline)) void tjb_region_plain(const TritonJitFunction* fn, const LaunchConfig* config, float* x,
                                                float* y, long n) {
  for (long i = 0; i < n; ++i) (*fn)(*config, x, y, kN, kAlpha, 512);
}
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 10000;
  if (n <= 0) {
    std::fprintf(stderr, "usage: %s [N>0]\n", argv[0]);
    return 2;
  }
  try {
    namespace fs = std::filesystem;
    // Before Python starts (its os.environ is read once): FlagGems' LibEntry file with its device
    // runtime stubbed, without trying flag_gems itself (torch under valgrind takes minutes).
    setenv("TRITON_JIT_BENCH_LIBENTRY", "stub", 1);
    triton_jit::cuda::set_driver_for_testing(&fake::quiet_table());
    triton_jit::set_target(triton_jit::Target{});  // cuda:90, as the fake sm_90 device
    triton_jit::set_index_dir(std::string());      // nothing stored or read but the pack
    const std::string file = std::string(TRITON_JIT_BENCH_KERNELS_DIR) + "/decorated_kernels.py";
    const fs::path dir = fs::temp_directory_path() / ("tjb_decorated_callgrind_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // Config 1 (BLOCK 512, 4 warps) for n = 200 and two fp32 tensors.
    std::ofstream(dir / "manifest.txt") << file << ":scale_kernel autotune key=(200, 'torch.float32', "
                                        << "'torch.float32') config=1\n"
                                        << file << ":scale_kernel *fp32:16,*fp32:16,i32,fp32,512 num_warps=4\n";
    triton_jit::PrepareOptions quiet;
    quiet.progress = triton_jit::Progress::Never;
    triton_jit::build_pack((dir / "manifest.txt").string(), (dir / "k.tjp").string(), quiet);
    triton_jit::load_pack((dir / "k.tjp").string());
    fs::remove_all(dir);

    const TritonJitFunction& tuned = TritonJitFunction::get(file, "scale_kernel");
    const triton_jit::Stats built = tuned.stats();  // the pack's build compiled through the same object
    const TritonJitFunction& plain = TritonJitFunction::get(file, "scale_kernel.fn");
    float* x = fake::fake_device_buffer(0);
    float* y = fake::fake_device_buffer(1);
    LaunchConfig fixed;
    fixed.grid = triton_jit::Grid(1);
    LaunchConfig with_grid_fn;
    with_grid_fn.grid_fn = [](const triton_jit::GridMeta& meta) {
      return triton_jit::Grid(triton_jit::cdiv(kN, meta["BLOCK"]));
    };
    LaunchConfig plain_config;
    plain_config.grid = triton_jit::Grid(1);
    plain_config.num_warps = 4;
    // First launches (the choice from the pack, the kernels loaded) and a warm-up, outside the
    // regions: callgrind dumps after every call of a region function.
    for (int i = 0; i < 100; ++i) {
      tuned(fixed, x, y, kN, kAlpha);
      tuned(with_grid_fn, x, y, kN, kAlpha);
      plain(plain_config, x, y, kN, kAlpha, 512);
    }
    const triton_jit::Stats s = tuned.stats();
    if (s.tunings != 0 || s.compiles != built.compiles) {
      std::fprintf(stderr,
                   "bench_decorated_callgrind: expected the pack's choice and kernel (tunings %llu, "
                   "compiles %llu)\n",
                   static_cast<unsigned long long>(s.tunings),
                   static_cast<unsigned long long>(s.compiles - built.compiles));
      return 1;
    }
    const auto a = tuned.specialize(fixed, x, y, kN, kAlpha);
    const auto b = plain.specialize(plain_config, x, y, kN, kAlpha, 512);
    if (a.signature() != b.signature() || a.num_warps != b.num_warps) {
      std::fprintf(stderr, "bench_decorated_callgrind: the plain launch is not the tuned one's kernel (%s vs %s)\n",
                   a.signature().c_str(), b.signature().c_str());
      return 1;
    }
    // The LibEntry kernel: its first launch freezes the key (one config, a heuristic); the plain
    // launch passes what was frozen (BLOCK 256, EVEN_N False, 2 warps, 3 stages).
    const std::string entry_file = std::string(TRITON_JIT_BENCH_KERNELS_DIR) + "/libentry_kernels.py";
    const TritonJitFunction& entry = TritonJitFunction::get(entry_file, "libentry_scale_kernel");
    const TritonJitFunction& entry_plain = TritonJitFunction::get(entry_file, "libentry_scale_kernel.fn.fn.fn");
    LaunchConfig entry_plain_config;
    entry_plain_config.grid = triton_jit::Grid(1);
    entry_plain_config.num_warps = 2;
    entry_plain_config.num_stages = 3;
    for (int i = 0; i < 100; ++i) {
      entry(with_grid_fn, x, y, kN, kAlpha);
      entry(fixed, x, y, kN, kAlpha);
      entry_plain(entry_plain_config, x, y, kN, kAlpha, 256, false);
    }
    const auto e = entry.specialize(fixed, x, y, kN, kAlpha);
    const auto f = entry_plain.specialize(entry_plain_config, x, y, kN, kAlpha, 256, false);
    if (e.signature() != f.signature() || e.num_warps != f.num_warps || e.num_stages != f.num_stages) {
      std::fprintf(stderr, "bench_decorated_callgrind: the plain launch is not the LibEntry one's kernel (%s vs %s)\n",
                   e.signature().c_str(), f.signature().c_str());
      return 1;
    }
    tjb_region_tuned(&tuned, &fixed, x, y, n);
    tjb_region_tuned_grid_fn(&tuned, &with_grid_fn, x, y, n);
    tjb_region_plain(&plain, &plain_config, x, y, n);
    tjb_region_libentry(&entry, &fixed, x, y, n);
    tjb_region_libentry_grid_fn(&entry, &with_grid_fn, x, y, n);
    tjb_region_libentry_plain(&entry_plain, &entry_plain_config, x, y, n);
    std::printf("%ld launches per region of scale_kernel (%s, num_warps %d)\n", n, a.signature().c_str(), a.num_warps);
    std::printf("%ld launches per region of libentry_scale_kernel (%s, num_warps %d)\n", n, e.signature().c_str(),
                e.num_warps);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_decorated_callgrind: %s\n", e.what());
    return 1;
  }
  return 0;
}

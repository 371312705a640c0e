#include "bench_common.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "../tests/support/launch_metadata.h"
#include "fake_driver.h"

#ifndef TRITON_JIT_BENCH_KERNELS_DIR
#error "TRITON_JIT_BENCH_KERNELS_DIR must be defined (bench/CMakeLists.txt does)"
#endif

namespace triton_jit_bench {
namespace {

using triton_jit::KernelInfo;

void check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("benchmark setup: " + what);
}

// Compares what a cached launch handed the driver with the raw baseline's parameter array, each
// slot at its parameter's size (the runtime leaves the unused bytes of a 4-byte slot as they are).
void check_same_params(const char* kernel, const RawLaunch& raw, const int* sizes) {
  const fake::QuietLaunch& rec = fake::last_quiet_launch();
  check(rec.calls == 1, std::string(kernel) + ": the launch did not reach cuLaunchKernel exactly once");
  check(rec.function == raw.function, std::string(kernel) + ": launched another function");
  check(rec.grid[0] == 1 && rec.grid[1] == 1 && rec.grid[2] == 1, std::string(kernel) + ": grid is not 1x1x1");
  check(rec.block[0] == raw.block_x && rec.block[1] == 1 && rec.block[2] == 1,
        std::string(kernel) + ": block differs from num_warps * 32");
  check(rec.shared == raw.shared, std::string(kernel) + ": shared memory differs from KernelInfo.shared");
  for (int i = 0; i < raw.num_params; ++i) {
    uint64_t a = 0, b = 0;
    std::memcpy(&a, &rec.values[i], static_cast<size_t>(sizes[i]));
    std::memcpy(&b, &raw.storage[i], static_cast<size_t>(sizes[i]));
    check(a == b, std::string(kernel) + ": parameter " + std::to_string(i) + " differs from the raw baseline's");
  }
}

template <typename... Args>
const KernelInfo& compile_with(const triton_jit::TritonJitFunction& fn, const Args&... args) {
  const triton_jit::ArgValue values[] = {triton_jit::to_arg(args)...};
  return fn.compile(one_program(), triton_jit::ArgSpan{values, sizeof...(Args)});
}

}  // namespace

std::string kernels_file() { return std::string(TRITON_JIT_BENCH_KERNELS_DIR) + "/launch_kernels.py"; }

AddArgs add_args() {
  return AddArgs{fake::fake_device_buffer(0), fake::fake_device_buffer(1), fake::fake_device_buffer(2), 4096};
}

ManyArgs many_args() {
  ManyArgs a{};
  for (int i = 0; i < 4; ++i) a.x[i] = fake::fake_device_buffer(3 + i);
  a.out = fake::fake_device_buffer(7);
  a.n = 4096;
  a.o[0] = 0, a.o[1] = 2, a.o[2] = 3, a.o[3] = 5;
  a.a[0] = 0.5f, a.a[1] = 1.5f, a.a[2] = 2.5f, a.a[3] = 3.5f;
  return a;
}

void RawLaunch::push(const void* value, size_t bytes) {
  storage[num_params] = 0;
  std::memcpy(&storage[num_params], value, bytes);
  params[num_params] = &storage[num_params];
  ++num_params;
}

static void finish(RawLaunch& r, const KernelInfo& info, CUfunction function) {
  r.function = function;
  r.block_x = static_cast<unsigned>(info.num_warps * info.target.warp_size);
  r.shared = static_cast<unsigned>(info.shared);
  for (size_t i = 0; i < triton_jit::test::launch_metadata(info).scratch_params.size(); ++i) {
    const void* null = nullptr;
    r.push(&null, sizeof null);
  }
}

RawLaunch raw_add(const AddArgs& a, const KernelInfo& info, CUfunction function) {
  RawLaunch r;
  const CUdeviceptr p[3] = {reinterpret_cast<CUdeviceptr>(a.x), reinterpret_cast<CUdeviceptr>(a.y),
                            reinterpret_cast<CUdeviceptr>(a.out)};
  for (const CUdeviceptr& v : p) r.push(&v, sizeof v);
  r.push(&a.n, sizeof a.n);
  finish(r, info, function);
  return r;
}

RawLaunch raw_many(const ManyArgs& a, const KernelInfo& info, CUfunction function) {
  RawLaunch r;
  for (float* x : a.x) {
    const CUdeviceptr v = reinterpret_cast<CUdeviceptr>(x);
    r.push(&v, sizeof v);
  }
  const CUdeviceptr out = reinterpret_cast<CUdeviceptr>(a.out);
  r.push(&out, sizeof out);
  r.push(&a.n, sizeof a.n);
  for (const int32_t& o : a.o) r.push(&o, sizeof o);
  for (const float& f : a.a) r.push(&f, sizeof f);
  finish(r, info, function);
  return r;
}

Kernels setup_fake_runtime() {
  using clock = std::chrono::steady_clock;
  triton_jit::cuda::set_driver_for_testing(&fake::quiet_table());
  triton_jit::set_target(triton_jit::Target{});  // cuda:90: compile as for the fake sm_90 device

  const auto t0 = clock::now();
  Kernels k;
  k.add = &triton_jit::TritonJitFunction::get(kernels_file(), "add_kernel");
  k.many = &triton_jit::TritonJitFunction::get(kernels_file(), "many_args_kernel");
  const auto t1 = clock::now();

  const AddArgs aa = add_args();
  const ManyArgs ma = many_args();
  launch_add(*k.add, aa);  // compiles (or reads Triton's cache) and loads
  launch_many(*k.many, ma);
  const auto t2 = clock::now();
  auto ms = [](clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  std::fprintf(stderr, "[bench] Python + kernel lookup %.0f ms, first launches (compile) %.0f ms; triton %s\n",
               ms(t1 - t0), ms(t2 - t1), triton_jit::triton_version().c_str());

  // The runtime must pass the driver what the raw baseline passes: check once with a driver that
  // records the call. (Installing a table drops the device cache; the next launches refill it.)
  const KernelInfo& add_info = compile_with(*k.add, aa.x, aa.y, aa.out, aa.n, AddArgs::kBlock);
  const KernelInfo& many_info = compile_with(*k.many, ma.x[0], ma.x[1], ma.x[2], ma.x[3], ma.out, ma.n, ma.o[0],
                                             ma.o[1], ma.o[2], ma.o[3], ma.a[0], ma.a[1], ma.a[2], ma.a[3],
                                             ManyArgs::kBlock);
  const RawLaunch ra = raw_add(aa, add_info, fake::quiet_function());
  const RawLaunch rm = raw_many(ma, many_info, fake::quiet_function());
  check(ra.num_params == 4 + static_cast<int>(triton_jit::test::launch_metadata(add_info).scratch_params.size()),
        "add_kernel: unexpected parameter count");
  check(rm.num_params == 14 + static_cast<int>(triton_jit::test::launch_metadata(many_info).scratch_params.size()),
        "many_args_kernel: unexpected parameter count");
  int add_sizes[32], many_sizes[32];
  for (int i = 0; i < 32; ++i) add_sizes[i] = many_sizes[i] = 8;
  add_sizes[3] = 4;                                // n
  for (int i = 5; i < 14; ++i) many_sizes[i] = 4;  // n, o0..o3, a0..a3

  triton_jit::cuda::set_driver_for_testing(&fake::quiet_recording_table(ra.num_params));
  launch_add(*k.add, aa);
  check_same_params("add_kernel", ra, add_sizes);
  triton_jit::cuda::set_driver_for_testing(&fake::quiet_recording_table(rm.num_params));
  launch_many(*k.many, ma);
  check_same_params("many_args_kernel", rm, many_sizes);
  triton_jit::cuda::set_driver_for_testing(&fake::quiet_table());

  const triton_jit::Stats sa = k.add->stats(), sm = k.many->stats();
  check(sa.compiles + sm.compiles <= 2 && sa.misses == 1 && sm.misses == 1,
        "a cached launch compiled again (misses: add " + std::to_string(sa.misses) + ", many " +
            std::to_string(sm.misses) + ")");
  std::fprintf(stderr,
               "[bench] checked: cached launches pass cuLaunchKernel the raw baseline's %d and %d parameters "
               "(scratch params: %zu); cubin %zu bytes, %d warps, %d bytes shared\n",
               ra.num_params, rm.num_params, triton_jit::test::launch_metadata(add_info).scratch_params.size(),
               add_info.cubin.size(), add_info.num_warps, add_info.shared);
  return k;
}

}  // namespace triton_jit_bench

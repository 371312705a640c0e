// TritonJitFunction::compile (from arguments and from a CompileRequest) for sm_90 and sm_80 on a machine without a
// GPU. The cubin itself (ELF header, .nv.info parameter table written by ptxas) is the reference. Runs against every
// supported Triton (scripts/test-triton-versions.sh): what differs by version (the scratch pointers the launcher
// appends) is checked against the binary and Triton's own metadata, not against a list written for one version.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "cubin_reader.h"
#include "support/launch_metadata.h"
#include "test_util.h"

using triton_jit::KernelInfo;
using triton_jit::Target;
using triton_jit::TritonJitFunction;

namespace {

const unsigned char* bytes(const KernelInfo& k) { return reinterpret_cast<const unsigned char*>(k.cubin.data()); }

// The scratch pointers the launcher appends, as this Triton's metadata implies them: global scratch in every
// version, profile scratch where the metadata has the field (Triton 3.5 and newer).
std::vector<std::string> expected_scratch_params(const KernelInfo& k) {
  std::vector<std::string> params{"global_scratch"};
  if (test::contains(triton_jit::test::launch_metadata(k).metadata_json, "\"profile_scratch_size\":")) {
    params.push_back("profile_scratch");
  }
  return params;
}

// The sizes of the kernel's parameters in the cubin.
std::vector<int> param_sizes(const KernelInfo& k) {
  std::vector<int> sizes;
  if (const auto params = cubin::kernel_params(k.cubin, k.name)) {
    for (const auto& p : *params) sizes.push_back(p.size);
  }
  return sizes;
}

// `runtime` sizes, then one 8-byte pointer per scratch parameter the launcher appends.
std::vector<int> with_scratch(std::vector<int> runtime, const KernelInfo& k) {
  runtime.insert(runtime.end(), triton_jit::test::launch_metadata(k).scratch_params.size(), 8);
  return runtime;
}

std::vector<triton_jit::ArgValue> add_args(int n, int block) {
  return {test::ptr(0x100000), test::ptr(0x200000), test::ptr(0x300000), triton_jit::to_arg(n),
          triton_jit::to_arg(block)};
}

TEST(Compile, AddKernelForSm90) {
  const auto args = add_args(1000, 1024);
  const KernelInfo& k = test::add_kernel().compile(test::config(), test::span(args));
  ASSERT_GE(k.cubin.size(), 64u);
  EXPECT_EQ(k.cubin.compare(0, 4,
                            "\x7f"
                            "ELF"),
            0);
  ASSERT_TRUE(cubin::is_elf64(bytes(k), k.cubin.size()));
  EXPECT_EQ(cubin::machine(bytes(k)), cubin::kEmCuda);
  EXPECT_EQ(cubin::sm_version(bytes(k)), 90);
  EXPECT_LE(cubin::image_size(bytes(k)), k.cubin.size());
  EXPECT_EQ(k.name, "add_kernel");
  EXPECT_TRUE(cubin::find_section(bytes(k), ".text.add_kernel").has_value());
  EXPECT_EQ(k.num_warps, 4);
  EXPECT_EQ(k.num_ctas, 1);
  EXPECT_EQ(triton_jit::test::launch_metadata(k).cluster_dims[0], 1);
  EXPECT_GE(k.shared, 0);
  EXPECT_EQ(k.target.backend, "cuda");
  EXPECT_EQ(k.target.arch, 90);
  EXPECT_EQ(k.target.warp_size, 32);
  EXPECT_EQ(k.target.str(), "cuda:90");
  EXPECT_EQ(triton_jit::test::launch_metadata(k).scratch_params, expected_scratch_params(k));
  EXPECT_EQ(triton_jit::test::launch_metadata(k).global_scratch_size, 0);
  EXPECT_FALSE(triton_jit::test::launch_metadata(k).launch_pdl);
  EXPECT_FALSE(triton_jit::test::launch_metadata(k).launch_cooperative_grid);
  EXPECT_EQ(k.hash.size(), 64u);  // sha256 hex
  EXPECT_EQ(k.triton_version, triton_jit::triton_version());
  EXPECT_EQ(k.triton_version.rfind("3.", 0), 0u);
  EXPECT_TRUE(test::contains(triton_jit::test::launch_metadata(k).metadata_json, "\"num_warps\": 4"))
      << triton_jit::test::launch_metadata(k).metadata_json;
  EXPECT_TRUE(test::contains(triton_jit::test::launch_metadata(k).metadata_json, "\"hash\": \"" + k.hash + "\""));

  // The kernel takes what the launcher will pass: three pointers, the i32 size, then one pointer
  // per scratch parameter; the constexpr is gone.
  EXPECT_EQ(param_sizes(k), with_scratch({8, 8, 8, 4}, k));
}

TEST(Compile, MoreWarps) {
  const auto args = add_args(1000, 2048);
  const KernelInfo& k4 = test::add_kernel().compile(test::config(1, 4), test::span(args));
  const KernelInfo& k8 = test::add_kernel().compile(test::config(1, 8), test::span(args));
  EXPECT_EQ(k4.num_warps, 4);
  EXPECT_EQ(k8.num_warps, 8);
  EXPECT_NE(&k4, &k8);
  EXPECT_NE(k4.hash, k8.hash);
  EXPECT_NE(k4.cubin, k8.cubin);
}

TEST(Compile, ClusterOfTwoCtasOnSm90) {
  const auto args = add_args(1000, 512);
  const KernelInfo& k = test::add_kernel().compile(test::config(1, 4, 3, 2), test::span(args));
  EXPECT_EQ(k.num_ctas, 2);
  EXPECT_EQ(triton_jit::test::launch_metadata(k).cluster_dims[0], 2);
  EXPECT_EQ(triton_jit::test::launch_metadata(k).cluster_dims[1], 1);
  EXPECT_EQ(triton_jit::test::launch_metadata(k).cluster_dims[2], 1);
  EXPECT_EQ(cubin::sm_version(bytes(k)), 90);
}

TEST(Compile, SignatureGivesTheSameKernelAsArguments) {
  // n = 1000 is not divisible by 16: "i32" without ":16".
  const auto args = add_args(1000, 1024);
  const KernelInfo& from_args = test::add_kernel().compile(test::config(), test::span(args));
  const KernelInfo from_signature = test::add_kernel().compile(
      triton_jit::CompileRequest{"*fp32:16,*fp32:16,*fp32:16,i32,1024", 4, 3, 1, {}, Target{}});
  EXPECT_EQ(from_signature.hash, from_args.hash);
  EXPECT_EQ(from_signature.cubin, from_args.cubin);
  EXPECT_EQ(from_signature.name, from_args.name);

  const KernelInfo divisible = test::add_kernel().compile(
      triton_jit::CompileRequest{"*fp32:16,*fp32:16,*fp32:16,i32:16,1024", 4, 3, 1, {}, Target{}});
  EXPECT_NE(divisible.hash, from_args.hash);
  const auto args16 = add_args(1024, 1024);
  EXPECT_EQ(test::add_kernel().compile(test::config(), test::span(args16)).hash, divisible.hash);

  const KernelInfo unaligned = test::add_kernel().compile(
      triton_jit::CompileRequest{"*fp32,*fp32:16,*fp32:16,i32,1024", 4, 3, 1, {}, Target{}});
  EXPECT_NE(unaligned.hash, from_args.hash);
}

TEST(Compile, SignatureWithConstexprOne) {
  const auto args = add_args(1, 128);
  const KernelInfo& from_args = test::add_kernel().compile(test::config(), test::span(args));
  EXPECT_EQ(test::add_kernel()
                .compile(triton_jit::CompileRequest{"*fp32:16,*fp32:16,*fp32:16,1,128", 4, 3, 1, {}, Target{}})
                .hash,
            from_args.hash);
  // The size is a constant: the kernel takes only the pointers and the scratch pointers.
  EXPECT_EQ(param_sizes(from_args), with_scratch({8, 8, 8}, from_args));
}

TEST(Compile, AnnotatedScalarsAndDefaults) {
  auto& scalars = TritonJitFunction::get(test::kernel("scalars.py"), "scalars_kernel");
  const std::vector<triton_jit::ArgValue> sargs = test::args(reinterpret_cast<const float*>(uintptr_t{0x1000}), 1.0,
                                                             2.0, 3.0f, 4.0, int64_t{5}, true, int8_t{6}, 32);
  const KernelInfo& k = scalars.compile(test::config(), test::span(sargs));
  // out_ptr, fp16, bf16, fp32, fp64, i64, u1, i8, then the scratch pointers.
  EXPECT_EQ(param_sizes(k), with_scratch({8, 2, 2, 4, 8, 8, 1, 1}, k));

  auto& defaults = TritonJitFunction::get(test::kernel("defaults.py"), "defaults_kernel");
  const auto dargs = test::args(reinterpret_cast<const float*>(uintptr_t{0x1000}), 100);
  const KernelInfo& d = defaults.compile(test::config(), test::span(dargs));
  EXPECT_EQ(d.name, "defaults_kernel");
  EXPECT_EQ(
      defaults.compile(triton_jit::CompileRequest{"*fp32:16,i32,128,'fast',None,1.5,True,i32,1", 4, 3, 1, {}, Target{}})
          .hash,
      d.hash);
}

TEST(Compile, DTypeConstexprsInBothSpellings) {
  // Liger-Kernel style: X_dtype is compared in the kernel; Triton's dtype and torch's spelling of
  // it are two specializations, two kernels (the parity test checks both against Triton's JIT).
  auto& fn = TritonJitFunction::get(test::kernel("dtype_constexpr.py"), "scale_kernel");
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x1000});
  const KernelInfo& tl = fn.compile(test::config(), x, 100, triton_jit::DType::fp16);
  EXPECT_EQ(tl.name, "scale_kernel");
  ASSERT_TRUE(cubin::is_elf64(bytes(tl), tl.cubin.size()));
  EXPECT_EQ(cubin::sm_version(bytes(tl)), 90);
  // The same kernel from the signature text a call prints.
  const std::string tl_sig = fn.specialize(test::config(), x, 100, triton_jit::DType::fp16).signature();
  EXPECT_EQ(tl_sig, "*fp32:16,i32,triton.language.float16,triton.language.float32,128");
  EXPECT_EQ(fn.compile(triton_jit::CompileRequest{tl_sig, 4, 3, 1, {}, Target{}}).hash, tl.hash);
  // Another dtype, another kernel.
  EXPECT_NE(fn.compile(test::config(), x, 100, triton_jit::DType::bf16).hash, tl.hash);

  const KernelInfo* torch = nullptr;
  try {
    torch = &fn.compile(test::config(), x, 100, triton_jit::TorchDType{triton_jit::DType::fp16});
  } catch (const triton_jit::CompileError& e) {
    // torch is not part of requirements.txt: without it the compile says so.
    ASSERT_TRUE(test::contains(e.what(), "cannot import torch")) << e.what();
    GTEST_SKIP() << "torch cannot be imported: " << e.what();
  }
  EXPECT_EQ(torch->name, "scale_kernel");
  EXPECT_NE(torch->hash, tl.hash);
  EXPECT_EQ(fn.compile(triton_jit::CompileRequest{
                           "*fp32:16,i32,torch.float16,triton.language.float32,128", 4, 3, 1, {}, Target{}})
                .hash,
            torch->hash);
}

TEST(Compile, GlobalScratchIsReported) {
  auto& fn = TritonJitFunction::get(test::kernel("scratch.py"), "descriptor_kernel");
  const auto args = test::args(reinterpret_cast<const float*>(uintptr_t{0x1000}), 4096, 128);
  const KernelInfo& k = fn.compile(test::config(), test::span(args));
  EXPECT_GT(triton_jit::test::launch_metadata(k).global_scratch_size, 0);
  EXPECT_GE(triton_jit::test::launch_metadata(k).global_scratch_align, 1);
}

TEST(Compile, CompileOptionsChangeTheKernel) {
  const auto args = add_args(1000, 64);
  const KernelInfo& plain = test::add_kernel().compile(test::config(), test::span(args));
  const triton_jit::CompileOptions options{{"enable_fp_fusion", false}};
  triton_jit::LaunchConfig c = test::config();
  c.options = &options;
  const KernelInfo& no_fusion = test::add_kernel().compile(c, test::span(args));
  EXPECT_NE(&plain, &no_fusion);
  EXPECT_NE(plain.hash, no_fusion.hash);
  EXPECT_TRUE(test::contains(triton_jit::test::launch_metadata(no_fusion).metadata_json, "\"enable_fp_fusion\": false"))
      << triton_jit::test::launch_metadata(no_fusion).metadata_json;
  EXPECT_EQ(test::add_kernel()
                .compile(triton_jit::CompileRequest{"*fp32:16,*fp32:16,*fp32:16,i32,64", 4, 3, 1, options, Target{}})
                .hash,
            no_fusion.hash);
}

TEST(Compile, ExplicitTarget) {
  // An explicit target is used without a device.
  triton_jit::set_target(Target::parse("cuda:90"));
  ASSERT_TRUE(triton_jit::explicit_target().has_value());
  EXPECT_EQ(triton_jit::explicit_target()->arch, 90);
  const auto args = add_args(1000, 32);
  EXPECT_EQ(test::add_kernel().specialize(test::config(), test::span(args)).target, "cuda:90");
  EXPECT_EQ(test::add_kernel().compile(test::config(), test::span(args)).target.arch, 90);
  triton_jit::set_target(std::nullopt);
  EXPECT_FALSE(triton_jit::explicit_target().has_value());
  EXPECT_THROW(Target::parse("rocm:90"), triton_jit::Error);
  EXPECT_THROW(Target::parse("cuda"), triton_jit::Error);
  EXPECT_THROW(Target::parse("cuda:9x"), triton_jit::Error);
  EXPECT_THROW(Target::parse("cuda:90:x"), triton_jit::Error);
  EXPECT_EQ(Target::parse("cuda:80:32").str(), "cuda:80");
}

TEST(Compile, HipTargetsParse) {
  const Target mi300 = Target::parse("hip:gfx942");
  EXPECT_EQ(mi300.backend, "hip");
  EXPECT_EQ(mi300.arch, 0x942);
  EXPECT_EQ(mi300.warp_size, 64);  // Triton's HIPOptions: wave64 before gfx10
  EXPECT_EQ(mi300.str(), "hip:gfx942");
  EXPECT_EQ(Target::parse("hip:gfx90a").str(), "hip:gfx90a");
  EXPECT_EQ(Target::parse("hip:gfx1100").warp_size, 32);
  EXPECT_EQ(Target::parse("hip:gfx1100:32").warp_size, 32);
  EXPECT_THROW(Target::parse("hip:gfx1100:64"), triton_jit::Error);  // Triton compiles gfx10+ as wave32
  EXPECT_THROW(Target::parse("hip:90"), triton_jit::Error);
  EXPECT_THROW(Target::parse("hip:gfx"), triton_jit::Error);
  EXPECT_THROW(Target::parse("hip:gfx12345"), triton_jit::Error);
  try {
    Target::parse("rocm:90");
    FAIL() << "rocm:90 parsed";
  } catch (const triton_jit::Error& e) {
    EXPECT_TRUE(test::contains(e.what(), "this build compiles for cuda")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "hip (AMD: hip:gfxNAME")) << e.what();
  }
}

// Triton's PyPI wheels hold the AMD backend, which compiles without a GPU: an hsaco, an AMDGPU
// ELF whose e_flags name the gfx942 processor (EF_AMDGPU_MACH_AMDGCN_GFX942 = 0x4c).
TEST(Compile, HipTargetCompilesAnHsaco) {
  const triton_jit::CompileRequest request{"*fp32:16,*fp32:16,*fp32:16,i32,64", 4, 3, 1, {},
                                           Target::parse("hip:gfx942")};
  KernelInfo k;
  try {
    k = test::add_kernel().compile(request);
  } catch (const triton_jit::ArgumentError& e) {
    if (test::contains(e.what(), "cannot compile for hip:gfx942")) GTEST_SKIP() << e.what();
    throw;
  } catch (const triton_jit::CompileError& e) {
    // Triton 3.4 links the hsaco with ROCm's ld.lld (3.5 and newer link it themselves).
    if (triton_jit::triton_version().rfind("3.4.", 0) == 0 && test::contains(e.what(), "ld.lld")) {
      GTEST_SKIP() << "Triton 3.4 links hsaco files with ROCm's ld.lld, which this machine lacks: " << e.what();
    }
    throw;
  }
  EXPECT_EQ(k.target.str(), "hip:gfx942");
  EXPECT_EQ(k.target.warp_size, 64);
  ASSERT_GT(k.cubin.size(), 64u);
  EXPECT_EQ(k.cubin.compare(0, 4,
                            "\x7f"
                            "ELF"),
            0);
  const auto u16 = [&](size_t at) { return bytes(k)[at] | bytes(k)[at + 1] << 8; };
  EXPECT_EQ(u16(18), 224);               // e_machine: EM_AMDGPU
  EXPECT_EQ(bytes(k)[48] & 0xff, 0x4c);  // e_flags (ELF64 at offset 48): the gfx942 processor
  EXPECT_TRUE(test::contains(k.to_json(), "\"target\": {\"backend\": \"hip\", \"arch\": \"gfx942\", "
                                          "\"warp_size\": 64}"))
      << k.to_json();
}

// What Triton would only reject deep in its pipeline (ptxas for an unknown architecture, its IR
// builder for an option of the wrong type) is refused before compiling, naming the culprit.
TEST(Compile, UnbuildableTargetsAndBadOptionsAreRefusedFirst) {
  const std::string sig = "*fp32:16,*fp32:16,*fp32:16,i32,128";
  const uint64_t compiles_before = test::add_kernel().stats().compiles;
  try {
    test::add_kernel().compile(triton_jit::CompileRequest{sig, 4, 3, 1, {}, Target::parse("cuda:999")});
    FAIL() << "cuda:999 compiled";
  } catch (const triton_jit::ArgumentError& e) {
    EXPECT_EQ(e.parameter(), "target");
    EXPECT_TRUE(test::contains(e.what(), "the target cuda:999")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "cuda:90")) << e.what();  // what it can build
  }
  const std::pair<const char*, triton_jit::CompileOptions> bad[] = {
      {"maxnreg", {{"maxnreg", std::string("abc")}}},
      {"maxnreg", {{"maxnreg", true}}},
      {"enable_fp_fusion", {{"enable_fp_fusion", std::string("no")}}},
      {"no_such_option", {{"no_such_option", int64_t{1}}}},
  };
  for (const auto& [name, options] : bad) {
    try {
      test::add_kernel().compile(triton_jit::CompileRequest{sig, 4, 3, 1, options, Target::parse("cuda:90")});
      ADD_FAILURE() << name << " compiled";
    } catch (const triton_jit::ArgumentError& e) {
      EXPECT_EQ(e.parameter(), name) << e.what();
      EXPECT_TRUE(test::contains(e.what(), name)) << e.what();
    }
  }
  EXPECT_EQ(test::add_kernel().stats().compiles, compiles_before) << "something compiled before the check";
  // The same options through a launch's config are checked the same way.
  const triton_jit::CompileOptions options{{"maxnreg", 2.5}};
  triton_jit::LaunchConfig c = test::config();
  c.options = &options;
  const auto args = add_args(1000, 128);
  EXPECT_THROW(test::add_kernel().compile(c, test::span(args)), triton_jit::ArgumentError);
  // A right value of each type passes.
  const triton_jit::CompileOptions good{{"maxnreg", int64_t{128}}, {"enable_fp_fusion", false}};
  EXPECT_NO_THROW(test::add_kernel().compile(triton_jit::CompileRequest{sig, 4, 3, 1, good, Target::parse("cuda:90")}));
}

// Several kernels, each for sm_90 and sm_80: the binary is for the target asked, its entry point is
// the function, and its parameter table is exactly what the launcher passes (runtime arguments by
// their specialized type, constexprs and `== 1` integers gone, then the scratch pointers).
struct TargetCase {
  const char* file;
  const char* function;
  std::vector<triton_jit::ArgValue> args;
  std::vector<int> runtime_param_sizes;
};

void PrintTo(const TargetCase& c, std::ostream* os) { *os << c.file << ":" << c.function; }

std::vector<TargetCase> target_cases() {
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x1000});
  return {
      {"add.py", "add_kernel", add_args(1000, 256), {8, 8, 8, 4}},
      {"add.py", "add_kernel", add_args(1, 128), {8, 8, 8}},
      {"scalars.py",
       "scalars_kernel",
       test::args(x, 1.0, 2.0, 3.0f, 4.0, int64_t{5}, true, int8_t{6}, 32),
       {8, 2, 2, 4, 8, 8, 1, 1}},
      // Defaults fill BLOCK, MODE, EXTRA, ALPHA, FLAG and the runtime scale (i32); one == 1 is a constexpr.
      {"defaults.py", "defaults_kernel", test::args(x, 100), {8, 4, 4}},
      // do_not_specialize: b and c stay i32 parameters although they are 1; f an i64.
      {"do_not_specialize.py", "dns_kernel", test::args(x, 1, 1, 7, x, int64_t{1} << 40, 64), {8, 4, 4, 4, 8, 8}},
      {"scratch.py", "sum_kernel", test::args(x, reinterpret_cast<float*>(uintptr_t{0x2000}), 256), {8, 8}},
  };
}

class CompileForTarget : public testing::TestWithParam<std::tuple<TargetCase, int>> {};

TEST_P(CompileForTarget, BinaryMatchesTheLaunchInterface) {
  const auto& [c, arch] = GetParam();
  auto& fn = TritonJitFunction::get(test::kernel(c.file), c.function);
  struct ResetTarget {
    ~ResetTarget() { triton_jit::set_target(std::nullopt); }
  } reset;
  triton_jit::set_target(Target::parse("cuda:" + std::to_string(arch)));
  const KernelInfo& k = fn.compile(test::config(), test::span(c.args));
  EXPECT_EQ(k.target.arch, arch);
  ASSERT_TRUE(cubin::is_elf64(bytes(k), k.cubin.size()));
  EXPECT_EQ(cubin::sm_version(bytes(k)), arch);
  EXPECT_EQ(k.name, c.function);
  EXPECT_TRUE(cubin::find_section(bytes(k), ".text." + k.name).has_value());
  EXPECT_EQ(triton_jit::test::launch_metadata(k).scratch_params, expected_scratch_params(k));
  EXPECT_EQ(param_sizes(k), with_scratch(c.runtime_param_sizes, k));
  EXPECT_EQ(k.triton_version, triton_jit::triton_version());
  EXPECT_TRUE(test::contains(triton_jit::test::launch_metadata(k).metadata_json, "\"arch\": " + std::to_string(arch)))
      << triton_jit::test::launch_metadata(k).metadata_json;
}

INSTANTIATE_TEST_SUITE_P(Kernels, CompileForTarget,
                         testing::Combine(testing::ValuesIn(target_cases()), testing::Values(90, 80)),
                         [](const testing::TestParamInfo<std::tuple<TargetCase, int>>& info) {
                           const TargetCase& c = std::get<0>(info.param);
                           return std::string(c.function) + "_" + std::to_string(info.index / 2) + "_sm" +
                                  std::to_string(std::get<1>(info.param));
                         });

}  // namespace

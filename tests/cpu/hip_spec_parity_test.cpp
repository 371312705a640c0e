// Parity of the runtime's HIP specialization with Triton's own HIP binder: for random calls of the
// parity kernels, with every pointer either of unknown size or in a buffer of a random known size
// (at and around 2^31 - 1 bytes, empty), TritonJitFunction::specialize(...).triton_repr() for
// hip:gfx942 (wave64) and hip:gfx1100 (wave32) must equal the repr of the list the binder Triton's
// JIT builds with the HIP backend (tests/support/triton_reference.py; a pointer of known size is a
// stand-in with ptr_range(), which HIPBackend.is_within_2gb reads). Triton's 'S' flag follows its
// knobs.amd.use_buffer_ops, off by default up to 3.5 and on from 3.6: each Triton is compared with
// itself. The compiled kernel is Triton's too: same hash, same code object.
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "../support/python_reference.h"
#include "arg_gen.h"
#include "bridge/interpreter.h"
#include "test_util.h"

namespace py = pybind11;
using triton_jit::ArgValue;
using triton_jit::Target;
using triton_jit::TritonJitFunction;

namespace {

using triton_jit::test::triton_reference;

// The explicit target for one test, unset after it.
struct ScopedTarget {
  explicit ScopedTarget(const std::string& text) { triton_jit::set_target(Target::parse(text)); }
  ~ScopedTarget() { triton_jit::set_target(std::nullopt); }
};

using K = ArgValue::Kind;

// A call's arguments, with the size of each pointer's buffer (-1: unknown).
struct Call {
  std::vector<ArgValue> args;
  std::vector<int64_t> storage;
};

py::object to_python(const ArgValue& a, int64_t storage) {
  switch (a.kind()) {
    case K::None: return py::none();
    case K::Bool: return py::bool_(a.as_bool());
    case K::Int: return py::int_(a.as_int());
    case K::UInt: return py::int_(a.as_uint());
    case K::Float: return py::float_(a.as_float());
    case K::Pointer: {
      const std::string dtype(triton_jit::dtype_name(a.dtype()));
      if (storage < 0) return triton_reference().attr("make_pointer")(py::int_(a.address()), dtype);
      return triton_reference().attr("make_pointer")(py::int_(a.address()), dtype, py::int_(storage));
    }
    case K::String: return py::str(a.as_string().data(), a.as_string().size());
    case K::DType: {
      const std::string_view name = a.is_torch_dtype() ? triton_jit::torch_name(a.dtype())
                                                       : triton_jit::triton_language_name(a.dtype());
      return triton_reference().attr("make_dtype")(std::string(name), a.is_torch_dtype());
    }
    case K::TensorDesc: break;
  }
  return py::none();
}

// A buffer size around the boundary Triton's HIP backend checks, or -1 for a pointer of unknown size.
int64_t random_storage(test::ArgGenerator& gen) {
  static const int64_t kSizes[] = {-1,
                                   -1,
                                   0,
                                   1,
                                   4096,
                                   (int64_t{1} << 31) - 2,
                                   (int64_t{1} << 31) - 1,
                                   int64_t{1} << 31,
                                   (int64_t{1} << 31) + 1,
                                   int64_t{1} << 40};
  return kSizes[gen.pick(std::size(kSizes))];
}

bool torch_available() {
  static const bool available = [] {
    triton_jit::bridge::GilGuard gil;
    return triton_reference().attr("has_torch")().cast<bool>();
  }();
  return available;
}

struct Case {
  const char* file;
  const char* function;
  const char* target;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.file << ":" << c.function << " on " << c.target; }

class HipParity : public testing::TestWithParam<Case> {};

constexpr int kCalls = 1500;

TEST_P(HipParity, RandomCallsMatchTritonsHipBinder) {
  const Case c = GetParam();
  const ScopedTarget target(c.target);
  const std::string path = test::canonical(test::kernel(c.file));
  auto& fn = TritonJitFunction::get(path, c.function);
  const auto& params = fn.signature().params;
  const size_t n = params.size();
  size_t min_args = n;
  while (min_args > 0 && params[min_args - 1].default_value && params[min_args - 1].default_value->representable) {
    --min_args;
  }

  test::ArgGenerator gen(0x6869707370656331ull ^ std::hash<std::string>{}(std::string(c.function) + c.target));
  gen.torch_dtypes = torch_available();
  std::vector<Call> calls;
  std::vector<std::string> ours;
  int sized = 0, within = 0;
  for (int k = 0; k < kCalls; ++k) {
    Call call;
    const size_t count = min_args + gen.pick(n - min_args + 1);
    for (size_t i = 0; i < count; ++i) {
      ArgValue a = gen.for_param(params[i]);
      int64_t storage = -1;
      if (a.kind() == K::Pointer) {
        storage = random_storage(gen);
        if (storage >= 0) {
          a = ArgValue::pointer_in_storage(reinterpret_cast<const void*>(static_cast<uintptr_t>(a.address())),
                                           a.dtype(), 0, static_cast<uint64_t>(storage));
          ++sized;
          within += storage <= 0x7fffffff;
        }
      }
      call.args.push_back(a);
      call.storage.push_back(storage);
    }
    bool runtime_dtype = false;
    for (size_t i = 0; i < count; ++i) runtime_dtype |= !params[i].is_constexpr && call.args[i].kind() == K::DType;
    try {
      ours.push_back(fn.specialize(test::config(), test::span(call.args)).triton_repr());
    } catch (const triton_jit::ArgumentError& e) {
      ours.push_back(runtime_dtype ? "error: TypeError" : std::string("C++ threw: ") + e.what());
    } catch (const triton_jit::Error& e) {
      ours.push_back(std::string("C++ threw: ") + e.what());
    }
    calls.push_back(std::move(call));
  }
  std::printf("%s on %s: %d random calls, %d pointers of known size (%d within 2 GiB)\n", c.function, c.target, kCalls,
              sized, within);

  std::vector<std::string> theirs;
  {
    triton_jit::bridge::GilGuard gil;
    py::object jit_fn = triton_jit::bridge::bridge().attr("load_function")(path, c.function)[py::int_(0)];
    py::list py_calls;
    for (const Call& call : calls) {
      py::tuple t(call.args.size());
      for (size_t i = 0; i < call.args.size(); ++i) t[i] = to_python(call.args[i], call.storage[i]);
      py_calls.append(py::make_tuple(t, py::dict()));
    }
    py::object gpu_target = triton_reference().attr("hip_target")(c.target);
    for (auto r : triton_reference().attr("triton_specialization")(jit_fn, py_calls, gpu_target)) {
      theirs.push_back(r.cast<std::string>());
    }
  }
  ASSERT_EQ(theirs.size(), calls.size());
  int mismatches = 0, with_s = 0;
  for (size_t k = 0; k < calls.size(); ++k) {
    with_s += theirs[k].find("S')") != std::string::npos;
    if (ours[k] == theirs[k]) continue;
    if (++mismatches > 15) continue;
    std::string shown;
    for (size_t i = 0; i < calls[k].args.size(); ++i) {
      shown += (i ? ", " : "") + test::describe(calls[k].args[i]);
      if (calls[k].storage[i] >= 0) shown += " [storage " + std::to_string(calls[k].storage[i]) + " B]";
    }
    ADD_FAILURE() << c.function << "(" << shown << ")\n  C++:    " << ours[k] << "\n  Triton: " << theirs[k];
  }
  EXPECT_EQ(mismatches, 0) << "of " << calls.size() << " calls";
  EXPECT_GT(sized, kCalls / 8) << "the calls should include pointers of known size";
  bool buffer_ops;
  {
    triton_jit::bridge::GilGuard gil;
    const Target t = Target::parse(c.target);
    buffer_ops = triton_jit::bridge::bridge()
                     .attr("hip_target_rules")(py::make_tuple(t.backend, t.arch, t.warp_size))
                     .cast<py::tuple>()[1]
                     .cast<bool>();
  }
  // Where Triton adds 'S' at all, the random calls reach it.
  if (buffer_ops && within > 0) EXPECT_GT(with_s, 0);
  if (!buffer_ops) EXPECT_EQ(with_s, 0);
}

std::vector<Case> cases() {
  static const std::pair<const char*, const char*> kKernels[] = {{"generic.py", "generic_kernel"},
                                                                 {"generic.py", "const_kernel"},
                                                                 {"add.py", "add_kernel"},
                                                                 {"annotated.py", "annotated_kernel"},
                                                                 {"scalars.py", "scalars_kernel"},
                                                                 {"do_not_specialize.py", "dns_kernel"},
                                                                 {"defaults.py", "defaults_kernel"},
                                                                 {"wrapped.py", "stacked_kernel.fn.fn"},
                                                                 {"dtype_constexpr.py", "scale_kernel"},
                                                                 {"dtype_default.py", "cast_kernel"}};
  std::vector<Case> out;
  for (const char* target : {"hip:gfx942", "hip:gfx1100"}) {
    for (const auto& [file, function] : kKernels) out.push_back(Case{file, function, target});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Kernels, HipParity, testing::ValuesIn(cases()), [](const testing::TestParamInfo<Case>& info) {
  std::string name = std::string(info.param.function) + "_" + (info.param.target + 4);
  for (char& ch : name) ch = ch == '.' ? '_' : ch;
  return name;
});

// ---- the compiled kernel: what triton.compile builds for the HIP target from Triton's binder ----

TEST(HipCompileParity, SameHashAndCodeObjectAsTritonsCompile) {
  // Triton 3.4 links the hsaco with ROCm's ld.lld, which a machine without ROCm lacks.
  if (!triton_jit::test::triton_links_hsaco())
    GTEST_SKIP() << "Triton " << triton_jit::triton_version() << " needs ROCm's ld.lld to link";
  const std::string path = test::canonical(test::kernel("add.py"));
  auto& fn = TritonJitFunction::get(path, "add_kernel");
  for (const char* target_text : {"hip:gfx942", "hip:gfx1100"}) {
    SCOPED_TRACE(target_text);
    const ScopedTarget target(target_text);
    // x in a 4 KiB buffer ('S' where Triton adds it), y of unknown size, out in a 3 GiB buffer.
    const std::vector<ArgValue> args = {ArgValue::pointer_in_storage(reinterpret_cast<const void*>(uintptr_t{0x1000}),
                                                                     triton_jit::DType::fp32, 0, 4096),
                                        test::ptr(0x2000),
                                        ArgValue::pointer_in_storage(reinterpret_cast<const void*>(uintptr_t{0x3000}),
                                                                     triton_jit::DType::fp32, 0, uint64_t{3} << 30),
                                        ArgValue::integer(1000), ArgValue::integer(256)};
    const std::vector<int64_t> storage = {4096, -1, int64_t{3} << 30, -1, -1};
    const triton_jit::KernelInfo& k = fn.compile(test::config(), test::span(args));
    EXPECT_EQ(k.target.str(), target_text);
    // Ahead of time, from the signature syntax (":S" for the flag): the same kernel.
    const std::string signature = fn.specialize(test::config(), test::span(args)).signature();
    triton_jit::CompileRequest request{signature};
    request.num_stages = 3;  // as test::config() states it
    request.target = Target::parse(target_text);
    EXPECT_EQ(fn.compile(request).hash, k.hash) << signature;
    triton_jit::bridge::GilGuard gil;
    py::object jit_fn = triton_jit::bridge::bridge().attr("load_function")(path, "add_kernel")[py::int_(0)];
    py::tuple py_args(args.size());
    for (size_t i = 0; i < args.size(); ++i) py_args[i] = to_python(args[i], storage[i]);
    py::dict kwargs;
    kwargs["num_warps"] = 4;
    kwargs["num_stages"] = 3;
    py::object r = triton_reference().attr("triton_compile")(jit_fn, py_args, kwargs,
                                                             triton_reference().attr("hip_target")(target_text));
    if (r.is_none()) GTEST_SKIP() << "this Triton has no JITFunction._pack_args to compile the reference with";
    EXPECT_EQ(k.hash, r[py::int_(0)].cast<std::string>());
    EXPECT_TRUE(k.cubin == r[py::int_(1)].cast<std::string>()) << "the code objects differ";
  }
}

// ---- num_stages left to the target: Triton's launch without num_stages ----

// x in a 4 KiB buffer, y of unknown size, out in a 3 GiB buffer (the calls above).
struct AddCall {
  std::vector<ArgValue> args = {
      ArgValue::pointer_in_storage(reinterpret_cast<const void*>(uintptr_t{0x1000}), triton_jit::DType::fp32, 0, 4096),
      test::ptr(0x2000),
      ArgValue::pointer_in_storage(reinterpret_cast<const void*>(uintptr_t{0x3000}), triton_jit::DType::fp32, 0,
                                   uint64_t{3} << 30),
      ArgValue::integer(1000), ArgValue::integer(256)};
  std::vector<int64_t> storage = {4096, -1, int64_t{3} << 30, -1, -1};
};

py::object add_function(const std::string& path) {
  return triton_jit::bridge::bridge().attr("load_function")(path, "add_kernel")[py::int_(0)];
}

py::tuple python_args(const AddCall& call) {
  py::tuple out(call.args.size());
  for (size_t i = 0; i < call.args.size(); ++i) out[i] = to_python(call.args[i], call.storage[i]);
  return out;
}

// GPUTarget's fields for "hip:gfx942" or "cuda:90".
py::object gpu_target(const char* text) {
  if (std::string(text) == "cuda:90") return py::make_tuple("cuda", 90, 32);
  return triton_reference().attr("hip_target")(text);
}

// Launch options as Triton's launch takes them: num_warps=4, and num_stages only where given.
py::dict launch_kwargs(std::optional<int> num_stages) {
  py::dict kwargs;
  kwargs["num_warps"] = 4;
  if (num_stages) kwargs["num_stages"] = *num_stages;
  return kwargs;
}

// A call that leaves num_stages to the target is keyed with the num_stages Triton's own launch
// compiles with (HIPOptions' default 2 on AMD, CUDAOptions' 3 on NVIDIA); a stated one, 3
// included, is kept, on AMD too.
TEST(HipTargetNumStages, ALaunchWithoutNumStagesKeysTritonsDefault) {
  const std::string path = test::canonical(test::kernel("add.py"));
  auto& fn = TritonJitFunction::get(path, "add_kernel");
  const AddCall call;
  for (const char* target_text : {"hip:gfx942", "hip:gfx1100", "cuda:90"}) {
    SCOPED_TRACE(target_text);
    const ScopedTarget target(target_text);
    const bool hip = std::string(target_text).rfind("hip:", 0) == 0;
    triton_jit::LaunchConfig unset;
    EXPECT_EQ(unset.num_stages, triton_jit::kTargetDefaultNumStages);
    const triton_jit::Specialization spec = fn.specialize(unset, test::span(call.args));
    int tritons = 0;
    {
      triton_jit::bridge::GilGuard gil;
      tritons = triton_reference()
                    .attr("triton_num_stages")(add_function(path), python_args(call), launch_kwargs(std::nullopt),
                                               gpu_target(target_text))
                    .cast<int>();
    }
    EXPECT_EQ(spec.num_stages, tritons) << "Triton's launch without num_stages compiles with " << tritons;
    EXPECT_EQ(spec.num_stages, hip ? 2 : triton_jit::kDefaultNumStages);
    EXPECT_EQ(triton_jit::target_num_stages(triton_jit::kTargetDefaultNumStages, Target::parse(target_text)),
              spec.num_stages);
    // The kernel key names the number: the default and the same number stated are one kernel.
    triton_jit::LaunchConfig same = unset;
    same.num_stages = spec.num_stages;
    EXPECT_EQ(fn.specialize(same, test::span(call.args)).num_stages, spec.num_stages);
    for (int stated : {0, 2, 3, 4}) {  // 0 is legal on AMD: no pipelining
      triton_jit::LaunchConfig c;
      c.num_stages = stated;
      EXPECT_EQ(fn.specialize(c, test::span(call.args)).num_stages, stated);
      EXPECT_EQ(triton_jit::target_num_stages(stated, Target::parse(target_text)), stated);
      triton_jit::bridge::GilGuard gil;
      EXPECT_EQ(triton_reference()
                    .attr("triton_num_stages")(add_function(path), python_args(call), launch_kwargs(stated),
                                               gpu_target(target_text))
                    .cast<int>(),
                stated);
    }
  }
}

// A grid function reads the number the kernel compiles with, never the sentinel.
TEST(HipTargetNumStages, AGridFunctionSeesTheTargetsDefault) {
  auto& fn = TritonJitFunction::get(test::canonical(test::kernel("add.py")), "add_kernel");
  const AddCall call;
  for (const char* target_text : {"hip:gfx942", "cuda:90"}) {
    SCOPED_TRACE(target_text);
    const ScopedTarget target(target_text);
    int seen = -100;
    triton_jit::LaunchConfig c;
    c.grid_fn = [&seen](const triton_jit::GridMeta& meta) {
      seen = meta.num_stages;
      return triton_jit::Grid(1);
    };
    EXPECT_EQ(fn.specialize(c, test::span(call.args)).num_stages, seen);
    EXPECT_EQ(seen, std::string(target_text) == "cuda:90" ? 3 : 2);
    c.num_stages = 3;
    fn.specialize(c, test::span(call.args));
    EXPECT_EQ(seen, 3);
  }
}

// A @triton.heuristics value None for num_stages, and a triton.Config(num_stages=None), leave it
// to the target as Triton's launch does (its parse_options drops a None); a stated value, the
// caller's included, is kept.
TEST(HipTargetNumStages, AHeuristicsNoneAndAConfigsNoneAreTheTargetsDefault) {
  const std::string path = test::canonical(test::kernel("heuristic_options.py"));
  auto& heuristic = TritonJitFunction::get(path, "stages_none_kernel");
  auto& tuned = TritonJitFunction::get(path, "config_stages_none_kernel");
  ASSERT_EQ(tuned.signature().decorators.size(), 1u);
  EXPECT_EQ(tuned.signature().decorators[0].autotune.configs.at(0).num_stages, triton_jit::kTargetDefaultNumStages)
      << tuned.signature().decorators[0].autotune.configs.at(0).repr;
  for (const char* target_text : {"hip:gfx942", "cuda:90"}) {
    SCOPED_TRACE(target_text);
    const ScopedTarget target(target_text);
    const int expected = std::string(target_text) == "cuda:90" ? 3 : 2;
    for (const int64_t n : {10, 5000}) {
      const std::vector<ArgValue> args = {test::ptr(0x1000), ArgValue::integer(n)};
      triton_jit::LaunchConfig c;
      c.num_stages = 5;  // the heuristic overrides it, None included
      EXPECT_EQ(heuristic.specialize(c, test::span(args)).num_stages, n < 1000 ? expected : 4) << "n=" << n;
      EXPECT_EQ(heuristic.specialize(c, test::span(args)).num_stages, n < 1000 ? expected : 4) << "memoized, n=" << n;
      EXPECT_EQ(tuned.specialize(triton_jit::LaunchConfig{}, test::span(args)).num_stages, expected) << "n=" << n;
    }
  }
}

// The kernel itself: a launch without num_stages compiles what triton.compile builds from
// Triton's launch without it (another kernel than with num_stages=3, which stays 3); a
// CompileRequest without num_stages is the same kernel.
TEST(HipCompileParity, ALaunchWithoutNumStagesCompilesTritonsOwnKernel) {
  if (!triton_jit::test::triton_links_hsaco())
    GTEST_SKIP() << "Triton " << triton_jit::triton_version() << " needs ROCm's ld.lld to link";
  const std::string path = test::canonical(test::kernel("add.py"));
  auto& fn = TritonJitFunction::get(path, "add_kernel");
  const AddCall call;
  const ScopedTarget target("hip:gfx942");
  triton_jit::LaunchConfig unset;
  triton_jit::LaunchConfig three;
  three.num_stages = 3;
  triton_jit::LaunchConfig two;
  two.num_stages = 2;
  const triton_jit::KernelInfo& by_default = fn.compile(unset, test::span(call.args));
  const triton_jit::KernelInfo& by_three = fn.compile(three, test::span(call.args));
  EXPECT_NE(by_default.hash, by_three.hash) << "num_stages=3 is not HIP's default";
  EXPECT_EQ(&fn.compile(two, test::span(call.args)), &by_default) << "the default is 2: one kernel";
  triton_jit::CompileRequest request{fn.specialize(unset, test::span(call.args)).signature()};
  request.target = Target::parse("hip:gfx942");
  EXPECT_EQ(fn.compile(request).hash, by_default.hash);
  request.num_stages = 3;
  EXPECT_EQ(fn.compile(request).hash, by_three.hash);
  triton_jit::bridge::GilGuard gil;
  for (const auto& [stages, hash] : {std::pair<std::optional<int>, std::string>{std::nullopt, by_default.hash},
                                     std::pair<std::optional<int>, std::string>{3, by_three.hash}}) {
    py::object r = triton_reference().attr("triton_compile")(add_function(path), python_args(call),
                                                             launch_kwargs(stages),
                                                             triton_reference().attr("hip_target")("hip:gfx942"));
    if (r.is_none()) GTEST_SKIP() << "this Triton has no JITFunction._pack_args to compile the reference with";
    EXPECT_EQ(hash, r[py::int_(0)].cast<std::string>())
        << "num_stages " << (stages ? std::to_string(*stages) : "unset");
  }
}

TEST(HipTargets, AProcessorTritonCannotBuildIsRefusedBeforeSpecializing) {
  const ScopedTarget target("hip:gfx9999");
  auto& fn = TritonJitFunction::get(test::canonical(test::kernel("add.py")), "add_kernel");
  const std::vector<ArgValue> args = {test::ptr(0x1000), test::ptr(0x2000), test::ptr(0x3000), ArgValue::integer(1000),
                                      ArgValue::integer(256)};
  try {
    fn.specialize(test::config(), test::span(args));
    ADD_FAILURE() << "specialized for hip:gfx9999";
  } catch (const triton_jit::ArgumentError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(test::contains(what, "hip:gfx9999")) << what;
    EXPECT_TRUE(test::contains(what, "hip:gfx942")) << what;  // the processors Triton builds
    EXPECT_EQ(e.parameter(), "target");
  }
}

TEST(HipTargets, CudaKeysIgnoreBufferSizes) {
  // The 'S' flag is HIP's: a CUDA specialization of the same call has none.
  const ScopedTarget target("cuda:90");
  auto& fn = TritonJitFunction::get(test::canonical(test::kernel("add.py")), "add_kernel");
  const std::vector<ArgValue> args = {
      ArgValue::pointer_in_storage(reinterpret_cast<const void*>(uintptr_t{0x1000}), triton_jit::DType::fp32, 0, 64),
      test::ptr(0x2000), test::ptr(0x3000), ArgValue::integer(1000), ArgValue::integer(256)};
  EXPECT_EQ(fn.specialize(test::config(), test::span(args)).signature(), "*fp32:16,*fp32:16,*fp32:16,i32,256");
}

}  // namespace

namespace {

TEST(HipTargets, APointersBufferSizeDecidesTheFlagAndKeepsItsExtent) {
  const void* p = reinterpret_cast<const void*>(uintptr_t{0x1000});
  using triton_jit::DType;
  // TypedPtr::bytes: 0 is unknown; a known size up to 2^31 - 1 bytes is within 2 GiB.
  EXPECT_FALSE(triton_jit::ArgConverter<triton_jit::TypedPtr>::convert({p, DType::fp16, 0}).within_2gb());
  EXPECT_TRUE(triton_jit::ArgConverter<triton_jit::TypedPtr>::convert({p, DType::fp16, 0x7fffffff}).within_2gb());
  EXPECT_FALSE(triton_jit::ArgConverter<triton_jit::TypedPtr>::convert({p, DType::fp16, 0x80000000}).within_2gb());
  EXPECT_FALSE(ArgValue::pointer(p, DType::fp32).within_2gb());  // a typed C++ pointer: size unknown
  // A framework's storage: its size decides, the span an autotuner writes stays the extent.
  const ArgValue view = ArgValue::pointer_in_storage(p, DType::fp32, 4096, uint64_t{3} << 30);
  EXPECT_FALSE(view.within_2gb());
  EXPECT_EQ(view.extent(), 4096u);
  const ArgValue empty = ArgValue::pointer_in_storage(p, DType::fp32, 0, 0);  // an empty storage is known
  EXPECT_TRUE(empty.within_2gb());
  EXPECT_EQ(empty.extent(), 0u);
  // Extents up to 2^46 - 1 bytes are kept; beyond, unknown (and the buffer is over 2 GiB).
  const uint64_t big = (uint64_t{1} << 46) - 16;
  EXPECT_EQ(ArgValue::pointer(p, DType::u8, big).extent(), big);
  EXPECT_EQ(ArgValue::pointer(p, DType::u8, uint64_t{1} << 46).extent(), 0u);
  EXPECT_FALSE(ArgValue::pointer(p, DType::u8, uint64_t{1} << 46).within_2gb());
  EXPECT_EQ(ArgValue::pointer(p, DType::u8, 0x7fffffff).extent(), 0x7fffffffu);
}

}  // namespace

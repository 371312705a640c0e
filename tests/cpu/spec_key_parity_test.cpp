// Parity of the C++ specialization (src/spec_key.cpp) with Triton's own binder: for thousands of
// random calls per kernel, TritonJitFunction::specialize(...).triton_repr() must equal the repr
// of the specialization list that the binder Triton's JIT builds for the same function returns
// (tests/support/triton_reference.py runs create_function_from_signature + native_specialize_impl).
// For dtype constexprs, also the compiled kernel: the one Triton's JIT compiles for the same call.
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdio>
#include <functional>
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
using triton_jit::TritonJitFunction;

namespace {

// tests/support/triton_reference.py, imported into the runtime's interpreter. Call with the GIL.
using triton_jit::test::triton_reference;

// Whether torch imports: torch-spelled dtypes take part only then (requirements.txt has no torch).
bool torch_available() {
  static const bool available = [] {
    triton_jit::bridge::GilGuard gil;
    return triton_reference().attr("has_torch")().cast<bool>();
  }();
  return available;
}

using K = ArgValue::Kind;

py::object to_python(const ArgValue& a) {
  switch (a.kind()) {
    case K::None: return py::none();
    case K::Bool: return py::bool_(a.as_bool());
    case K::Int: return py::int_(a.as_int());
    case K::UInt: return py::int_(a.as_uint());
    case K::Float: return py::float_(a.as_float());
    case K::Pointer:
      return triton_reference().attr("make_pointer")(py::int_(a.address()),
                                                     std::string(triton_jit::dtype_name(a.dtype())));
    case K::String: return py::str(a.as_string().data(), a.as_string().size());
    case K::DType: {
      const std::string_view name = a.is_torch_dtype() ? triton_jit::torch_name(a.dtype())
                                                       : triton_jit::triton_language_name(a.dtype());
      return triton_reference().attr("make_dtype")(std::string(name), a.is_torch_dtype());
    }
  }
  return py::none();
}

struct Kernel {
  const char* file;
  const char* function;
  bool gluon = false;  // a @gluon.jit function: Triton 3.4 refuses it (gluon_test.cpp checks the error)
};

// Whether the runtime's Triton compiles Gluon kernels for a target (3.5 and newer).
bool triton_compiles_gluon() {
  int major = 0, minor = 0;
  std::sscanf(triton_jit::triton_version().c_str(), "%d.%d", &major, &minor);
  return major > 3 || (major == 3 && minor >= 5);
}

void PrintTo(const Kernel& k, std::ostream* os) { *os << k.file << ":" << k.function; }

class Parity : public testing::TestWithParam<Kernel> {};

constexpr int kCalls = 4000;

TEST_P(Parity, RandomCallsMatchTritonsBinder) {
  const Kernel k = GetParam();
  const std::string path = test::canonical(test::kernel(k.file));
  if (k.gluon && !triton_compiles_gluon()) {
    EXPECT_THROW(TritonJitFunction::get(path, k.function), triton_jit::KernelLookupError);
    return;
  }
  auto& fn = TritonJitFunction::get(path, k.function);
  const auto& params = fn.signature().params;
  const size_t n = params.size();
  // The shortest call: trailing parameters with usable defaults may be left out.
  size_t min_args = n;
  while (min_args > 0 && params[min_args - 1].default_value && params[min_args - 1].default_value->representable) {
    --min_args;
  }

  // Seeded per kernel so a failure reproduces alone.
  test::ArgGenerator gen(0x7269746f6e6a6974ull ^ std::hash<std::string>{}(k.function));
  gen.torch_dtypes = torch_available();
  std::vector<std::vector<ArgValue>> calls;
  std::vector<std::string> ours;
  int with_dtype = 0, with_torch_dtype = 0, rejected = 0;
  for (int c = 0; c < kCalls; ++c) {
    const size_t count = min_args + gen.pick(n - min_args + 1);
    std::vector<ArgValue> args;
    for (size_t i = 0; i < count; ++i) args.push_back(gen.for_param(params[i]));
    bool runtime_dtype = false;  // a dtype given to a runtime parameter: both sides reject the call
    for (size_t i = 0; i < count; ++i) runtime_dtype |= !params[i].is_constexpr && args[i].kind() == K::DType;
    with_dtype += std::any_of(args.begin(), args.end(), [](const ArgValue& a) { return a.kind() == K::DType; });
    with_torch_dtype += std::any_of(args.begin(), args.end(), [](const ArgValue& a) { return a.is_torch_dtype(); });
    try {
      ours.push_back(fn.specialize(test::config(), test::span(args)).triton_repr());
    } catch (const triton_jit::ArgumentError& e) {
      // Where the binder raises TypeError (a dtype for a runtime parameter), the runtime raises
      // ArgumentError.
      ours.push_back(runtime_dtype ? "error: TypeError" : std::string("C++ threw: ") + e.what());
      rejected += runtime_dtype;
    } catch (const triton_jit::Error& e) {
      ours.push_back(std::string("C++ threw: ") + e.what());
    }
    calls.push_back(std::move(args));
  }
  std::printf("%s: %d random calls, %d with dtypes (%d torch-spelled), %d with a dtype for a runtime parameter\n",
              k.function, kCalls, with_dtype, with_torch_dtype, rejected);

  std::vector<std::string> theirs;
  {
    triton_jit::bridge::GilGuard gil;
    py::module_& bridge = triton_jit::bridge::bridge();
    py::object jit_fn = bridge.attr("load_function")(path, k.function)[py::int_(0)];
    py::list py_calls;
    for (const auto& args : calls) {
      py::tuple t(args.size());
      for (size_t i = 0; i < args.size(); ++i) t[i] = to_python(args[i]);
      py_calls.append(py::make_tuple(t, py::dict()));
    }
    for (auto r : triton_reference().attr("triton_specialization")(jit_fn, py_calls))
      theirs.push_back(r.cast<std::string>());
  }
  ASSERT_EQ(theirs.size(), calls.size());

  int mismatches = 0;
  for (size_t c = 0; c < calls.size(); ++c) {
    if (ours[c] == theirs[c]) continue;
    if (++mismatches > 15) continue;
    std::string args;
    for (const ArgValue& a : calls[c]) args += (args.empty() ? "" : ", ") + test::describe(a);
    ADD_FAILURE() << k.function << "(" << args << ")\n  C++:    " << ours[c] << "\n  Triton: " << theirs[c];
  }
  EXPECT_EQ(mismatches, 0) << "of " << calls.size() << " calls";
  EXPECT_GT(with_dtype, kCalls / 20) << "the calls should include dtypes";
  if (torch_available()) EXPECT_GT(with_torch_dtype, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, Parity,
    testing::Values(Kernel{"generic.py", "generic_kernel"}, Kernel{"generic.py", "const_kernel"},
                    Kernel{"add.py", "add_kernel"}, Kernel{"annotated.py", "annotated_kernel"},
                    Kernel{"scalars.py", "scalars_kernel"}, Kernel{"do_not_specialize.py", "dns_kernel"},
                    Kernel{"defaults.py", "defaults_kernel"}, Kernel{"wrapped.py", "stacked_kernel.fn.fn"},
                    Kernel{"dtype_constexpr.py", "scale_kernel"}, Kernel{"dtype_default.py", "cast_kernel"},
                    Kernel{"gluon_kernels.py", "generic_gluon_kernel", true},
                    Kernel{"gluon_kernels.py", "scale_add_kernel", true},
                    Kernel{"gluon_kernels.py", "row_sum_kernel", true}),
    [](const testing::TestParamInfo<Kernel>& info) {
      std::string name = info.param.function;  // "stacked_kernel.fn.fn": the function under its wrappers
      for (char& c : name) c = c == '.' ? '_' : c;
      return name;
    });

// ---- compiling: the kernel for a dtype constexpr is the one Triton's own JIT compiles ----

// (hash, cubin) of what Triton's JIT compiles for the same call (triton_reference.triton_compile:
// the binder, _pack_args, ASTSource, triton.compile), with num_warps 4 and num_stages 3.
std::pair<std::string, std::string> tritons_kernel(const std::string& path, const char* function,
                                                   const std::vector<ArgValue>& args) {
  triton_jit::bridge::GilGuard gil;
  py::object jit_fn = triton_jit::bridge::bridge().attr("load_function")(path, function)[py::int_(0)];
  py::tuple py_args(args.size());
  for (size_t i = 0; i < args.size(); ++i) py_args[i] = to_python(args[i]);
  py::dict kwargs;
  kwargs["num_warps"] = 4;
  kwargs["num_stages"] = 3;
  py::object r = triton_reference().attr("triton_compile")(jit_fn, py_args, kwargs);
  if (r.is_none()) return {};  // this Triton packs inside run(): no separate reference path
  return {r[py::int_(0)].cast<std::string>(), r[py::int_(1)].cast<std::string>()};
}

TEST(CompileParity, DTypeConstexprsCompileAsTritonsJitDoes) {
  const std::string path = test::canonical(test::kernel("dtype_constexpr.py"));
  auto& fn = TritonJitFunction::get(path, "scale_kernel");
  std::vector<std::string> hashes;
  for (const ArgValue dtype :
       {ArgValue::triton_dtype(triton_jit::DType::fp16), ArgValue::torch_dtype(triton_jit::DType::fp16),
        ArgValue::torch_dtype(triton_jit::DType::bf16), ArgValue::triton_dtype(triton_jit::DType::fp8e5)}) {
    SCOPED_TRACE(test::describe(dtype));
    if (dtype.is_torch_dtype() && !torch_available()) continue;
    const std::vector<ArgValue> args = {test::ptr(0x1000), ArgValue::integer(100), dtype};  // OUT_DTYPE: default
    const triton_jit::KernelInfo& k = fn.compile(test::config(), test::span(args));
    const auto [hash, cubin] = tritons_kernel(path, "scale_kernel", args);
    if (hash.empty()) GTEST_SKIP() << "this Triton has no JITFunction._pack_args to compile the reference with";
    EXPECT_EQ(k.hash, hash);
    EXPECT_TRUE(k.cubin == cubin) << "the cubins differ";
    hashes.push_back(k.hash);
  }
  // The spellings are different kernels, as in Triton.
  ASSERT_GE(hashes.size(), 2u);
  EXPECT_NE(hashes[0], hashes[1]);

  // A dtype default: the kernel Triton compiles when the parameter is left out.
  const std::string default_path = test::canonical(test::kernel("dtype_default.py"));
  auto& cast = TritonJitFunction::get(default_path, "cast_kernel");
  const std::vector<ArgValue> args = {test::ptr(0x1000), ArgValue::integer(100)};
  const triton_jit::KernelInfo& k = cast.compile(test::config(), test::span(args));
  EXPECT_EQ(k.hash, tritons_kernel(default_path, "cast_kernel", args).first);
  const std::vector<ArgValue> explicit_args = {test::ptr(0x1000), ArgValue::integer(100),
                                               ArgValue::triton_dtype(triton_jit::DType::fp16)};
  EXPECT_EQ(&cast.compile(test::config(), test::span(explicit_args)), &k);
}

TEST(CompileParity, GluonKernelsCompileAsTritonsJitDoes) {
  // Through GluonASTSource, as GluonJITFunction.run compiles them: the same hash and cubin.
  if (!triton_compiles_gluon()) GTEST_SKIP() << "Triton " << triton_jit::triton_version() << " refuses Gluon kernels";
  const std::string path = test::canonical(test::kernel("gluon_kernels.py"));
  struct Call {
    const char* function;
    std::vector<ArgValue> args;
  };
  const std::vector<Call> calls = {
      {"scale_add_kernel",
       {test::ptr(0x1000), test::ptr(0x2000), test::ptr(0x3000), ArgValue::integer(5000), ArgValue::floating(0.5),
        ArgValue::integer(512), ArgValue::integer(4), ArgValue::integer(4)}},
      {"scale_add_kernel",
       {test::ptr(0x1000, triton_jit::DType::fp16), test::ptr(0x2004, triton_jit::DType::fp16),
        test::ptr(0x3000, triton_jit::DType::fp16), ArgValue::integer(4096), ArgValue::floating(2.0),
        ArgValue::integer(1024), ArgValue::integer(8), ArgValue::integer(4)}},
      {"row_sum_kernel",
       {test::ptr(0x1000, triton_jit::DType::bf16), test::ptr(0x2000), ArgValue::integer(300), ArgValue::integer(1000),
        ArgValue::integer(1024), ArgValue::integer(16), ArgValue::integer(64), ArgValue::integer(4)}},
  };
  for (const Call& c : calls) {
    std::string shown;
    for (const ArgValue& a : c.args) shown += (shown.empty() ? "" : ", ") + test::describe(a);
    SCOPED_TRACE(std::string(c.function) + "(" + shown + ")");
    auto& fn = TritonJitFunction::get(path, c.function);
    const triton_jit::KernelInfo& k = fn.compile(test::config(), test::span(c.args));
    const auto [hash, cubin] = tritons_kernel(path, c.function, c.args);
    ASSERT_FALSE(hash.empty());  // 3.5 and newer have _pack_args
    EXPECT_EQ(k.hash, hash);
    EXPECT_TRUE(k.cubin == cubin) << "the cubins differ";
    // Ahead of time, from Triton's signature syntax (a pack's manifest line): the same kernel.
    const std::string signature = fn.specialize(test::config(), test::span(c.args)).signature();
    const triton_jit::KernelInfo ahead = fn.compile(triton_jit::CompileRequest{signature});
    EXPECT_EQ(ahead.hash, hash) << signature;
  }
}

TEST(CompileParity, ATorchDTypeFailsWhereTritonFails) {
  // Triton cannot .to() a torch dtype ("'torch.dtype' object has no attribute 'scalar'"); the
  // same compile fails the same way here.
  if (!torch_available()) GTEST_SKIP() << "torch cannot be imported";
  const std::string path = test::canonical(test::kernel("dtype_constexpr.py"));
  auto& fn = TritonJitFunction::get(path, "cast_kernel");
  const std::vector<ArgValue> args = {test::ptr(0x1000), test::ptr(0x2000), ArgValue::integer(100),
                                      ArgValue::torch_dtype(triton_jit::DType::fp16)};
  std::string ours;
  try {
    fn.compile(test::config(), test::span(args));
    ADD_FAILURE() << "compiled";
  } catch (const triton_jit::CompileError& e) {
    ours = e.what();
  }
  EXPECT_TRUE(test::contains(ours, "'torch.dtype' object has no attribute 'scalar'")) << ours;
  EXPECT_TRUE(test::contains(ours, "torch.float16")) << ours;  // the signature
  triton_jit::bridge::GilGuard gil;                            // the Python exception lives and dies under the GIL
  try {
    tritons_kernel(path, "cast_kernel", args);
    ADD_FAILURE() << "Triton compiled it";
  } catch (const py::error_already_set& e) {
    EXPECT_TRUE(test::contains(e.what(), "'torch.dtype' object has no attribute 'scalar'")) << e.what();
  }
}

TEST(CompileParity, ATorchDTypeWithoutTorchIsAClearError) {
  // torch is imported only for a torch dtype, at compile time; without it the compile says so.
  const std::string path = test::canonical(test::kernel("dtype_constexpr.py"));
  auto& fn = TritonJitFunction::get(path, "scale_kernel");
  py::object saved;
  {
    triton_jit::bridge::GilGuard gil;
    triton_jit::bridge::bridge();
    py::dict modules = py::module_::import("sys").attr("modules");
    if (modules.contains("torch")) saved = modules["torch"];
    modules["torch"] = py::none();  // `import torch` raises ImportError
  }
  std::string message;
  try {
    // A key no other test compiles: nothing in memory or in the index serves it.
    fn.compile(test::config(1, 2, 1, 1), test::ptr(0x1000), 77, triton_jit::TorchDType{triton_jit::DType::fp64},
               triton_jit::DType::i8, 32);
    ADD_FAILURE() << "compiled without torch";
  } catch (const triton_jit::CompileError& e) {
    message = e.what();
  }
  {
    triton_jit::bridge::GilGuard gil;
    py::dict modules = py::module_::import("sys").attr("modules");
    if (saved) {
      modules["torch"] = saved;
    } else {
      PyDict_DelItemString(modules.ptr(), "torch");
    }
    saved = py::object();
  }
  EXPECT_TRUE(test::contains(message, "torch.float64")) << message;
  EXPECT_TRUE(test::contains(message, "cannot import torch")) << message;
  EXPECT_TRUE(test::contains(message, "ImportError")) << message;
}

// The reference's pointer stand-in must work for every element type the runtime can pass. tl.int32
// prints as "int32" while its canonical name is "i32": comparing the printed name alone misses
// every integer dtype (a bug found by this test).
TEST(ReferenceMakePointer, EveryDType) {
  triton_jit::bridge::GilGuard gil;
  py::object canon = py::module_::import("triton.runtime.jit").attr("type_canonicalisation_dict");
  for (int d = 0; d < triton_jit::kNumDTypes; ++d) {
    const std::string name(triton_jit::dtype_name(static_cast<triton_jit::DType>(d)));
    SCOPED_TRACE(name);
    try {
      py::object p = triton_reference().attr("make_pointer")(4096 + d, name);
      EXPECT_EQ(p.attr("data_ptr")().cast<uint64_t>(), 4096u + d);
      const std::string printed = py::str(p.attr("dtype"));
      EXPECT_EQ(canon.attr("get")(printed, printed).cast<std::string>(), name);
    } catch (py::error_already_set& e) {
      ADD_FAILURE() << "make_pointer(" << name << ") raised " << e.what();
    }
  }
}

}  // namespace

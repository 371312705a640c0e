// Every error the runtime reports without a GPU: its exception type, and a message that names the
// function, the parameter and what was expected.
#include <gtest/gtest.h>

#include <string>

#include "cuda/driver_api.h"
#include "test_util.h"

using triton_jit::ArgumentError;
using triton_jit::ArgValue;
using triton_jit::CompileError;
using triton_jit::KernelLookupError;
using triton_jit::TritonJitFunction;

namespace {

template <typename E, typename F>
E expect_throw(F f) {
  try {
    f();
  } catch (const E& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw another type: " << e.what();
    throw;
  }
  ADD_FAILURE() << "did not throw";
  throw std::logic_error("did not throw");
}

TEST(LookupErrors, MissingFile) {
  const std::string path = test::kernel("no_such_file.py");
  const auto e = expect_throw<KernelLookupError>([&] { TritonJitFunction::get(path, "add_kernel"); });
  EXPECT_TRUE(test::contains(e.what(), "no_such_file.py")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "add_kernel")) << e.what();
  EXPECT_EQ(e.function(), "add_kernel");
  EXPECT_EQ(e.path(), path);
  EXPECT_TRUE(e.traceback().empty());
  // A directory is not a kernel file either.
  expect_throw<KernelLookupError>([] { TritonJitFunction::get(TRITON_JIT_TEST_KERNELS_DIR, "add_kernel"); });
}

TEST(LookupErrors, MissingFunctionListsTheAvailableOnes) {
  const auto e = expect_throw<KernelLookupError>(
      [] { TritonJitFunction::get(test::kernel("mixed_module.py"), "no_such_kernel"); });
  EXPECT_TRUE(test::contains(e.what(), "no_such_kernel")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "real_kernel")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "other_kernel")) << e.what();
  EXPECT_FALSE(test::contains(e.what(), "plain_function")) << e.what();
  EXPECT_EQ(e.function(), "no_such_kernel");
}

TEST(LookupErrors, NotAJitFunction) {
  for (const char* name : {"NOT_A_KERNEL", "plain_function"}) {
    const auto e = expect_throw<KernelLookupError>(
        [&] { TritonJitFunction::get(test::kernel("mixed_module.py"), name); });
    EXPECT_TRUE(test::contains(e.what(), name)) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "not a @triton.jit function")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), std::string(name) == "NOT_A_KERNEL" ? "int" : "function")) << e.what();
  }
}

TEST(LookupErrors, FileThatFailsToImport) {
  const auto e = expect_throw<KernelLookupError>(
      [] { TritonJitFunction::get(test::kernel("broken_import.py"), "never_kernel"); });
  EXPECT_TRUE(test::contains(e.what(), "broken_import.py")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "ModuleNotFoundError")) << e.what();
  EXPECT_TRUE(test::contains(e.traceback(), "Traceback")) << e.traceback();
  EXPECT_TRUE(test::contains(e.traceback(), "triton_jit_test_module_that_does_not_exist")) << e.traceback();
  EXPECT_TRUE(test::contains(e.traceback(), "broken_import.py")) << e.traceback();

  const auto s = expect_throw<KernelLookupError>(
      [] { TritonJitFunction::get(test::kernel("broken_syntax.py"), "never_kernel"); });
  EXPECT_TRUE(test::contains(s.what(), "SyntaxError")) << s.what();
  EXPECT_TRUE(test::contains(s.traceback(), "SyntaxError")) << s.traceback();
  EXPECT_TRUE(test::contains(s.traceback(), "broken_syntax.py")) << s.traceback();
  // A failed import is not remembered as a success: asking again fails the same way.
  expect_throw<KernelLookupError>([] { TritonJitFunction::get(test::kernel("broken_syntax.py"), "never_kernel"); });
}

TEST(ArgumentErrors, TooManyArguments) {
  const auto args = test::args(test::ptr(16), test::ptr(16), test::ptr(16), 10, 64, 7);
  const auto e = expect_throw<ArgumentError>([&] { test::add_kernel().specialize(test::config(), test::span(args)); });
  EXPECT_TRUE(test::contains(e.what(), "add_kernel takes 5 arguments")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "6 were given")) << e.what();
  EXPECT_EQ(e.function(), "add_kernel");
  EXPECT_EQ(e.parameter(), "");
}

TEST(ArgumentErrors, TooFewArgumentsNamesTheMissingParameter) {
  const auto args = test::args(test::ptr(16), test::ptr(16), test::ptr(16));
  const auto e = expect_throw<ArgumentError>([&] { test::add_kernel().compile(test::config(), test::span(args)); });
  EXPECT_TRUE(test::contains(e.what(), "'n_elements' is missing")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "3 were given")) << e.what();
  EXPECT_EQ(e.parameter(), "n_elements");
  EXPECT_EQ(e.function(), "add_kernel");
}

TEST(ArgumentErrors, PointerForConstexpr) {
  const auto args = test::args(test::ptr(16), test::ptr(16), test::ptr(16), 10, test::ptr(32));
  const auto e = expect_throw<ArgumentError>([&] { test::add_kernel().specialize(test::config(), test::span(args)); });
  EXPECT_EQ(e.parameter(), "BLOCK_SIZE");
  EXPECT_TRUE(test::contains(e.what(), "'BLOCK_SIZE'")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "constexpr")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "pointer")) << e.what();
}

TEST(ArgumentErrors, StringForRuntimeParameter) {
  const auto args = test::args(test::ptr(16), test::ptr(16), test::ptr(16), "ten", 64);
  const auto e = expect_throw<ArgumentError>([&] { test::add_kernel().compile(test::config(), test::span(args)); });
  EXPECT_EQ(e.parameter(), "n_elements");
  EXPECT_TRUE(test::contains(e.what(), "'n_elements'")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "string")) << e.what();
}

TEST(ArgumentErrors, AnnotatedMismatch) {
  auto& fn = TritonJitFunction::get(test::kernel("annotated.py"), "annotated_kernel");
  const auto p = test::ptr(0x1000);
  // out_ptr: "*fp16" given a float.
  auto args = test::args(1.5, 10, 1.0, true, p, p, 3, 64);
  auto e = expect_throw<ArgumentError>([&] { fn.specialize(test::config(), test::span(args)); });
  EXPECT_EQ(e.parameter(), "out_ptr");
  EXPECT_TRUE(test::contains(e.what(), "'*fp16'")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "float")) << e.what();
  // n: tl.int64 given a pointer.
  args = test::args(p, p, 1.0, true, p, p, 3, 64);
  e = expect_throw<ArgumentError>([&] { fn.specialize(test::config(), test::span(args)); });
  EXPECT_EQ(e.parameter(), "n");
  EXPECT_TRUE(test::contains(e.what(), "'i64'")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "pointer")) << e.what();
  // scale: tl.float32 given a pointer.
  args = test::args(p, 10, p, true, p, p, 3, 64);
  e = expect_throw<ArgumentError>([&] { fn.specialize(test::config(), test::span(args)); });
  EXPECT_EQ(e.parameter(), "scale");
}

TEST(ArgumentErrors, InvalidLaunchOptions) {
  const auto args = test::args(test::ptr(16), test::ptr(16), test::ptr(16), 10, 64);
  // num_stages -1 is kTargetDefaultNumStages, the target's default: -2 is out of range.
  for (const auto& c : {test::config(1, 3), test::config(1, 0), test::config(1, 128), test::config(1, 4, -2),
                        test::config(1, 4, 3, 0), test::config(1, 4, 3, 17)}) {
    const auto e = expect_throw<ArgumentError>([&] { test::add_kernel().specialize(c, test::span(args)); });
    EXPECT_TRUE(test::contains(e.what(), "add_kernel")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "num_warps")) << e.what();
  }
}

TEST(ArgumentErrors, BadSignatureString) {
  const auto e = expect_throw<ArgumentError>([] {
    test::add_kernel().compile(
        triton_jit::CompileRequest{"*fp32:16,*fp32:16,*fp32:16,i32", 4, 3, 1, {}, triton_jit::Target{}});
  });
  EXPECT_TRUE(test::contains(e.what(), "4 items")) << e.what();
  const auto f = expect_throw<ArgumentError>([] {
    test::add_kernel().compile(
        triton_jit::CompileRequest{"*fp32:16,*fp32:16,*fp32:16,i32,*fp32", 4, 3, 1, {}, triton_jit::Target{}});
  });
  EXPECT_EQ(f.parameter(), "BLOCK_SIZE");
}

TEST(ArgumentErrors, DTypeDefaultNeedNotBePassed) {
  // A tl.dtype default has a C++ form now: it is used, as Python uses it.
  auto& fn = TritonJitFunction::get(test::kernel("dtype_default.py"), "cast_kernel");
  const auto args = test::args(test::ptr(0x1000), 100);
  EXPECT_EQ(fn.specialize(test::config(), test::span(args)).signature(), "*fp32:16,i32,triton.language.float16");
}

TEST(ArgumentErrors, DefaultWithoutACppFormMustBePassed) {
  for (const char* name : {"tuple_default_kernel", "pointer_type_default_kernel"}) {
    SCOPED_TRACE(name);
    auto& fn = TritonJitFunction::get(test::kernel("dtype_default.py"), name);
    const std::string param = fn.signature().params.at(2).name;
    const std::string repr = fn.signature().params.at(2).default_value->repr;
    const auto args = test::args(test::ptr(0x1000), 100);
    const auto e = expect_throw<ArgumentError>([&] { fn.specialize(test::config(), test::span(args)); });
    EXPECT_EQ(e.parameter(), param);
    EXPECT_TRUE(test::contains(e.what(), "its default " + repr + " has no C++ form")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "explicitly")) << e.what();
    // Given explicitly, the call specializes.
    EXPECT_EQ(fn.specialize(test::config(), test::ptr(0x1000), 100, 16).signature(), "*fp32:16,i32,16");
  }
}

TEST(ArgumentErrors, DTypeForRuntimeParameter) {
  // Triton's binder fails too ("failed to specialize argument of type: dtype").
  for (const ArgValue dtype :
       {ArgValue::triton_dtype(triton_jit::DType::fp16), ArgValue::torch_dtype(triton_jit::DType::fp16)}) {
    const auto args = test::args(test::ptr(16), test::ptr(16), test::ptr(16), dtype, 64);
    const auto e = expect_throw<ArgumentError>(
        [&] { test::add_kernel().specialize(test::config(), test::span(args)); });
    EXPECT_EQ(e.parameter(), "n_elements");
    EXPECT_TRUE(test::contains(e.what(), "'n_elements'")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "runtime parameter")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), dtype.is_torch_dtype() ? "torch.float16" : "triton.language.float16"))
        << e.what();
  }
  // The same in a signature.
  const auto e = expect_throw<ArgumentError>([] {
    test::add_kernel().compile(
        triton_jit::CompileRequest{"*fp32:16,*fp32:16,*fp32:16,torch.float16,64", 4, 3, 1, {}, triton_jit::Target{}});
  });
  EXPECT_EQ(e.parameter(), "n_elements");
  EXPECT_TRUE(test::contains(e.what(), "torch.float16")) << e.what();
}

TEST(ArgumentErrors, TorchHasNoFp8e4b15) {
  auto& fn = TritonJitFunction::get(test::kernel("dtype_constexpr.py"), "scale_kernel");
  const auto e = expect_throw<ArgumentError>(
      [&] { fn.specialize(test::config(), test::ptr(16), 8, triton_jit::TorchDType{triton_jit::DType::fp8e4b15}); });
  EXPECT_EQ(e.parameter(), "X_dtype");
  EXPECT_TRUE(test::contains(e.what(), "fp8e4b15")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "triton.language.float8e4b15")) << e.what();
  // Triton's spelling exists.
  EXPECT_EQ(fn.specialize(test::config(), test::ptr(16), 8, triton_jit::DType::fp8e4b15).params[2].value_repr,
            "triton.language.float8e4b15");
}

TEST(CompileErrors, TritonErrorWithKernelLocation) {
  const std::string path = test::kernel("compile_error.py");
  auto& fn = TritonJitFunction::get(path, "arange_kernel");
  const auto args = test::args(test::ptr(0x1000, triton_jit::DType::i32), 100);
  const auto e = expect_throw<CompileError>([&] { fn.compile(test::config(), test::span(args)); });
  EXPECT_EQ(e.function(), "arange_kernel");
  EXPECT_EQ(e.file(), test::canonical(path));
  EXPECT_EQ(e.signature(), "*i32:16,100");
  // The whole kernel key, in the form MissingKernelError::key() has.
  EXPECT_EQ(e.key().rfind("*i32:16,100|num_warps=4|num_stages=3|num_ctas=1|options=|target=cuda:", 0), 0u) << e.key();
  EXPECT_EQ(e.python_type(), "CompilationError");
  EXPECT_TRUE(test::contains(e.what(), "arange's range must be a power of 2")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "arange_kernel")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "cuda:90")) << e.what();
  EXPECT_TRUE(test::contains(e.traceback(), "Traceback")) << e.traceback();
  // Inside the kernel: after the decorator, within the file.
  const int decorator = test::line_of(path, "@triton.jit");
  EXPECT_GT(e.line(), decorator);
  EXPECT_LE(e.line(), test::line_count(path));
}

// The line must count from the `def`, not from Triton's starting_line_number (the first
// decorator's line), or errors point one line per decorator above the statement (a bug found by
// this test).
TEST(CompileErrors, LineIsTheOffendingStatement) {
  const std::string path = test::kernel("compile_error.py");
  auto& fn = TritonJitFunction::get(path, "arange_kernel");
  const auto args = test::args(test::ptr(0x1000, triton_jit::DType::i32), 100);
  const auto e = expect_throw<CompileError>([&] { fn.compile(test::config(), test::span(args)); });
  EXPECT_EQ(e.line(), test::line_of(path, "COMPILE-ERROR-LINE"));
  EXPECT_TRUE(test::contains(e.what(), "compile_error.py:" + std::to_string(test::line_of(path, "COMPILE-ERROR-LINE"))))
      << e.what();
}

TEST(CompileErrors, FailedCompileIsNotCached) {
  auto& fn = TritonJitFunction::get(test::kernel("compile_error.py"), "arange_kernel");
  const auto args = test::args(test::ptr(0x1000, triton_jit::DType::i32), 48);
  const auto s0 = fn.stats();
  expect_throw<CompileError>([&] { fn.compile(test::config(), test::span(args)); });
  const auto s1 = fn.stats();
  EXPECT_EQ(s1.compiles, s0.compiles);
  EXPECT_EQ(s1.misses, s0.misses + 1);
  expect_throw<CompileError>([&] { fn.compile(test::config(), test::span(args)); });
  const auto s2 = fn.stats();
  EXPECT_EQ(s2.compiles, s0.compiles);
  EXPECT_EQ(s2.misses, s0.misses + 2);
  EXPECT_EQ(s2.hits, s0.hits);
  // The same kernel compiles for a power of two.
  const auto good = test::args(test::ptr(0x1000, triton_jit::DType::i32), 64);
  EXPECT_EQ(fn.compile(test::config(), test::span(good)).name, "arange_kernel");
  EXPECT_EQ(fn.stats().compiles, s0.compiles + 1);
}

TEST(CompileErrors, UnknownCompileOptionIsNamed) {
  const triton_jit::CompileOptions options{{"no_such_option", int64_t{3}}};
  triton_jit::LaunchConfig c = test::config();
  c.options = &options;
  const auto args = test::args(test::ptr(16), test::ptr(16), test::ptr(16), 10, 64);
  // Refused before compiling: an ArgumentError naming the option, with the options Triton has.
  const auto e = expect_throw<triton_jit::ArgumentError>([&] { test::add_kernel().compile(c, test::span(args)); });
  EXPECT_EQ(e.parameter(), "no_such_option");
  EXPECT_TRUE(test::contains(e.what(), "unknown compile option 'no_such_option'")) << e.what();
  EXPECT_TRUE(test::contains(e.what(), "maxnreg")) << e.what();
}

TEST(LaunchErrors, NoDriverMeansNoDeviceError) {
  if (triton_jit::cuda::driver_available()) GTEST_SKIP() << "a CUDA driver is present";
  const float* x = reinterpret_cast<const float*>(uintptr_t{0x1000});
  const auto stats = test::add_kernel().stats();
  try {
    test::add_kernel()(test::config(4), x, x, x, 1000, 256);
    ADD_FAILURE() << "launch without a driver did not throw";
  } catch (const triton_jit::NoDeviceError& e) {
    EXPECT_TRUE(test::contains(e.what(), "libcuda")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "GPU")) << e.what();
  }
  // Nothing was compiled for a launch that could not happen.
  EXPECT_EQ(test::add_kernel().stats().compiles, stats.compiles);
  // NoDeviceError is a CudaError and a triton_jit::Error.
  EXPECT_THROW(test::add_kernel()(test::config(4), x, x, x, 1000, 256), triton_jit::CudaError);
  EXPECT_THROW(test::add_kernel()(test::config(4), x, x, x, 1000, 256), triton_jit::Error);
}

}  // namespace

// Kernels that live in packages: functions named by module (get_module), files inside a package
// imported as its modules, preloaded modules (TRITON_JIT_PRELOAD, preload_modules), attribute
// paths ("kernel.fn"), and the whole chain of causes of a CompileError. Each test is a process of
// its own (ctest), so the environment set at its start is what the runtime reads first.
//
// tests/kernels/pkgdemo is a package whose __init__ sets values its kernel module reads
// (DEFAULT_BLOCK, the default of BLOCK; SCALE) and whose kernel module imports relatively.
// References come from Python itself: modules imported with importlib, Triton's own compile.
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bridge/interpreter.h"
#include "test_util.h"
#include "triton_jit/prepare.h"

namespace py = pybind11;
using triton_jit::ArgValue;
using triton_jit::KernelLookupError;
using triton_jit::PreloadError;
using triton_jit::TritonJitFunction;

namespace {

// The package root (tests/kernels) and the reference helpers on sys.path, the standard way: set
// before the runtime starts Python.
const bool kPythonPath = [] {
  setenv("PYTHONPATH", (std::string(TRITON_JIT_TEST_KERNELS_DIR) + ":" + TRITON_JIT_TEST_SUPPORT_DIR).c_str(), 1);
  return true;
}();

const char* const kScaleModule = "pkgdemo.ops.scale";
std::string scale_file() { return test::canonical(test::kernel("pkgdemo/ops/scale.py")); }

// A Python module imported the normal way into the runtime's interpreter. Call with the GIL.
py::module_ import(const char* name) { return py::module_::import(name); }

// preload_registry.ORDER: which of the recording modules were imported, in order.
std::vector<std::string> import_order() {
  triton_jit::bridge::GilGuard gil;
  return import("preload_registry").attr("ORDER").cast<std::vector<std::string>>();
}

// (hash, cubin) of Triton's own compile (its binder, _pack_args, triton.compile) of `jit_fn` for a
// call with float pointers at the given addresses and integers. Empty where this Triton packs
// inside run() (3.4): no separate reference path.
std::pair<std::string, std::string> tritons_kernel(const py::object& jit_fn, const std::vector<ArgValue>& args) {
  py::module_ reference = import("triton_reference");
  py::tuple py_args(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgValue& a = args[i];
    py_args[i] = a.kind() == ArgValue::Kind::Pointer ? reference.attr("make_pointer")(py::int_(a.address()), "fp32")
                                                     : py::object(py::int_(a.as_int()));
  }
  py::dict kwargs;
  kwargs["num_warps"] = 4;
  kwargs["num_stages"] = 3;
  py::object r = reference.attr("triton_compile")(jit_fn, py_args, kwargs);
  if (r.is_none()) return {};
  return {r[py::int_(0)].cast<std::string>(), r[py::int_(1)].cast<std::string>()};
}

class Package : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(kPythonPath);
    triton_jit::set_target(triton_jit::Target::parse("cuda:90"));
  }
  void TearDown() override { triton_jit::set_target(std::nullopt); }
};

// ---- functions named by module ----

TEST_F(Package, GetModuleCompilesTheKernelTritonCompiles) {
  TritonJitFunction& fn = TritonJitFunction::get_module(kScaleModule, "scale_kernel");
  EXPECT_EQ(fn.path(), scale_file());
  EXPECT_EQ(fn.module(), kScaleModule);
  EXPECT_EQ(fn.name(), "scale_kernel");
  // BLOCK's default is DEFAULT_BLOCK, which only the package's __init__ sets.
  ASSERT_EQ(fn.signature().params.size(), 4u);
  ASSERT_TRUE(fn.signature().params[3].default_value.has_value());
  EXPECT_EQ(fn.signature().params[3].default_value->repr, "128");
  const std::vector<ArgValue> args = {test::ptr(0x1000), test::ptr(0x2000), ArgValue::integer(1000)};
  EXPECT_EQ(fn.specialize(test::config(), test::span(args)).signature(), "*fp32:16,*fp32:16,i32,128");

  const triton_jit::KernelInfo& k = fn.compile(test::config(), test::span(args));
  EXPECT_EQ(k.name, "scale_kernel");
  EXPECT_EQ(k.target.arch, 90);
  triton_jit::bridge::GilGuard gil;
  // The module Python imported is the package's, not a copy loaded from the file.
  py::module_ module = import(kScaleModule);
  EXPECT_TRUE(py::module_::import("sys").attr("modules").contains("pkgdemo"));
  std::vector<ArgValue> full = args;
  full.push_back(ArgValue::integer(128));
  const auto [hash, cubin] = tritons_kernel(module.attr("scale_kernel"), full);
  if (hash.empty()) GTEST_SKIP() << "this Triton has no JITFunction._pack_args to compile the reference with";
  EXPECT_EQ(k.hash, hash);
  EXPECT_TRUE(k.cubin == cubin) << "the cubins differ";
}

TEST_F(Package, AFileInsideAPackageIsImportedAsItsModule) {
  // Imported on its own, the file's relative imports would fail: `from .. import ...`.
  TritonJitFunction& by_path = TritonJitFunction::get(test::kernel("pkgdemo/ops/scale.py"), "scale_kernel");
  EXPECT_EQ(by_path.path(), scale_file());
  EXPECT_EQ(by_path.module(), "");
  EXPECT_EQ(by_path.signature().params.at(3).default_value->repr, "128");
  const std::vector<ArgValue> args = {test::ptr(0x1000), test::ptr(0x2000), ArgValue::integer(1000)};
  const triton_jit::KernelInfo& k = by_path.compile(test::config(), test::span(args));
  {
    triton_jit::bridge::GilGuard gil;
    py::object modules = py::module_::import("sys").attr("modules");
    ASSERT_TRUE(modules.contains(kScaleModule));
    EXPECT_EQ(py::str(modules[py::str(kScaleModule)].attr("__file__")).cast<std::string>(), scale_file());
  }
  // One object per function, whichever spelling came first; its kernels are shared.
  TritonJitFunction& by_module = TritonJitFunction::get_module(kScaleModule, "scale_kernel");
  EXPECT_EQ(&by_module, &by_path);
  EXPECT_EQ(&by_module.compile(test::config(), test::span(args)), &k);
  EXPECT_EQ(by_module.stats().compiles, 1u);
}

TEST_F(Package, AModuleThenItsFileGiveOneObject) {
  TritonJitFunction& by_module = TritonJitFunction::get_module(kScaleModule, "scale_kernel");
  EXPECT_EQ(&TritonJitFunction::get(test::kernel("pkgdemo/ops/scale.py"), "scale_kernel"), &by_module);
  EXPECT_EQ(&TritonJitFunction::get(scale_file(), "scale_kernel"), &by_module);
  EXPECT_EQ(&TritonJitFunction::get_module(kScaleModule, "scale_kernel"), &by_module);
}

TEST_F(Package, AModuleThatCannotBeImportedIsALookupErrorWithPythonsTraceback) {
  try {
    TritonJitFunction::get_module("pkgdemo.no_such_module", "kernel");
    FAIL() << "expected KernelLookupError";
  } catch (const KernelLookupError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(test::contains(what, "pkgdemo.no_such_module")) << what;
    EXPECT_TRUE(test::contains(what, "ModuleNotFoundError")) << what;
    EXPECT_TRUE(test::contains(e.traceback(), "Traceback")) << e.traceback();
    EXPECT_EQ(e.path(), "module:pkgdemo.no_such_module");
  }
  // A module that imports but lacks the function names what it has.
  try {
    TritonJitFunction::get_module(kScaleModule, "no_such_kernel");
    FAIL() << "expected KernelLookupError";
  } catch (const KernelLookupError& e) {
    EXPECT_TRUE(test::contains(e.what(), "no_such_kernel")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "scale_kernel")) << e.what();
  }
}

TEST_F(Package, CompileWorkersImportTheModuleAsThisProcessDoes) {
  // A package root this process adds to sys.path at run time: a worker (a fresh python) sees it
  // only through the sys.path the runtime hands it.
  const std::filesystem::path root = std::filesystem::temp_directory_path() /
                                     ("triton_jit_package_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "rtpkg");
  const auto write = [](const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; };
  write(root / "rtpkg" / "__init__.py", "import triton.language as tl\n\nBLOCK = tl.constexpr(64)\n");
  write(root / "rtpkg" / "kernels.py",
        "import triton\nimport triton.language as tl\n\nfrom . import BLOCK\n\n\n@triton.jit\n"
        "def fill_kernel(x_ptr, n, VALUE: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    tl.store(x_ptr + offs, VALUE, mask=offs < n)\n");
  {
    triton_jit::bridge::GilGuard gil;
    py::module_::import("sys").attr("path").attr("insert")(0, root.string());
  }
  TritonJitFunction& fn = TritonJitFunction::get_module("rtpkg.kernels", "fill_kernel");
  std::vector<triton_jit::KernelRequest> requests;
  for (int value : {1, 2, 3})
    requests.push_back(triton_jit::request(fn, test::config(), test::ptr(0x1000), 100, value));
  triton_jit::PrepareOptions options;
  options.jobs = 2;
  options.progress = triton_jit::Progress::Never;
  const triton_jit::PrepareReport report = triton_jit::prepare(requests, options);
  std::filesystem::remove_all(root);
  EXPECT_EQ(report.workers, 2);
  EXPECT_EQ(report.compiled, 3u);
  EXPECT_EQ(fn.stats().compiles, 3u);
}

// ---- preloading ----

TEST_F(Package, WithoutPreloadAFileNeedingThePackageFailsToImport) {
  // The negative control of the preload tests: the file reads what pkgdemo registers.
  try {
    TritonJitFunction::get(test::kernel("preload_user.py"), "offset_kernel");
    FAIL() << "expected KernelLookupError";
  } catch (const KernelLookupError& e) {
    EXPECT_TRUE(test::contains(e.what(), "KeyError")) << e.what();
  }
}

TEST_F(Package, PreloadFromTheEnvironmentRunsFirstInOrder) {
  setenv("TRITON_JIT_PRELOAD", "preload_second, pkgdemo", 1);  // read on first use
  TritonJitFunction& fn = TritonJitFunction::get(test::kernel("preload_user.py"), "offset_kernel");
  // OFF's default is the value pkgdemo's __init__ registered before the file was imported.
  EXPECT_EQ(fn.signature().params.at(2).default_value->repr, "7");
  const std::vector<ArgValue> args = {test::ptr(0x1000), ArgValue::integer(100)};
  EXPECT_EQ(fn.specialize(test::config(), test::span(args)).signature(), "*fp32:16,i32,7");
  EXPECT_EQ(fn.compile(test::config(), test::span(args)).name, "offset_kernel");
  EXPECT_EQ(import_order(), (std::vector<std::string>{"preload_second", "pkgdemo", "preload_user"}));
}

TEST_F(Package, PreloadModulesRunsFirstInOrder) {
  triton_jit::preload_modules({"pkgdemo", "preload_second"});
  triton_jit::preload_modules({"preload_second"});  // listed already: imported once
  TritonJitFunction& fn = TritonJitFunction::get(test::kernel("preload_user.py"), "offset_kernel");
  EXPECT_EQ(fn.signature().params.at(2).default_value->repr, "7");
  EXPECT_EQ(import_order(), (std::vector<std::string>{"pkgdemo", "preload_second", "preload_user"}));
}

TEST_F(Package, PreloadBeforeAModuleNamedFunction) {
  triton_jit::preload_modules({"preload_second"});
  TritonJitFunction::get_module(kScaleModule, "scale_kernel");
  EXPECT_EQ(import_order(), (std::vector<std::string>{"preload_second", "pkgdemo"}));
}

TEST_F(Package, AFailingPreloadIsAnErrorNamingTheModuleAtEveryUse) {
  triton_jit::preload_modules({"preload_second", "no_such_preload_module"});
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      TritonJitFunction::get(test::kernel("add.py"), "add_kernel");
      FAIL() << "expected PreloadError";
    } catch (const PreloadError& e) {
      EXPECT_EQ(e.module(), "no_such_preload_module");
      EXPECT_TRUE(test::contains(e.what(), "preloading the module no_such_preload_module failed")) << e.what();
      EXPECT_TRUE(test::contains(e.what(), "ModuleNotFoundError")) << e.what();
      EXPECT_EQ(e.function(), "add_kernel");
    }
  }
  // The modules before it were imported, once.
  EXPECT_EQ(import_order(), (std::vector<std::string>{"preload_second"}));
}

TEST_F(Package, APreloadThatRaisesCarriesItsMessageAndTraceback) {
  setenv("TRITON_JIT_PRELOAD", "preload_broken", 1);
  try {
    TritonJitFunction::get_module(kScaleModule, "scale_kernel");
    FAIL() << "expected PreloadError";
  } catch (const PreloadError& e) {
    EXPECT_EQ(e.module(), "preload_broken");
    EXPECT_TRUE(test::contains(e.what(), "registration of preload_broken failed")) << e.what();
    EXPECT_TRUE(test::contains(e.traceback(), "preload_broken.py")) << e.traceback();
  }
}

// ---- the undecorated function: attribute paths ----

TEST_F(Package, KernelDotFnIsTheJitFunctionUnderTheWrappers) {
  const std::string path = test::kernel("wrapped.py");
  TritonJitFunction& plain = TritonJitFunction::get(path, "autotuned_kernel.fn");
  EXPECT_EQ(plain.name(), "autotuned_kernel.fn");
  EXPECT_NE(&plain, &TritonJitFunction::get(path, "autotuned_kernel"));
  std::vector<std::string> names;
  for (const auto& p : plain.signature().params) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"x_ptr", "n", "BLOCK"}));
  // stacked_kernel = autotune(heuristics(jit)): .fn is the Heuristics, .fn.fn the JITFunction.
  EXPECT_EQ(TritonJitFunction::get(path, "stacked_kernel.fn.fn").signature().params.size(), 4u);
  EXPECT_THROW(TritonJitFunction::get(path, "autotuned_kernel.no_such_attribute"), KernelLookupError);

  // The kernel is the one Triton compiles for Python's autotuned_kernel.fn.
  const std::vector<ArgValue> args = {test::ptr(0x1000), ArgValue::integer(1000), ArgValue::integer(64)};
  const triton_jit::KernelInfo& k = plain.compile(test::config(), test::span(args));
  triton_jit::bridge::GilGuard gil;
  py::module_ util = import("importlib.util");
  py::object spec = util.attr("spec_from_file_location")("wrapped_reference", path);
  py::object module = util.attr("module_from_spec")(spec);
  spec.attr("loader").attr("exec_module")(module);
  const auto [hash, cubin] = tritons_kernel(module.attr("autotuned_kernel").attr("fn"), args);
  if (hash.empty()) GTEST_SKIP() << "this Triton has no JITFunction._pack_args to compile the reference with";
  EXPECT_EQ(k.hash, hash);
}

// ---- CompileError: the whole chain of causes ----

// Triton's own outermost message for the same failure, to show it lacks the reason.
std::string tritons_outer_message(const char* function, const std::vector<ArgValue>& args) {
  triton_jit::bridge::GilGuard gil;
  py::module_ util = import("importlib.util");
  py::object spec = util.attr("spec_from_file_location")("nested_error_reference", test::kernel("nested_error.py"));
  py::object module = util.attr("module_from_spec")(spec);
  spec.attr("loader").attr("exec_module")(module);
  try {
    tritons_kernel(module.attr(function), args);
  } catch (py::error_already_set& e) {
    return py::str(e.value()).cast<std::string>();
  }
  return {};
}

TEST_F(Package, ACompileErrorCarriesTheReasonFromANestedHelper) {
  TritonJitFunction& fn = TritonJitFunction::get(test::kernel("nested_error.py"), "nested_assert_kernel");
  const std::vector<ArgValue> args = {test::ptr(0x1000), ArgValue::integer(32)};
  try {
    fn.compile(test::config(), test::span(args));
    FAIL() << "expected CompileError";
  } catch (const triton_jit::CompileError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(test::contains(what, "BLOCK must be a multiple of 64")) << what;
    EXPECT_TRUE(test::contains(what, "caused by CompilationError")) << what;  // the helper in between
    EXPECT_TRUE(test::contains(what, "_check_block")) << what;
    EXPECT_EQ(e.python_type(), "CompilationError");
  }
  const std::string outer = tritons_outer_message("nested_assert_kernel", args);
  if (!outer.empty()) EXPECT_FALSE(test::contains(outer, "multiple of 64")) << "Triton's own text has the reason";
}

TEST_F(Package, ACompileErrorCarriesAnUndefinedNameInAHelper) {
  TritonJitFunction& fn = TritonJitFunction::get(test::kernel("nested_error.py"), "undefined_name_kernel");
  const std::vector<ArgValue> args = {test::ptr(0x1000)};
  try {
    fn.compile(test::config(), test::span(args));
    FAIL() << "expected CompileError";
  } catch (const triton_jit::CompileError& e) {
    EXPECT_TRUE(test::contains(e.what(), "no_such_name is not defined")) << e.what();
  }
}

}  // namespace

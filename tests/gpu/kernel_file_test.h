#pragma once
// The set-up GPU tests of one kernel file of tests/kernels share (decorators_test.cpp,
// python_wrapper_test.cpp): the file loaded into the runtime's interpreter as Triton's reference
// (module `alias`, with a dict `keep` for the buffers a test keeps alive), and the runtime's
// functions of the same file.
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_util.h"
#include "python_reference.h"

using gpu_test::addresses;
using gpu_test::run_python;
using triton_jit::cdiv;
using triton_jit::DType;
using triton_jit::Grid;
using triton_jit::GridMeta;
using triton_jit::LaunchConfig;
using triton_jit::TritonJitFunction;
using triton_jit::TypedPtr;

namespace gpu_test {

class KernelFileTest : public GpuTest {
 protected:
  // `file` in tests/kernels; `alias`: the reference module's name in Python; `more`: Python run
  // after loading it.
  KernelFileTest(std::string file, std::string alias, std::string more = "")
      : file_(std::move(file)), alias_(std::move(alias)), more_(std::move(more)) {}

  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    const std::string stem = file_.substr(0, file_.rfind('.'));
    run_python("import importlib.util, torch, triton\n"
               "_spec = importlib.util.spec_from_file_location('" +
               stem + "_ref', '" TRITON_JIT_TEST_KERNELS_DIR "/" + file_ + "')\n" + alias_ +
               " = importlib.util.module_from_spec(_spec)\n" + "_spec.loader.exec_module(" + alias_ + ")\n" +
               "keep = {}\n" + more_);
  }
  TritonJitFunction& fn(const char* name) const {
    return TritonJitFunction::get(std::string(TRITON_JIT_TEST_KERNELS_DIR "/") + file_, name);
  }

 private:
  std::string file_, alias_, more_;
};

}  // namespace gpu_test

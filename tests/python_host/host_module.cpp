// A Python extension that calls the runtime from inside a Python process: the runtime must join
// the running interpreter instead of starting one.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <vector>

#include "triton_jit/triton_jit.h"

namespace py = pybind11;

PYBIND11_MODULE(triton_jit_host_test, m) {
  m.def("specialize", [](const std::string& path, const std::string& name, int64_t n) {
    auto& fn = triton_jit::TritonJitFunction::get(path, name);
    const float* p = reinterpret_cast<const float*>(uintptr_t{4096});
    const triton_jit::ArgValue args[] = {triton_jit::to_arg(p), triton_jit::to_arg(p), triton_jit::to_arg(p),
                                         triton_jit::to_arg(n), triton_jit::to_arg(1024)};
    return fn.specialize(triton_jit::LaunchConfig{}, triton_jit::ArgSpan{args, 5}).triton_repr();
  });
  m.def("compile_name", [](const std::string& path, const std::string& name) {
    auto& fn = triton_jit::TritonJitFunction::get(path, name);
    const float* p = reinterpret_cast<const float*>(uintptr_t{4096});
    const triton_jit::ArgValue args[] = {triton_jit::to_arg(p), triton_jit::to_arg(p), triton_jit::to_arg(p),
                                         triton_jit::to_arg(int64_t{4096}), triton_jit::to_arg(1024)};
    // Compiling holds the GIL this thread already holds: PyGILState must nest, not deadlock.
    return fn.compile(triton_jit::LaunchConfig{}, triton_jit::ArgSpan{args, 5}).name;
  });
  // Called from several Python threads at once: the thread that waits for another's compile
  // holds the GIL here and must let go of it.
  m.def("compile_block", [](const std::string& path, const std::string& name, int block) {
    auto& fn = triton_jit::TritonJitFunction::get(path, name);
    const float* p = reinterpret_cast<const float*>(uintptr_t{4096});
    const triton_jit::ArgValue args[] = {triton_jit::to_arg(p), triton_jit::to_arg(p), triton_jit::to_arg(p),
                                         triton_jit::to_arg(int64_t{4096}), triton_jit::to_arg(block)};
    fn.compile(triton_jit::LaunchConfig{}, triton_jit::ArgSpan{args, 5});
    return fn.stats().compiles;
  });
  // prepare() on the compile worker pool, called with the GIL held: the pool's threads need it.
  m.def("prepare_blocks", [](const std::string& path, const std::string& name, const std::vector<int>& blocks) {
    auto& fn = triton_jit::TritonJitFunction::get(path, name);
    const float* p = reinterpret_cast<const float*>(uintptr_t{4096});
    std::vector<triton_jit::KernelRequest> requests;
    for (int block : blocks)
      requests.push_back(triton_jit::request(fn, triton_jit::LaunchConfig{}, p, p, p, 4096, block));
    triton_jit::PrepareOptions options;
    options.jobs = 2;
    options.progress = triton_jit::Progress::Never;
    return triton_jit::prepare(requests, options).compiled;
  });
}

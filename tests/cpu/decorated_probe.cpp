// A process of its own for the tests of decorated kernels (decorators_test.cpp, libentry_test.cpp,
// lib_tuner_test.cpp, python_wrapper_test.cpp, the fault tests): gets FILE FUNCTION, prints the
// kinds of its wrapper layers (kinds=python,autotune,...), then specializes or launches (on the
// fake driver) one call of it and prints what that took:
//   spec=<Triton's specialization> num_warps=4 tunings=0 heuristic_python_calls=0 compiles=0 python_used=0
// or, with --launch=N (N launches, nothing specialized):
//   python_wrapper_calls=N tunings=0 launches=0 python_used=1
// or `error=TYPE: message` (exit 3). Arguments: `--launch` (launch once, then specialize) or
// `--launch=N` (else specialize), then one word per argument: p:fp16 (a pointer; p:fp32:BYTES
// with its size), i:123, f:0.5, none.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "fake_driver.h"
#include "triton_jit/triton_jit.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: decorated_probe FILE FUNCTION [--launch | --launch=N] ARGS...\n";
    return 2;
  }
  fake::install();
  // Tuning on the fake: each launch takes a simulated millisecond (so Triton's budgets give 25
  // warm-up and 100 timed runs a config), and the 256 MiB flush is recorded, not written.
  fake::state().launch_ms = 1.0;
  fake::state().write_limit = uint64_t{1} << 20;
  bool launch = false;
  int repeat = -1;  // --launch=N: launches, nothing specialized
  std::vector<triton_jit::ArgValue> args;
  std::vector<std::vector<char>> buffers;
  uint64_t next_address = 0x7f0000100000ull;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--launch") {
      launch = true;
    } else if (a.rfind("--launch=", 0) == 0) {
      repeat = std::stoi(a.substr(9));
    } else if (a == "none") {
      args.push_back(triton_jit::ArgValue::none());
    } else if (a.rfind("i:", 0) == 0) {
      args.push_back(triton_jit::ArgValue::integer(std::stoll(a.substr(2))));
    } else if (a.rfind("f:", 0) == 0) {
      args.push_back(triton_jit::ArgValue::floating(std::stod(a.substr(2))));
    } else if (a.rfind("p:", 0) == 0) {
      const std::string rest = a.substr(2);
      const size_t colon = rest.find(':');
      triton_jit::DType d;
      if (!triton_jit::parse_dtype(rest.substr(0, colon), &d)) {
        std::cerr << "decorated_probe: bad dtype in " << a << "\n";
        return 2;
      }
      const uint64_t bytes = colon == std::string::npos ? 0 : std::stoull(rest.substr(colon + 1));
      if (bytes == 0) {
        args.push_back(triton_jit::ArgValue::pointer(reinterpret_cast<void*>(next_address), d));
        next_address += 0x100000;
      } else {
        // The fake driver's memory is host memory: a buffer the runtime writes (tuning's
        // reset_to_zero and restore_value) must be real.
        buffers.emplace_back(bytes + 256);
        const uintptr_t aligned = (reinterpret_cast<uintptr_t>(buffers.back().data()) + 255) & ~uintptr_t{255};
        args.push_back(triton_jit::ArgValue::pointer(reinterpret_cast<void*>(aligned), d, bytes));
      }
    } else {
      std::cerr << "decorated_probe: bad argument " << a << "\n";
      return 2;
    }
  }
  try {
    auto& fn = triton_jit::TritonJitFunction::get(argv[1], argv[2]);
    std::string kinds;
    for (const triton_jit::DecoratorLayer& layer : fn.signature().decorators) {
      using Kind = triton_jit::DecoratorLayer::Kind;
      kinds += kinds.empty() ? "" : ",";
      kinds += layer.kind == Kind::Python     ? "python"
               : layer.kind == Kind::Autotune ? "autotune"
               : layer.kind == Kind::LibEntry ? "libentry"
               : layer.kind == Kind::LibTuner ? "libtuner"
                                              : "heuristics";
    }
    std::cout << "kinds=" << kinds << std::endl;
    const triton_jit::LaunchConfig config{triton_jit::Grid(4)};
    const triton_jit::ArgSpan span{args.data(), args.size()};
    if (repeat >= 0) {
      for (int i = 0; i < repeat; ++i) fn.launch(config, span);
      const triton_jit::Stats s = fn.stats();
      std::cout << "python_wrapper_calls=" << s.python_wrapper_calls << " tunings=" << s.tunings
                << " launches=" << fake::state().launches.size() << " python_used=" << triton_jit::python_used()
                << std::endl;
      return 0;
    }
    if (launch) fn.launch(config, span);
    const triton_jit::Specialization spec = fn.specialize(config, span);
    const triton_jit::Stats s = fn.stats();
    std::cout << "spec=" << spec.signature() << " num_warps=" << spec.num_warps << " tunings=" << s.tunings
              << " heuristic_python_calls=" << s.heuristic_python_calls << " compiles=" << s.compiles
              << " launches=" << fake::state().launches.size() << " python_used=" << triton_jit::python_used()
              << std::endl;
  } catch (const std::exception& e) {
    std::cout << "error=" << typeid(e).name() << ": " << e.what() << "\npython_used=" << triton_jit::python_used()
              << std::endl;
    return 3;
  }
  return 0;
}

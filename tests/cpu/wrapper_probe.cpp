// A process of its own for the Python-run wrapper tests (python_wrapper_test.cpp): gets
// FILE:FUNCTION and launches (on the fake driver) one call of it COUNT times, then prints
//   kinds=python,... python_wrapper_calls=N tunings=0 python_used=1
// or `error=TYPE: message` (exit 3). Arguments: FILE FUNCTION COUNT, then one word per argument:
// p:fp32 (a pointer), i:123.
#include <iostream>
#include <string>
#include <vector>

#include "fake_driver.h"
#include "triton_jit/triton_jit.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: wrapper_probe FILE FUNCTION COUNT ARGS...\n";
    return 2;
  }
  fake::install();
  std::vector<triton_jit::ArgValue> args;
  uint64_t next_address = 0x7f0000100000ull;
  for (int i = 4; i < argc; ++i) {
    const std::string a = argv[i];
    triton_jit::DType d;
    if (a.rfind("i:", 0) == 0) {
      args.push_back(triton_jit::ArgValue::integer(std::stoll(a.substr(2))));
    } else if (a.rfind("p:", 0) == 0 && triton_jit::parse_dtype(a.substr(2), &d)) {
      args.push_back(triton_jit::ArgValue::pointer(reinterpret_cast<void*>(next_address), d));
      next_address += 0x100000;
    } else {
      std::cerr << "wrapper_probe: bad argument " << a << "\n";
      return 2;
    }
  }
  try {
    auto& fn = triton_jit::TritonJitFunction::get(argv[1], argv[2]);
    std::string kinds;
    for (const triton_jit::DecoratorLayer& layer : fn.signature().decorators) {
      kinds += kinds.empty() ? "" : ",";
      kinds += layer.kind == triton_jit::DecoratorLayer::Kind::Python      ? "python"
               : layer.kind == triton_jit::DecoratorLayer::Kind::Autotune ? "autotune"
                                                                            : "heuristics";
    }
    std::cout << "kinds=" << kinds << std::endl;
    for (int i = 0, n = std::stoi(argv[3]); i < n; ++i) {
      fn.launch(triton_jit::LaunchConfig{triton_jit::Grid(4)}, triton_jit::ArgSpan{args.data(), args.size()});
    }
    const triton_jit::Stats s = fn.stats();
    std::cout << "python_wrapper_calls=" << s.python_wrapper_calls << " tunings=" << s.tunings
              << " launches=" << fake::state().launches.size() << " python_used=" << triton_jit::python_used()
              << std::endl;
  } catch (const std::exception& e) {
    std::cout << "error=" << typeid(e).name() << ": " << e.what() << "\npython_used=" << triton_jit::python_used()
              << std::endl;
    return 3;
  }
  return 0;
}

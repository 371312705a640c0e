#include <iostream>

#include "commands.h"
#include "json_args.h"
#include "triton_jit/jit_function.h"

namespace triton_jit_cli {

int run_specialize(const Options& o) {
  // Read the arguments before loading the kernel: a malformed --args fails fast, without Python.
  const JsonArgs args(o.args_json);
  const triton_jit::TritonJitFunction& fn = kernel_function(o);
  triton_jit::LaunchConfig config;
  config.num_warps = o.num_warps;
  config.num_stages = o.num_stages;
  config.num_ctas = o.num_ctas;
  // The very code a launch runs to build its key (no compile, no device).
  const triton_jit::Specialization spec = fn.specialize(config, args.span());
  std::cout << spec.signature() << '\n';
  if (o.repr) std::cout << spec.triton_repr() << '\n';
  return 0;
}

}  // namespace triton_jit_cli

#include <iostream>

#include "commands.h"
#include "triton_jit/pack.h"

namespace triton_jit_cli {

int run_pack(const Options& o) {
  triton_jit::PrepareOptions options;
  options.jobs = o.jobs;
  options.progress = o.quiet ? triton_jit::Progress::Never : triton_jit::Progress::Auto;
  const triton_jit::PackInfo pack = triton_jit::build_pack(o.manifest, o.out_file, options);
  std::string targets;
  for (const triton_jit::Target& t : pack.targets) targets += (targets.empty() ? "" : ", ") + t.str();
  std::cout << pack.path << ": " << pack.kernels << " kernels of " << pack.functions.size() << " functions for "
            << targets << " (Triton " << pack.triton_version << ")\n";
  return 0;
}

}  // namespace triton_jit_cli

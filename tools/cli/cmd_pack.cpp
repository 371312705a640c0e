// triton-jit pack: a kernel pack from a manifest. An `autotune` line with args= (the call, as
// `triton-jit tune --args` takes it) is tuned here, on the GPU, before the pack is built: its
// choice becomes a key=/config= line and the chosen kernel a kernel line of its own.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "error_report.h"
#include "json_args.h"
#include "output_capture.h"
#include "triton_jit/decorators.h"
#include "triton_jit/device.h"
#include "triton_jit/errors.h"
#include "triton_jit/jit_function.h"
#include "triton_jit/pack.h"

namespace triton_jit_cli {
namespace {

namespace fs = std::filesystem;

triton_jit::Grid parse_grid(const std::string& text, const std::string& where) {
  int64_t dims[3] = {1, 1, 1};
  size_t start = 0;
  for (int d = 0; d < 3 && start <= text.size(); ++d) {
    const size_t comma = std::min(text.find(',', start), text.size());
    try {
      size_t used = 0;
      dims[d] = std::stoll(text.substr(start, comma - start), &used);
      if (used != comma - start || dims[d] <= 0) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw triton_jit::PackError(where + ": grid= expects X[,Y[,Z]] with positive integers, got '" + text + "'",
                                  where);
    }
    start = comma + 1;
    if (comma == text.size()) break;
  }
  return triton_jit::Grid(dims[0], dims[1], dims[2]);
}

// Tunes the `autotune` line `e` on the GPU: one launch with its args= (which times every config,
// unless the index already holds a choice for this device), then its choice and chosen kernel.
void tune_line(triton_jit::PackManifestEntry& e, const std::string& manifest,
               std::vector<triton_jit::PackManifestEntry>* added) {
  const std::string where = manifest + ":" + std::to_string(e.line);
  JsonArgs args(e.tuning_args, JsonArgs::Memory::Allocate);
  const bool by_module = e.file.rfind("module:", 0) == 0;
  const fs::path base = fs::absolute(fs::path(manifest)).parent_path();
  const fs::path file = fs::path(e.file).is_absolute() ? fs::path(e.file) : base / e.file;
  const triton_jit::TritonJitFunction& fn = by_module ? triton_jit::TritonJitFunction::get_module(e.file.substr(7),
                                                                                                  e.function)
                                                      : triton_jit::TritonJitFunction::get(file.string(), e.function);
  try {
    triton_jit::device_name();
    args.allocate();
  } catch (const triton_jit::NoDeviceError& err) {
    throw triton_jit::NoDeviceError(
        where + ": " + e.function + ": tuning at pack time needs a GPU (" + one_line(err.what()) +
            "): name the chosen config in the manifest instead: " + e.file + ":" + e.function +
            " autotune key=KEY config=CHOICE, with KEY Triton's tuning key as `triton-jit tune` or a "
            "MissingKernelError prints it and CHOICE the config's index or its values ({\"BLOCK\": 64, ...})",
        err.code());
  }
  triton_jit::LaunchConfig config;
  if (!e.tuning_grid.empty()) config.grid = parse_grid(e.tuning_grid, where);
  fn.launch(config, args.span());
  triton_jit::synchronize();
  const std::vector<triton_jit::TuningResult> results = fn.last_tuning();
  const triton_jit::TuningResult* chosen = nullptr;
  for (const triton_jit::TuningResult& r : results) {
    if (e.tuning_layer < 0 || r.layer == static_cast<size_t>(e.tuning_layer)) chosen = &r;
  }
  if (chosen == nullptr) {
    throw triton_jit::PackError(where + ": " + e.function +
                                    " made no tuning decision for this call (is it "
                                    "autotuned over more than one config?)",
                                manifest);
  }
  e.tuning_key = chosen->key;
  e.tuning_config = std::to_string(chosen->chosen);
  e.tuning_layer = static_cast<int>(chosen->layer);
  std::cout << e.function << ": key " << chosen->key << " on " << chosen->device << ": [" << chosen->chosen << "] "
            << chosen->chosen_config << (chosen->from_index ? " (stored in the kernel index)" : "") << '\n';
  // The chosen kernel, as the call launched it.
  const triton_jit::Specialization spec = fn.specialize(config, args.span());
  triton_jit::PackManifestEntry kernel;
  kernel.file = e.file;
  kernel.function = e.function;
  kernel.signature = spec.signature();
  kernel.num_warps = spec.num_warps;
  kernel.num_stages = spec.num_stages;
  kernel.num_ctas = spec.num_ctas;
  // The chosen config's compile options (maxnreg, ...), as the launch applied them.
  kernel.options = fn.signature().decorators[chosen->layer].autotune.configs[chosen->chosen].options;
  kernel.line = e.line;
  kernel.root = e.root;
  added->push_back(std::move(kernel));
}

}  // namespace

int run_pack(const Options& o) {
  triton_jit::PrepareOptions options;
  options.jobs = o.jobs;
  options.progress = o.quiet ? triton_jit::Progress::Never : triton_jit::Progress::Auto;
  options.progress_fd = terminal_stderr();  // stderr itself holds the compilers' output
  std::vector<triton_jit::PackManifestEntry> entries = triton_jit::read_pack_manifest(o.manifest);
  if (entries.empty()) {
    throw triton_jit::PackError("the pack manifest " + o.manifest + " lists no kernel", o.manifest);
  }
  std::vector<triton_jit::PackManifestEntry> added;
  for (triton_jit::PackManifestEntry& e : entries) {
    if (e.autotune && e.tuning_config.empty()) tune_line(e, o.manifest, &added);
  }
  entries.insert(entries.end(), added.begin(), added.end());
  const triton_jit::PackInfo pack = triton_jit::build_pack(entries, o.manifest, o.out_file, options);
  std::string targets;
  for (const triton_jit::Target& t : pack.targets) targets += (targets.empty() ? "" : ", ") + t.str();
  std::cout << pack.path << ": " << pack.kernels << " kernels of " << pack.functions.size() << " functions for "
            << targets << " (Triton " << pack.triton_version << ")\n";
  return 0;
}

}  // namespace triton_jit_cli

#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "triton_jit/export.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/prepare_options.h"
#include "triton_jit/target.h"

// Kernel packs: many compiled kernels in one file (format: docs/FORMATS.md), built ahead of time
// from a manifest and loaded by a process that then needs neither Python nor Triton for them.
namespace triton_jit {

struct PackInfo {
  std::string path;
  size_t kernels = 0;
  std::vector<std::string> functions;  // "path/relative/to/root.py:name", or "module:MODULE:name"
  std::vector<Target> targets;
  std::string triton_version;  // of the Triton that compiled the pack
};

// Loads a pack; its kernels serve launches that find nothing in memory. A pack whose kernels
// are all for another architecture than the current device is loaded but reported (it is of no
// use here). Throws PackError when the file is missing, damaged or of another format version.
// Packs named in TRITON_JIT_PACKS (separated by ':') are loaded on first use of the runtime.
TRITON_JIT_API PackInfo load_pack(const std::string& path);
TRITON_JIT_API std::vector<PackInfo> loaded_packs();
// Reads a pack's table of contents without loading it.
TRITON_JIT_API PackInfo read_pack_info(const std::string& path);

// One line of a pack manifest:
//   FILE.py:FUNCTION  SIGNATURE  [num_warps=N] [num_stages=N] [num_ctas=N] [OPTION=VALUE]...
//                     [target=cuda:90[,cuda:80...]]
// or, for a function under @triton.autotune, the config it takes for one tuning key:
//   FILE.py:FUNCTION  autotune key=KEY config=CHOICE [layer=L]
//   FILE.py:FUNCTION  autotune args=JSON [grid=X[,Y[,Z]]] [layer=L]   (triton-jit pack tunes it on a GPU)
// FILE is relative to the manifest; "module:MODULE:FUNCTION" names a function by module instead
// (TritonJitFunction::get_module: "module:pkg.sub.kernels:add_kernel"), and a process finds it in
// the pack by that module name even without Python. SIGNATURE is Triton's syntax
// ("*fp32:16,i32,1024"); other keys are compile options (Python literals), each given once. '#'
// starts a comment. A line `root=DIR` (relative to the manifest) names the folder the pack's file
// paths are relative to: a process without a function's source finds it by a path that ends with
// that relative path (default root: the deepest folder that holds every file of the manifest).
struct PackManifestEntry {
  std::string file;  // as written: a file, or "module:MODULE"
  std::string function;
  std::string signature;
  int num_warps = kDefaultNumWarps;
  int num_stages = kTargetDefaultNumStages;  // no num_stages=: each target's own default
  int num_ctas = kDefaultNumCtas;
  CompileOptions options;
  std::vector<Target> targets;  // empty: the default target (see KernelRequest::target)
  int line = 0;

  // An `autotune` line (it has no signature): the pack carries the choice as a tuning result, so
  // a pack-only process launches the function with no tuning and no Python for that key.
  bool autotune = false;
  std::string tuning_key;     // Triton's tuning key as printed: "(1024, 'torch.float16')"
  std::string tuning_config;  // the chosen config: its index ("1") or its values ({"BLOCK": 64, "num_warps": 4})
  std::string tuning_args;    // args=: the call's arguments as `triton-jit tune --args` takes them
  std::string tuning_grid;    // grid=: the grid to time that call with
  int tuning_layer = -1;      // the autotuner (its index in StaticSignature::decorators); -1: the only one

  // The manifest's root=DIR, as written (the same in every entry); empty: none stated.
  std::string root;
};

// Parses a manifest; throws PackError naming the line that does not parse.
TRITON_JIT_API std::vector<PackManifestEntry> read_pack_manifest(const std::string& manifest_path);

// Compiles every manifest entry for each of its targets (in parallel, as prepare does) and writes
// the pack to `out` atomically. Two different functions of one name whose paths relative to the
// root end alike (kern.py and sub/kern.py) are refused before anything compiles: a process
// without their sources could not tell them apart. An `autotune` line must name its config here (key= and config=);
// one with args= instead is tuned by `triton-jit pack` on a GPU, which then calls the form below.
// Throws PackError naming the line for a choice that does not fit the function.
TRITON_JIT_API PackInfo build_pack(const std::string& manifest_path, const std::string& out,
                                   const PrepareOptions& options = {});
// The same for entries already read (relative files are relative to `manifest_path`'s folder).
TRITON_JIT_API PackInfo build_pack(const std::vector<PackManifestEntry>& entries, const std::string& manifest_path,
                                   const std::string& out, const PrepareOptions& options = {});

}  // namespace triton_jit

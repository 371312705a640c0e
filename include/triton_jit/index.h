#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "triton_jit/export.h"
#include "triton_jit/target.h"

// The persistent kernel index: every kernel compiled in one process is stored on disk with all
// that identifies it, so that later processes launch it without starting Python.
namespace triton_jit {

// The index directory: set_index_dir(dir) wins, else TRITON_JIT_INDEX_DIR, else TRITON_JIT_CACHE_DIR
// (its former name), else $XDG_CACHE_HOME/triton_jit, else ~/.cache/triton_jit. An empty string
// (from any of the first three) turns the index off; std::nullopt returns to the environment's choice.
TRITON_JIT_API void set_index_dir(std::optional<std::string> dir);
// The directory in use; empty when the index is off.
TRITON_JIT_API std::string index_dir();

// Whether the index can be used now (`triton-jit index` says why not).
struct IndexStatus {
  enum class State {
    Usable,     // a folder this process may read and write
    Off,        // no index (TRITON_JIT_INDEX_DIR or set_index_dir is empty)
    Missing,    // the folder does not exist yet (nothing stored)
    ReadOnly,   // trusted and readable, but this process cannot write it
    Unusable,   // not a folder, not readable, a link below it, or not trusted (docs/FORMATS.md#trust)
  };
  State state = State::Off;
  std::string dir;
  std::string problem;  // for ReadOnly and Unusable: what is wrong and what to do
};
TRITON_JIT_API IndexStatus index_status();

// A source file a kernel was compiled from, as recorded then and as it is now.
struct IndexDependency {
  std::string path;
  std::string sha256;
  bool required = true;  // false: the Triton installation, which a deployment may lack
  std::string state;     // "unchanged", "changed", "missing"
};

struct IndexEntry {
  enum class State { Valid, Stale, Corrupt };

  std::string id;    // 64 hex digits; commands accept any unique prefix
  std::string file;  // the entry's file in the index
  State state = State::Valid;
  std::string problem;  // why the entry is stale or corrupt
  uint64_t bytes = 0;
  int64_t created_unix = 0;
  int64_t last_used_unix = 0;
  // Identity (empty when corrupt).
  std::string function_path;
  std::string function_name;
  std::string signature;  // Triton's syntax, e.g. "*fp32:16,i32,1024"
  int num_warps = 0, num_stages = 0, num_ctas = 0;
  std::string options;  // "name=value;..."
  Target target;
  std::string triton_version;
  // Binary.
  std::string kernel_name;
  uint64_t cubin_bytes = 0;
  int shared = 0;
  std::vector<IndexDependency> dependencies;
};

// A table the index keeps beside a function's kernels: an autotuner's choices (one row per tuning
// key: "(1024, 'torch.float16') -> [2] BLOCK: 1024, num_warps: 8, ...") or a heuristic's memoized
// values (one row per input).
struct IndexTable {
  std::string file;
  std::string function_path;
  std::string function_name;
  std::string name;  // "autotune/LAYER/CONFIGS_DIGEST/DEVICE" or "heuristic/LAYER/PARAMETER"
  std::vector<std::string> rows;
};
TRITON_JIT_API std::vector<IndexTable> list_index_tables();

// Every entry of the index, checked (dependencies re-hashed where their stamps changed).
TRITON_JIT_API std::vector<IndexEntry> list_index();
// The entry whose id starts with `id_prefix`; throws Error when none or several match.
TRITON_JIT_API IndexEntry index_entry(std::string_view id_prefix);
// Removes every entry (and every stored signature and table; the folders stay, for processes
// writing meanwhile); returns how many entries were removed.
TRITON_JIT_API size_t clear_index();
// Removes entries unused for `days` days or more, and entries that are stale or corrupt; also
// the temporary files that writers killed mid-write left (those over an hour old).
TRITON_JIT_API size_t prune_index(double days);

}  // namespace triton_jit

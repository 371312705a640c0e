#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernel/kernel_fields.h"
#include "key/key_text.h"
#include "store/binary_io.h"
#include "triton_jit/kernel_info.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/signature.h"
#include "triton_jit/target.h"

namespace triton_jit::detail {

// A file a compiled kernel depends on, as it was when compiled. A required file that is gone
// makes the kernel stale; an optional one (the Triton installation) only counts while present.
struct FileDependency {
  std::string path;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  std::string sha256;
  bool required = true;
};

// A recorded dependency as it is now. Cheap checks first: a file whose size and mtime are
// unchanged is not read. Missing: gone, or no longer readable.
enum class DependencyState { Unchanged, Changed, Missing };
DependencyState check_dependency(const FileDependency& dep);
// Why `dep` in state `state` makes a kernel stale (it changed, or it is required and missing);
// empty when it does not.
std::string dependency_problem(const FileDependency& dep, DependencyState state);
// The first dependency_problem of `deps`, or empty when all hold.
std::string stale_reason(const std::vector<FileDependency>& deps);
// The dependency record of `path` as it is now; nothing if it cannot be read.
std::optional<FileDependency> describe_file(const std::string& path, bool required);

struct KernelRecord {
  std::string function_path;  // canonical path of the .py file at compile time
  std::string function_name;
  KernelKey key;
  std::vector<FileDependency> dependencies;
  int64_t created_unix = 0;
  CompiledKernel kernel;
};

struct SignatureRecord {
  std::vector<FileDependency> dependencies;
  StaticSignature signature;
};

void write_kernel_record(BinaryWriter& w, const KernelRecord& r);
KernelRecord read_kernel_record(BinaryReader& r);
void write_signature(BinaryWriter& w, const StaticSignature& s);
StaticSignature read_signature(BinaryReader& r);
// A Python value as DefaultValue holds it (a default, a config's constexpr, a heuristic's result).
void write_value(BinaryWriter& w, const DefaultValue& d);
DefaultValue read_value(BinaryReader& r);
// Compile options as a decorator record holds them (a frozen LibEntry choice's, say).
void write_compile_options(BinaryWriter& w, const CompileOptions& options);
CompileOptions read_compile_options(BinaryReader& r);
void write_dependencies(BinaryWriter& w, const std::vector<FileDependency>& deps);
std::vector<FileDependency> read_dependencies(BinaryReader& r);

}  // namespace triton_jit::detail

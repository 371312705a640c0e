#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "store/pack_file.h"
#include "triton_jit/pack.h"

namespace triton_jit::detail {

// The packs this process loaded. Packs stay loaded until exit; lookups run on misses only.
class PackRegistry {
 public:
  static PackRegistry& instance();

  // Loads a pack; `device` (null: none) is the current device's target (cuda:90, hip:gfx942),
  // warned about when the pack holds no kernel for it.
  PackInfo load(const std::string& path, const Target* device);
  std::vector<PackInfo> infos();

  // The packed function a caller's `path` (a file, or "module:NAME") and `name` stand for, and
  // the hash packs know it by from then on. With the file there (`source_sha256` its hash), one
  // of that hash; without it, one at a place `path` ends with (PackFunction::file). Throws
  // KernelLookupError when functions of different sources fit a path without a file (packs
  // built from different roots, each of which holds a file of that name).
  struct FoundFunction {
    StaticSignature signature;
    std::string source_sha256;
  };
  std::optional<FoundFunction> find_function(const std::string& path, const std::string& name,
                                             const std::string& source_sha256);
  // Where the loaded packs hold functions called `name` ("a/kern.py (in k.tjp)"), for errors.
  std::vector<std::string> places_of(const std::string& name);
  // The lookups below take the hash packs know the function by (FunctionState::pack_sha256):
  // a function's identity is its name and that hash, never its file name alone.
  // The entries of a function's table (tuning results, heuristic memos) in the loaded packs.
  std::vector<std::pair<std::string, std::string>> find_table(const std::string& name, const std::string& source_sha256,
                                                              const std::string& table);
  std::optional<CompiledKernel> find_kernel(const std::string& name, const std::string& source_sha256,
                                            const KernelKey& key);
  // Why no loaded pack serves `key` although a pack holds something close (another target,
  // another version of the file at `path`); empty when no pack comes close.
  std::string explain_miss(const std::string& path, const std::string& name, const std::string& source_sha256,
                           const KernelKey& key);

 private:
  struct Pack {
    PackInfo info;
    PackContents contents;
    std::vector<std::string> key_texts;  // KernelKey::text() of each kernel, built once at load
  };
  std::mutex mutex_;
  std::vector<std::unique_ptr<Pack>> packs_;
};

PackInfo pack_info(const std::string& path, const PackContents& contents);
// A pack file's contents; throws PackError when it is missing, not a regular file, larger than
// kMaxPackBytes, or cannot be used.
PackContents read_pack(const std::string& path);
// Whether a caller's `path` (a file, or "module:NAME") is at `place` (PackFunction::file): the
// module itself, or a file whose path ends with the place's folders and name.
bool at_pack_place(const std::string& place, const std::string& path);

}  // namespace triton_jit::detail

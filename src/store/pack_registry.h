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

  // Loads a pack; `device_arch` (0: none) is the device's architecture, warned about when the
  // pack holds no kernel for it.
  PackInfo load(const std::string& path, int device_arch);
  std::vector<PackInfo> infos();

  // A function of file `path` (`source_sha256` of its contents; empty when the file is absent,
  // then the file name decides) called `name`.
  std::optional<StaticSignature> find_signature(const std::string& path, const std::string& name,
                                                const std::string& source_sha256);
  // The entries of a function's table (tuning results, heuristic memos) in the loaded packs.
  std::vector<std::pair<std::string, std::string>> find_table(const std::string& path, const std::string& name,
                                                              const std::string& source_sha256,
                                                              const std::string& table);
  std::optional<CompiledKernel> find_kernel(const std::string& path, const std::string& name,
                                            const std::string& source_sha256, const KernelKey& key);
  // Why no loaded pack serves `key` although a pack holds something close (another target,
  // another version of the file); empty when no pack comes close.
  std::string explain_miss(const std::string& path, const std::string& name, const std::string& source_sha256,
                           const KernelKey& key);

 private:
  struct Pack {
    PackInfo info;
    PackContents contents;
    std::vector<std::string> key_texts;  // KernelKey::text() of each kernel, built once at load
  };
  static bool matches(const PackFunction& f, const std::string& path, const std::string& name,
                      const std::string& source_sha256);

  std::mutex mutex_;
  std::vector<std::unique_ptr<Pack>> packs_;
};

PackInfo pack_info(const std::string& path, const PackContents& contents);
// A pack file's contents; throws PackError when it is missing or cannot be used.
PackContents read_pack(const std::string& path);

}  // namespace triton_jit::detail

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

  PackInfo load(const std::string& path);
  // Loads the packs named in TRITON_JIT_PACKS, once; a pack that fails is reported and skipped.
  void load_environment_packs();
  std::vector<PackInfo> infos();

  // A function of file `path` (`source_sha256` of its contents; empty when the file is absent,
  // then the file name decides) called `name`.
  std::optional<StaticSignature> find_signature(const std::string& path, const std::string& name,
                                                const std::string& source_sha256);
  std::optional<KernelInfo> find_kernel(const std::string& path, const std::string& name,
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
  std::once_flag env_once_;
};

PackInfo pack_info(const std::string& path, const PackContents& contents);

}  // namespace triton_jit::detail

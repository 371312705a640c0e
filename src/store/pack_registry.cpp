#include "store/pack_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "store/files.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {
namespace {

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// How messages about devices name a target: sm_90 for cuda, hip:gfx942 otherwise.
std::string arch_name(const Target& t) { return t.backend == "cuda" ? "sm_" + std::to_string(t.arch) : t.str(); }

}  // namespace

PackContents read_pack(const std::string& path) {
  std::string error;
  auto bytes = read_file(path, &error);
  if (!bytes) throw PackError("cannot read the kernel pack " + path + ": " + error, path);
  try {
    return decode_pack(*bytes);
  } catch (const FormatError& e) {
    throw PackError("the kernel pack " + path + " cannot be used: " + e.what +
                        ". Rebuild it with `triton-jit pack MANIFEST --out " + path + "`.",
                    path);
  }
}

PackInfo pack_info(const std::string& path, const PackContents& contents) {
  PackInfo info;
  info.path = path;
  info.kernels = contents.kernels.size();
  for (const PackFunction& f : contents.functions) info.functions.push_back(f.file + ":" + f.name);
  for (const KernelRecord& k : contents.kernels) {
    if (std::find(info.targets.begin(), info.targets.end(), k.key.target) == info.targets.end()) {
      info.targets.push_back(k.key.target);
    }
    if (info.triton_version.empty()) info.triton_version = k.kernel.info.triton_version;
  }
  return info;
}

PackRegistry& PackRegistry::instance() {
  static auto* registry = new PackRegistry();
  return *registry;
}

PackInfo PackRegistry::load(const std::string& path, int device_arch) {
  auto pack = std::make_unique<Pack>();
  pack->contents = read_pack(path);
  pack->info = pack_info(path, pack->contents);
  for (const KernelRecord& k : pack->contents.kernels) pack->key_texts.push_back(k.key.text());
  const int arch = device_arch;
  if (arch != 0 && !pack->info.targets.empty() &&
      std::none_of(pack->info.targets.begin(), pack->info.targets.end(),
                   [&](const Target& t) { return t.backend == "cuda" && t.arch == arch; })) {
    std::string archs;
    for (const Target& t : pack->info.targets) {
      archs += (archs.empty() ? "" : ", ") + arch_name(t);
    }
    std::fprintf(stderr,
                 "[triton_jit] warning: the kernel pack %s holds kernels for %s only, but the device is sm_%d: "
                 "they are skipped here, and kernels compile just in time where Python and Triton are available. "
                 "Add target=cuda:%d to the manifest to pack for this device.\n",
                 path.c_str(), archs.c_str(), arch, arch);
  }
  PackInfo info = pack->info;
  std::lock_guard<std::mutex> lock(mutex_);
  packs_.push_back(std::move(pack));
  return info;
}

std::vector<PackInfo> PackRegistry::infos() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<PackInfo> out;
  for (const auto& p : packs_) out.push_back(p->info);
  return out;
}

bool PackRegistry::matches(const PackFunction& f, const std::string& path, const std::string& name,
                           const std::string& source_sha256) {
  if (f.name != name) return false;
  return source_sha256.empty() ? file_name(f.file) == file_name(path) : f.source_sha256 == source_sha256;
}

std::optional<StaticSignature> PackRegistry::find_signature(const std::string& path, const std::string& name,
                                                            const std::string& source_sha256) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& p : packs_) {
    for (const PackFunction& f : p->contents.functions) {
      if (matches(f, path, name, source_sha256)) {
        StaticSignature s = f.signature;
        s.file = path;
        return s;
      }
    }
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> PackRegistry::find_table(const std::string& path,
                                                                          const std::string& name,
                                                                          const std::string& source_sha256,
                                                                          const std::string& table) {
  std::vector<std::pair<std::string, std::string>> out;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& p : packs_) {
    for (const PackFunction& f : p->contents.functions) {
      if (!matches(f, path, name, source_sha256)) continue;
      for (const auto& [t, entries] : f.tables) {
        if (t == table) out.insert(out.end(), entries.begin(), entries.end());
      }
    }
  }
  return out;
}

std::optional<CompiledKernel> PackRegistry::find_kernel(const std::string& path, const std::string& name,
                                                        const std::string& source_sha256, const KernelKey& key) {
  const std::string text = key.text();
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& p : packs_) {
    const PackContents& c = p->contents;
    for (size_t i = 0; i < c.kernels.size(); ++i) {
      if (p->key_texts[i] == text && matches(c.functions[c.kernel_function[i]], path, name, source_sha256)) {
        return c.kernels[i].kernel;
      }
    }
  }
  return std::nullopt;
}

std::string PackRegistry::explain_miss(const std::string& path, const std::string& name,
                                       const std::string& source_sha256, const KernelKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string notes;
  for (const auto& p : packs_) {
    const PackContents& c = p->contents;
    for (size_t i = 0; i < c.kernels.size(); ++i) {
      const PackFunction& f = c.functions[c.kernel_function[i]];
      const KernelKey& k = c.kernels[i].key;
      if (f.name != name || k.signature != key.signature) continue;
      if (!matches(f, path, name, source_sha256)) {
        notes += "; " + p->info.path + " holds it for another version of " + f.file + " (the sources differ)";
      } else if (!(k.target == key.target)) {
        notes += "; " + p->info.path + " holds it for " + arch_name(k.target) + ", not " + arch_name(key.target);
      } else if (p->key_texts[i] != key.text()) {
        notes += "; " + p->info.path + " holds it with other launch options (" + p->key_texts[i] + ")";
      }
    }
  }
  return notes.empty() ? notes : notes.substr(2);
}

}  // namespace triton_jit::detail

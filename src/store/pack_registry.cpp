#include "store/pack_registry.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "store/files.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {
namespace {

// How a manifest names a function by module (bridge::kModulePrefix; the store reads packs
// without the bridge).
constexpr std::string_view kModulePlace = "module:";

// How messages about devices name a target: sm_90 for cuda, hip:gfx942 otherwise.
std::string arch_name(const Target& t) { return t.backend == "cuda" ? "sm_" + std::to_string(t.arch) : t.str(); }

std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// A pack's bytes. Only a regular file (a link to one is fine) of at most kMaxPackBytes is read: a
// device (/dev/zero) or a FIFO named as a pack would otherwise be read without end or block for
// ever. So the file is opened without blocking, checked, and read only then, up to the size it
// had when checked. (Checked before opening too: opening some devices does something.)
std::string read_pack_bytes(const std::string& path) {
  const auto fail = [&](const std::string& why) {
    return PackError("cannot read the kernel pack " + path + ": " + why, path);
  };
  const auto not_regular = [&](mode_t mode) {
    return fail("it is " + file_kind(mode) +
                ", and a pack is read only from a regular file: name the .tjp file `triton-jit pack` wrote");
  };
  struct stat before {};
  if (::stat(path.c_str(), &before) == 0 && !S_ISREG(before.st_mode)) throw not_regular(before.st_mode);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw fail(std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw fail(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw not_regular(st.st_mode);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > kMaxPackBytes) {
    throw fail("it is " + std::to_string(size) + " bytes, more than the " + std::to_string(kMaxPackBytes >> 30) +
               " GiB a pack may have: is it a pack at all? Split a manifest this large into several packs");
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) throw fail(std::strerror(errno));
  std::string bytes(static_cast<size_t>(size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n == 0) break;  // shrunk meanwhile: the seal's size check says so
    if (n < 0) {
      if (errno == EINTR) continue;
      throw fail(std::strerror(errno));
    }
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

}  // namespace

bool at_pack_place(const std::string& place, const std::string& path) {
  if (place.empty()) return false;
  if (place.rfind(kModulePlace, 0) == 0 || path.rfind(kModulePlace, 0) == 0) return place == path;
  const std::string file = std::filesystem::path(path).lexically_normal().generic_string();
  return file == place ||
         (file.size() > place.size() && file.compare(file.size() - place.size(), place.size(), place) == 0 &&
          file[file.size() - place.size() - 1] == '/');
}

PackContents read_pack(const std::string& path) {
  const std::string bytes = read_pack_bytes(path);
  try {
    return decode_pack(bytes);
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

PackInfo PackRegistry::load(const std::string& path, const Target* device) {
  auto pack = std::make_unique<Pack>();
  pack->contents = read_pack(path);
  pack->info = pack_info(path, pack->contents);
  for (const KernelRecord& k : pack->contents.kernels) pack->key_texts.push_back(k.key.text());
  if (device != nullptr && !pack->info.targets.empty() &&
      std::none_of(pack->info.targets.begin(), pack->info.targets.end(), [&](const Target& t) {
        return t.backend == device->backend && t.arch == device->arch;
      })) {
    std::string archs;
    for (const Target& t : pack->info.targets) {
      archs += (archs.empty() ? "" : ", ") + arch_name(t);
    }
    std::fprintf(stderr,
                 "[triton_jit] warning: the kernel pack %s holds kernels for %s only, but the device is %s: "
                 "they are skipped here, and kernels compile just in time where Python and Triton are available. "
                 "Add target=%s to the manifest to pack for this device.\n",
                 path.c_str(), archs.c_str(), arch_name(*device).c_str(), device->str().c_str());
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

std::optional<PackRegistry::FoundFunction> PackRegistry::find_function(const std::string& path, const std::string& name,
                                                                       const std::string& source_sha256) {
  std::lock_guard<std::mutex> lock(mutex_);
  const PackFunction* found = nullptr;
  std::string found_in;
  for (const auto& p : packs_) {
    for (const PackFunction& f : p->contents.functions) {
      if (f.name != name) continue;
      if (!source_sha256.empty()) {
        if (f.source_sha256 != source_sha256) continue;
      } else if (!at_pack_place(f.file, path)) {
        continue;
      }
      if (found == nullptr) {
        found = &f;
        found_in = p->info.path;
      } else if (found->source_sha256 != f.source_sha256) {
        throw KernelLookupError("cannot get Triton function '" + name + "' of " + path +
                                    " from the loaded kernel packs: its file is absent, and two packed functions "
                                    "of different sources fit that path: " +
                                    found->file + " (in " + found_in + ") and " + f.file + " (in " + p->info.path +
                                    "). Pack them into one pack, from one root, so that their paths tell them apart",
                                path, name);
      }
    }
  }
  if (found == nullptr) return std::nullopt;
  FoundFunction out{found->signature, found->source_sha256};
  out.signature.file = path;
  return out;
}

std::vector<std::string> PackRegistry::places_of(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& p : packs_) {
    for (const PackFunction& f : p->contents.functions) {
      if (f.name == name) out.push_back(f.file + " (in " + p->info.path + ")");
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> PackRegistry::find_table(const std::string& name,
                                                                          const std::string& source_sha256,
                                                                          const std::string& table) {
  std::vector<std::pair<std::string, std::string>> out;
  if (source_sha256.empty()) return out;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& p : packs_) {
    for (const PackFunction& f : p->contents.functions) {
      if (f.name != name || f.source_sha256 != source_sha256) continue;
      for (const auto& [t, entries] : f.tables) {
        if (t == table) out.insert(out.end(), entries.begin(), entries.end());
      }
    }
  }
  return out;
}

std::optional<CompiledKernel> PackRegistry::find_kernel(const std::string& name, const std::string& source_sha256,
                                                        const KernelKey& key) {
  if (source_sha256.empty()) return std::nullopt;
  const std::string text = key.text();
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& p : packs_) {
    const PackContents& c = p->contents;
    for (size_t i = 0; i < c.kernels.size(); ++i) {
      const PackFunction& f = c.functions[c.kernel_function[i]];
      if (p->key_texts[i] == text && f.name == name && f.source_sha256 == source_sha256) return c.kernels[i].kernel;
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
      if (f.source_sha256 != source_sha256) {
        // Another function of that name (another file) is not close; another version of this one is.
        if (at_pack_place(f.file, path)) {
          notes += "; " + p->info.path + " holds it for another version of " + f.file + " (the sources differ)";
        }
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

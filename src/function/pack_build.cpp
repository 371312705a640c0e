// Kernel packs (triton_jit/pack.h): building a pack from a manifest (the resolver's batch entry
// compiles what it lists; pack_manifest.cpp reads the manifest; store/pack.cpp loads packs).
#include "triton_jit/pack.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

#include "bridge/bridge.h"
#include "decorators/config_choice.h"
#include "decorators/decorated_call.h"
#include "resolve/resolver.h"
#include "settings/settings.h"
#include "store/binary_io.h"
#include "store/files.h"
#include "store/index_entries.h"
#include "store/pack_file.h"
#include "store/pack_registry.h"

namespace triton_jit {
namespace {

namespace fs = std::filesystem;

// Fails before anything compiles when the pack could not be written at the end: `out` names a
// folder, or its folder cannot be created or take a file. The folder is probed with a file, which
// also covers read-only mounts, full disks and permissions that access() misjudges for root; the
// probe is named as the store names its temporary files, so that one left by a killed process is
// recognised (and pruned) as such.
void check_pack_output(const std::string& out) {
  auto fail = [&](const std::string& why) {
    throw PackError("cannot write the kernel pack " + out + ": " + why + " (checked before compiling anything)", out);
  };
  if (out.empty()) fail("the output path is empty");
  const fs::path path(out);
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail("it is a folder; give a file name such as " + (path / "kernels.tjp").string());
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::exists(folder, ec)) {
    fs::create_directories(folder, ec);
    if (ec) fail(ec.message() + " (creating its folder " + folder.string() + ")");
  } else if (!fs::is_directory(folder, ec)) {
    fail(folder.string() + " is not a folder");
  }
  const std::string probe = out + std::string(detail::kTempInfix) + std::to_string(::getpid()) + ".probe";
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail(std::string(std::strerror(errno)) + " (its folder " + folder.string() + " takes no new file)");
  const int closed = ::close(fd);
  const int close_errno = errno;
  ::unlink(probe.c_str());
  if (closed != 0)
    fail(std::string(std::strerror(close_errno)) + " (its folder " + folder.string() + " takes no new file)");
}

bool by_module(const PackManifestEntry& e) { return e.file.rfind(bridge::kModulePrefix, 0) == 0; }

// A path a manifest gives (a file, the root): relative ones are relative to its folder `base`.
fs::path manifest_path_of(const std::string& path, const fs::path& base) {
  fs::path p = (fs::path(path).is_absolute() ? fs::path(path) : base / path).lexically_normal();
  if (p.has_relative_path() && p.filename().empty()) p = p.parent_path();  // "kernels/"
  return p;
}

std::string where(const std::string& manifest_path, const PackManifestEntry& e) {
  return manifest_path + ":" + std::to_string(e.line);
}

// The folder a pack's file paths are relative to: the manifest's root= line (relative to the
// manifest), else the deepest folder that holds every file the manifest names, so that a pack of
// one folder's files names them by file name alone.
fs::path pack_root(const std::vector<PackManifestEntry>& entries, const fs::path& base,
                   const std::string& manifest_path) {
  const PackManifestEntry* stated = nullptr;
  for (const PackManifestEntry& e : entries) {
    if (e.root.empty()) continue;
    if (stated != nullptr && e.root != stated->root) {
      throw PackError(where(manifest_path, e) + ": the root " + e.root + " differs from " + stated->root + " (line " +
                          std::to_string(stated->line) + "): a pack has one root",
                      manifest_path);
    }
    stated = &e;
  }
  if (stated != nullptr) return manifest_path_of(stated->root, base);
  std::optional<fs::path> common;
  for (const PackManifestEntry& e : entries) {
    if (by_module(e)) continue;
    const fs::path folder = manifest_path_of(e.file, base).parent_path();
    if (!common) {
      common = folder;
      continue;
    }
    fs::path shared;
    for (auto a = common->begin(), b = folder.begin(); a != common->end() && b != folder.end() && *a == *b; ++a, ++b) {
      shared /= *a;
    }
    common = shared;
  }
  return common.value_or(base);
}

// Where a process without the sources finds the function of line `e` (PackFunction::file).
std::string pack_place(const PackManifestEntry& e, const fs::path& base, const fs::path& root,
                       const std::string& manifest_path) {
  if (by_module(e)) return e.file;
  const fs::path relative = manifest_path_of(e.file, base).lexically_relative(root);
  if (relative.empty() || *relative.begin() == "..") {
    throw PackError(where(manifest_path, e) + ": " + e.file + " is not inside the pack's root " + root.string() +
                        " (the manifest's root= line): state a root that holds every file of the manifest",
                    manifest_path);
  }
  return relative.generic_string();
}

// A process without the sources takes the packed function whose place its path ends with: two
// functions of one name whose places end alike (kern.py and sub/kern.py) and whose sources differ
// cannot be told apart there, so the pack is refused before anything compiles.
void check_distinct_places(const std::vector<const PackManifestEntry*>& lines,
                           const std::vector<const TritonJitFunction*>& functions,
                           const std::vector<std::string>& places, const fs::path& root,
                           const std::string& manifest_path) {
  for (size_t i = 0; i < functions.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      const TritonJitFunction& a = *functions[j];
      const TritonJitFunction& b = *functions[i];
      if (&a == &b || a.name() != b.name()) continue;
      if (!detail::at_pack_place(places[j], places[i]) && !detail::at_pack_place(places[i], places[j])) continue;
      if (detail::Resolver::pack_sha256(a) == detail::Resolver::pack_sha256(b)) continue;
      throw PackError(where(manifest_path, *lines[i]) + ": " + places[i] + ":" + b.name() + " and " + places[j] + ":" +
                          a.name() + " (line " + std::to_string(lines[j]->line) +
                          ", paths relative to the pack's root " + root.string() +
                          ") are different functions that a process without their sources cannot "
                          "tell apart: it finds a packed function by a path that ends with the path above. Rename "
                          "one of them or one of their files, or pack them separately",
                      manifest_path);
    }
  }
}

}  // namespace

PackInfo build_pack(const std::string& manifest_path, const std::string& out, const PrepareOptions& options) {
  const std::vector<PackManifestEntry> entries = read_pack_manifest(manifest_path);
  if (entries.empty()) throw PackError("the pack manifest " + manifest_path + " lists no kernel", manifest_path);
  return build_pack(entries, manifest_path, out, options);
}

PackInfo build_pack(const std::vector<PackManifestEntry>& entries, const std::string& manifest_path,
                    const std::string& out, const PrepareOptions& options) {
  check_pack_output(out);
  const fs::path base = fs::absolute(fs::path(manifest_path)).parent_path();
  const fs::path root = pack_root(entries, base, manifest_path);
  std::vector<KernelRequest> requests;
  // Per manifest line: its function and that function's place in the pack.
  std::vector<const PackManifestEntry*> lines;
  std::vector<const TritonJitFunction*> functions;
  std::vector<std::string> places;
  // The autotune lines, checked before anything compiles.
  struct NamedChoice {
    const PackManifestEntry* entry;
    const TritonJitFunction* function;
    uint32_t config;
    std::string table;
  };
  std::vector<NamedChoice> choices;
  for (const PackManifestEntry& e : entries) {
    const fs::path file = fs::path(e.file).is_absolute() ? fs::path(e.file) : base / e.file;
    const std::string place = pack_place(e, base, root, manifest_path);
    const TritonJitFunction* fn = nullptr;
    try {
      fn = by_module(e)
               ? &TritonJitFunction::get_module(e.file.substr(std::string(bridge::kModulePrefix).size()), e.function)
               : &TritonJitFunction::get(file.string(), e.function);
    } catch (const Error& err) {
      throw PackError(manifest_path + ":" + std::to_string(e.line) + ": " + err.what(), manifest_path);
    }
    lines.push_back(&e);
    functions.push_back(fn);
    places.push_back(place);
    if (e.autotune) {
      if (e.tuning_key.empty() || e.tuning_config.empty()) {
        throw PackError(manifest_path + ":" + std::to_string(e.line) + ": " + e.function +
                            ": this autotune line has no key= and config=: `triton-jit pack` tunes a line with "
                            "args= on a GPU; elsewhere name the chosen config (key=KEY config=CHOICE)",
                        manifest_path);
      }
      const auto fail = [&](const std::string& why) {
        return PackError(manifest_path + ":" + std::to_string(e.line) + ": " + e.function + ": " + why, manifest_path);
      };
      std::string why;
      const std::optional<size_t> layer = detail::autotune_layer_of(fn->signature(), e.tuning_layer, &why);
      if (!layer) throw fail(why);
      const AutotuneInfo& info = fn->signature().decorators[*layer].autotune;
      const std::optional<uint32_t> config = detail::config_choice(fn->signature(), info, e.tuning_config, &why);
      if (!config) throw fail(why);
      choices.push_back({&e, fn, *config, detail::named_choice_table(*layer, detail::configs_digest(info))});
      continue;
    }
    std::vector<std::optional<Target>> targets(e.targets.begin(), e.targets.end());
    if (targets.empty()) targets.push_back(std::nullopt);
    for (const auto& t : targets) {
      KernelRequest r;
      r.function = fn;
      r.signature = e.signature;
      r.num_warps = e.num_warps;
      r.num_stages = e.num_stages;
      r.num_ctas = e.num_ctas;
      r.options = e.options;
      r.target = t;
      requests.push_back(std::move(r));
    }
  }
  check_distinct_places(lines, functions, places, root, manifest_path);
  std::map<const TritonJitFunction*, std::string> place_of;
  for (size_t i = 0; i < functions.size(); ++i) place_of.emplace(functions[i], places[i]);
  PrepareOptions build = options;
  build.load = false;
  std::vector<detail::ResolvedKernel> kernels;
  detail::Resolver::resolve_batch(requests, build, "pack", &kernels);

  detail::PackContents pack;
  std::map<const TritonJitFunction*, uint32_t> function_index;
  std::map<std::pair<uint32_t, std::string>, bool> stored;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const detail::ResolvedKernel& k = kernels[i];
    auto [it, fresh] = function_index.emplace(k.function, static_cast<uint32_t>(pack.functions.size()));
    if (fresh) {
      detail::PackFunction f;
      f.name = k.function->name();
      f.file = place_of.at(k.function);
      f.source_sha256 = k.source_sha256;
      f.signature = k.function->signature();
      f.signature.file = f.file;
      // Tuning results and memoized heuristic values, so a pack-only process needs neither.
      f.tables = detail::KernelIndex::instance().tables_of(k.function->path(), k.function->name(),
                                                           bridge::python_environment());
      pack.functions.push_back(std::move(f));
    }
    if (!stored.emplace(std::make_pair(it->second, k.key.text()), true).second) continue;
    detail::KernelRecord record;
    record.function_path = pack.functions[it->second].file;
    record.function_name = k.function->name();
    record.key = k.key;
    record.created_unix = static_cast<int64_t>(std::time(nullptr));
    record.kernel = k.entry->kernel();
    pack.kernel_function.push_back(it->second);
    pack.kernels.push_back(std::move(record));
  }
  for (const NamedChoice& c : choices) {
    const auto it = function_index.find(c.function);
    if (it == function_index.end()) {
      throw PackError(manifest_path + ":" + std::to_string(c.entry->line) + ": " + c.entry->function +
                          ": the manifest has no kernel line for this function: add the chosen config's kernel "
                          "(the signature `triton-jit specialize` prints for the @triton.jit function under the "
                          "decorators, with the config's constexprs and num_warps/num_stages)",
                      manifest_path);
    }
    detail::BinaryWriter value;
    value.u32(c.config);
    value.str(c.entry->tuning_key);
    auto& tables = pack.functions[it->second].tables;
    auto t = std::find_if(tables.begin(), tables.end(), [&](const auto& x) { return x.first == c.table; });
    if (t == tables.end()) t = tables.insert(tables.end(), {c.table, {}});
    t->second.emplace_back(detail::canonical_key_text(c.entry->tuning_key), value.bytes());
  }
  const std::string why = detail::write_file_atomically(out, detail::encode_pack(pack));
  if (!why.empty()) throw PackError("cannot write the kernel pack " + out + ": " + why, out);
  return detail::pack_info(out, pack);
}

}  // namespace triton_jit

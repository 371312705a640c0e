#include "store/kernel_index.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "store/files.h"
#include "store/sha256.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kKernelMagic = "TJITKRNL";
constexpr std::string_view kSignatureMagic = "TJITSIGN";
constexpr std::string_view kTableMagic = "TJITTABL";
constexpr std::string_view kModuleMagic = "TJITMODL";
constexpr uint32_t kFormatVersion = 3;  // 2: kernel records carry tensor-descriptor metadata; 3: signatures
                                        // carry decorators, tables hold tuning results and heuristic memos
#define TRITON_JIT_INDEX_DIR "v3"       // the folder of this format version, beside older ones

std::string default_directory() {
  if (const char* env = std::getenv("TRITON_JIT_CACHE_DIR")) return env;  // empty: off
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/triton_jit";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/triton_jit";
  return {};
}

int64_t now_unix() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

const char* state_name(DependencyState s) {
  switch (s) {
    case DependencyState::Unchanged: return "unchanged";
    case DependencyState::Changed: return "changed";
    case DependencyState::Missing: return "missing";
  }
  return "?";
}

}  // namespace

KernelIndex& KernelIndex::instance() {
  static auto* index = new KernelIndex();  // used until exit, by any thread
  return *index;
}

void KernelIndex::set_directory(std::optional<std::string> dir) {
  std::lock_guard<std::mutex> lock(mutex_);
  dir_ = dir ? *dir : default_directory();
  resolved_ = true;
  writes_off_.store(false, std::memory_order_relaxed);
}

std::string KernelIndex::directory() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!resolved_) {
    dir_ = default_directory();
    resolved_ = true;
  }
  return dir_;
}

std::string KernelIndex::kernel_id(const std::string& path, const std::string& name, const KernelKey& key,
                                   const std::string& environment) {
  const std::string_view nul("\0", 1);
  Sha256 h;
  h.update(path).update(nul).update(name).update(nul).update(key.text()).update(nul).update(environment);
  return h.hex();
}

std::string KernelIndex::compile_lock_file(const std::string& path, const std::string& name, const KernelKey& key,
                                           const std::string& environment) {
  const std::string dir = directory();
  if (dir.empty()) return {};
  return sharded_file(dir, "locks", kernel_id(path, name, key, environment), ".lock");
}

std::string KernelIndex::kernel_file(const std::string& dir, const std::string& id) const {
  return sharded_file(dir, "kernels", id, ".tjk");
}

// DIR/v3/FOLDER/XX/ID.EXT: kernels are many, so their files spread over 256 folders.
std::string KernelIndex::sharded_file(const std::string& dir, const char* folder, const std::string& id,
                                      const char* extension) {
  return dir + "/" TRITON_JIT_INDEX_DIR "/" + folder + "/" + id.substr(0, 2) + "/" + id + extension;
}

std::string KernelIndex::signature_file(const std::string& dir, const std::string& path, const std::string& name,
                                        const std::string& environment) const {
  const std::string_view nul("\0", 1);
  Sha256 h;
  h.update(path).update(nul).update(name).update(nul).update(environment);
  return dir + "/" TRITON_JIT_INDEX_DIR "/functions/" + h.hex() + ".tjs";
}

std::string KernelIndex::module_record_file(const std::string& dir, const std::string& module,
                                            const std::string& environment) const {
  const std::string_view nul("\0", 1);
  Sha256 h;
  h.update(module).update(nul).update(environment);
  return dir + "/" TRITON_JIT_INDEX_DIR "/modules/" + h.hex() + ".tjm";
}

void KernelIndex::warn_damaged(const std::string& file, const std::string& why) {
  std::fprintf(stderr, "[triton_jit] warning: ignoring the damaged cache entry %s (%s); it will be rebuilt\n",
               file.c_str(), why.c_str());
}

void KernelIndex::write(const std::string& dir, const std::string& file, const std::string& bytes) {
  if (writes_off_.load(std::memory_order_relaxed)) return;
  const std::string why = write_file_atomically(file, bytes);
  if (why.empty()) return;
  if (!writes_off_.exchange(true)) {
    std::fprintf(stderr,
                 "[triton_jit] warning: cannot write the kernel cache in %s (%s): compiled kernels stay in memory "
                 "for this process only. Set TRITON_JIT_CACHE_DIR to a writable directory, or to an empty value "
                 "to turn the cache off.\n",
                 dir.c_str(), why.c_str());
  }
}

std::optional<KernelRecord> KernelIndex::load(const std::string& path, const std::string& name, const KernelKey& key,
                                              const std::string& environment, std::string* stale) {
  const std::string dir = directory();
  if (dir.empty()) return std::nullopt;
  const std::string file = kernel_file(dir, kernel_id(path, name, key, environment));
  auto bytes = read_file(file);
  if (!bytes) return std::nullopt;
  KernelRecord record;
  try {
    BinaryReader r(unseal(*bytes, kKernelMagic, kFormatVersion));
    record = read_kernel_record(r);
  } catch (const FormatError& e) {
    warn_damaged(file, e.what);
    return std::nullopt;
  }
  if (record.function_path != path || record.function_name != name || record.key.text() != key.text()) {
    return std::nullopt;  // another kernel under the same digest: never trust it
  }
  if (std::string why = stale_reason(record.dependencies); !why.empty()) {
    if (stale != nullptr) *stale = std::move(why);
    return std::nullopt;
  }
  ::utimensat(AT_FDCWD, file.c_str(), nullptr, 0);  // last use, for prune; fails quietly when read-only
  return record;
}

void KernelIndex::store(const KernelRecord& record, const std::string& environment) {
  const std::string dir = directory();
  if (dir.empty()) return;
  BinaryWriter w;
  write_kernel_record(w, record);
  write(dir, kernel_file(dir, kernel_id(record.function_path, record.function_name, record.key, environment)),
        seal(kKernelMagic, kFormatVersion, w.bytes()));
}

std::optional<StaticSignature> KernelIndex::load_signature(const std::string& path, const std::string& name,
                                                           const std::string& environment) {
  const std::string dir = directory();
  if (dir.empty()) return std::nullopt;
  const std::string file = signature_file(dir, path, name, environment);
  auto bytes = read_file(file);
  if (!bytes) return std::nullopt;
  try {
    BinaryReader r(unseal(*bytes, kSignatureMagic, kFormatVersion));
    std::vector<FileDependency> deps = read_dependencies(r);
    StaticSignature s = read_signature(r);
    if (s.file != path || !stale_reason(deps).empty()) return std::nullopt;
    return s;
  } catch (const FormatError& e) {
    warn_damaged(file, e.what);
    return std::nullopt;
  }
}

void KernelIndex::store_signature(const std::string& path, const std::string& name, const std::string& environment,
                                  const SignatureRecord& record) {
  const std::string dir = directory();
  if (dir.empty()) return;
  BinaryWriter w;
  write_dependencies(w, record.dependencies);
  write_signature(w, record.signature);
  write(dir, signature_file(dir, path, name, environment), seal(kSignatureMagic, kFormatVersion, w.bytes()));
}

std::string KernelIndex::table_file(const std::string& dir, const std::string& path, const std::string& name,
                                    const std::string& environment, const std::string& table) const {
  const std::string_view nul("\0", 1);
  Sha256 h;
  h.update(path).update(nul).update(name).update(nul).update(environment).update(nul).update(table);
  return dir + "/" TRITON_JIT_INDEX_DIR "/tables/" + h.hex() + ".tjt";
}

namespace {

// A table file: its identity (checked on read: a digest collision must not mix tables), then the
// entries.
using TableEntries = std::vector<std::pair<std::string, std::string>>;

struct TableFile {
  std::string path, name, table;
  TableEntries entries;
};

// Throws FormatError.
TableFile parse_table(const std::string& bytes) {
  BinaryReader r(unseal(bytes, kTableMagic, kFormatVersion));
  TableFile t;
  t.path = r.str();
  t.name = r.str();
  t.table = r.str();
  const uint32_t n = r.count("table entry", 1u << 20, 8);  // an entry is at least two lengths
  t.entries.resize(n);
  for (auto& [key, value] : t.entries) {
    key = r.str();
    value = r.str();
  }
  return t;
}

// The entries when the file is this function's table `table`; nothing for another one.
std::optional<TableEntries> read_table(const std::string& bytes, const std::string& path, const std::string& name,
                                       const std::string& table) {
  TableFile t = parse_table(bytes);
  if (t.path != path || t.name != name || t.table != table) return std::nullopt;
  return std::move(t.entries);
}

// The table files of the index folder `dir`.
std::vector<std::string> table_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(fs::path(dir) / TRITON_JIT_INDEX_DIR / "tables", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() == ".tjt") out.push_back(it->path().string());  // not a writer's temporary file
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> KernelIndex::load_table(const std::string& path,
                                                                         const std::string& name,
                                                                         const std::string& environment,
                                                                         const std::string& table) {
  const std::string dir = directory();
  if (dir.empty()) return {};
  const std::string file = table_file(dir, path, name, environment, table);
  auto bytes = read_file(file);
  if (!bytes) return {};
  try {
    return read_table(*bytes, path, name, table).value_or(TableEntries{});
  } catch (const FormatError& e) {
    warn_damaged(file, e.what);
    return {};
  }
}

std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> KernelIndex::tables_of(
    const std::string& path, const std::string& name, const std::string& environment) {
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> out;
  const std::string dir = directory();
  if (dir.empty()) return out;
  for (const std::string& file : table_files(dir)) {
    auto bytes = read_file(file);
    if (!bytes) continue;
    try {
      TableFile t = parse_table(*bytes);
      // The file name holds the environment: another Triton installation's table is not ours.
      if (t.path != path || t.name != name || file != table_file(dir, path, name, environment, t.table)) continue;
      out.emplace_back(std::move(t.table), std::move(t.entries));
    } catch (const FormatError&) {
      continue;
    }
  }
  return out;
}

std::vector<IndexTable> KernelIndex::list_tables() {
  std::vector<IndexTable> out;
  const std::string dir = directory();
  if (dir.empty()) return out;
  for (const std::string& file : table_files(dir)) {
    auto bytes = read_file(file);
    if (!bytes) continue;
    IndexTable t;
    t.file = file;
    try {
      TableFile table = parse_table(*bytes);
      t.function_path = std::move(table.path);
      t.function_name = std::move(table.name);
      t.name = std::move(table.table);
      for (const auto& [key, value] : table.entries) {
        if (t.name.rfind("autotune/", 0) == 0) {
          // The value the tuner stores: the chosen config, the key's repr, the timings table.
          BinaryReader v(value);
          const uint32_t chosen = v.u32();
          const std::string key_repr = v.str();
          std::string timings = v.str();
          t.rows.push_back(key_repr + " -> [" + std::to_string(chosen) + "]" + timings);
        } else {
          t.rows.push_back(std::to_string(value.size()) + "-byte value for a " + std::to_string(key.size()) +
                           "-byte input");
        }
      }
    } catch (const FormatError& e) {
      t.rows.push_back(std::string("damaged: ") + e.what);
    }
    out.push_back(std::move(t));
  }
  return out;
}

void KernelIndex::store_table_entry(const std::string& path, const std::string& name, const std::string& environment,
                                    const std::string& table, const std::string& key, const std::string& value) {
  const std::string dir = directory();
  if (dir.empty()) return;
  const std::string file = table_file(dir, path, name, environment, table);
  std::lock_guard<std::mutex> lock(table_mutex_);  // one writer per process; across processes, the last rename wins
  TableEntries entries;
  if (auto bytes = read_file(file)) {
    try {
      entries = read_table(*bytes, path, name, table).value_or(TableEntries{});
    } catch (const FormatError&) {
      entries.clear();  // damaged: rewritten whole below
    }
  }
  bool replaced = false;
  for (auto& [k, v] : entries) {
    if (k == key) {
      v = value;
      replaced = true;
    }
  }
  if (!replaced) entries.emplace_back(key, value);
  BinaryWriter w;
  w.str(path);
  w.str(name);
  w.str(table);
  w.u32(static_cast<uint32_t>(entries.size()));
  for (const auto& [k, v] : entries) {
    w.str(k);
    w.str(v);
  }
  write(dir, file, seal(kTableMagic, kFormatVersion, w.bytes()));
}

std::optional<std::string> KernelIndex::load_module_file(const std::string& module, const std::string& environment) {
  const std::string dir = directory();
  if (dir.empty()) return std::nullopt;
  const std::string file = module_record_file(dir, module, environment);
  auto bytes = read_file(file);
  if (!bytes) return std::nullopt;
  try {
    BinaryReader r(unseal(*bytes, kModuleMagic, kFormatVersion));
    std::string recorded_module = r.str();
    std::string source = r.str();
    // The file's contents may have changed (its signature record checks that); only where it is
    // matters here. A module moved elsewhere is a miss: Python resolves it again.
    std::error_code ec;
    if (recorded_module != module || !fs::is_regular_file(source, ec)) return std::nullopt;
    return source;
  } catch (const FormatError& e) {
    warn_damaged(file, e.what);
    return std::nullopt;
  }
}

void KernelIndex::store_module_file(const std::string& module, const std::string& environment,
                                    const std::string& file) {
  const std::string dir = directory();
  if (dir.empty()) return;
  BinaryWriter w;
  w.str(module);
  w.str(file);
  write(dir, module_record_file(dir, module, environment), seal(kModuleMagic, kFormatVersion, w.bytes()));
}

std::optional<IndexEntry> describe_entry(const std::string& file) {
  IndexEntry e;
  e.file = file;
  e.id = fs::path(file).stem().string();
  if (auto stamp = stat_file(file)) {
    e.bytes = stamp->size;
    e.last_used_unix = stamp->mtime_ns / 1000000000;
  }
  std::string error;
  int error_number = 0;
  auto bytes = read_file(file, &error, &error_number);
  if (!bytes) {
    // Removed since its folder was listed (another process's prune or clear), even if a writer
    // has stored the same entry again since: not an entry of this listing.
    if (error_number == ENOENT) return std::nullopt;
    e.state = IndexEntry::State::Corrupt;
    e.problem = "cannot be read: " + error;
    return e;
  }
  KernelRecord r;
  try {
    BinaryReader reader(unseal(*bytes, kKernelMagic, kFormatVersion));
    r = read_kernel_record(reader);
  } catch (const FormatError& f) {
    e.state = IndexEntry::State::Corrupt;
    e.problem = f.what;
    return e;
  }
  e.created_unix = r.created_unix;
  e.function_path = r.function_path;
  e.function_name = r.function_name;
  e.signature = r.key.signature;
  e.num_warps = r.key.num_warps;
  e.num_stages = r.key.num_stages;
  e.num_ctas = r.key.num_ctas;
  e.options = r.key.options;
  e.target = r.key.target;
  e.triton_version = r.kernel.info.triton_version;
  e.kernel_name = r.kernel.info.name;
  e.cubin_bytes = r.kernel.info.cubin.size();
  e.shared = r.kernel.info.shared;
  for (const FileDependency& d : r.dependencies) {
    const DependencyState state = check_dependency(d);
    const std::string problem = dependency_problem(d, state);
    if (!problem.empty() && e.state == IndexEntry::State::Valid) {
      e.state = IndexEntry::State::Stale;
      e.problem = problem;
    }
    e.dependencies.push_back(IndexDependency{d.path, d.sha256, d.required, state_name(state)});
  }
  return e;
}

std::vector<std::string> KernelIndex::entry_files(const std::string& dir) const {
  std::vector<std::string> out;
  if (dir.empty()) return out;
  std::error_code ec;
  const fs::path kernels = fs::path(dir) / TRITON_JIT_INDEX_DIR / "kernels";
  for (auto it = fs::recursive_directory_iterator(kernels, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().extension() == ".tjk") out.push_back(it->path().string());
  }
  return out;
}

std::vector<IndexEntry> KernelIndex::list() {
  std::vector<IndexEntry> out;
  for (const std::string& file : entry_files(directory())) {
    if (std::optional<IndexEntry> e = describe_entry(file)) out.push_back(std::move(*e));
  }
  return out;
}

namespace {

// The folders `clear` empties and `prune` rids of abandoned temporary files; not locks/, whose
// files other processes may hold (store/compile_lock.h). installations/ is the bridge's
// (Triton's installation key, triton_jit_bridge.py).
constexpr const char* kSubfolders[] = {TRITON_JIT_INDEX_DIR "/kernels", TRITON_JIT_INDEX_DIR "/functions",
                                       TRITON_JIT_INDEX_DIR "/tables", TRITON_JIT_INDEX_DIR "/modules",
                                       TRITON_JIT_INDEX_DIR "/installations"};

// A writer takes milliseconds; a temporary file this old was left by one that was killed.
constexpr int64_t kAbandonedTempSeconds = 3600;

// Removes the temporary files killed writers left in the index's folders.
void remove_abandoned_temp_files(const std::string& dir) {
  const int64_t cutoff_ns = (now_unix() - kAbandonedTempSeconds) * 1000000000;
  for (const char* sub : kSubfolders) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(fs::path(dir) / sub, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const std::string file = it->path().string();
      if (!is_temp_file(it->path().filename().string())) continue;
      const auto stamp = stat_file(file);
      std::error_code rm;
      if (stamp && stamp->mtime_ns < cutoff_ns) fs::remove(file, rm);  // gone already: fine
    }
  }
}

}  // namespace

size_t KernelIndex::clear() {
  const std::string dir = directory();
  if (dir.empty()) return 0;
  // Files only: the folders stay, so that processes writing meanwhile never find their folder
  // gone between making it and renaming into it. A writer whose temporary file goes writes again.
  size_t entries = 0;
  for (const char* sub : kSubfolders) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(fs::path(dir) / sub, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_directory(ec)) files.push_back(it->path());
    }
    for (const fs::path& file : files) {
      std::error_code rm;
      if (fs::remove(file, rm) && file.extension() == ".tjk") ++entries;
      if (rm && rm != std::errc::no_such_file_or_directory) {
        throw Error("cannot clear the kernel cache in " + dir + ": cannot remove " + file.string() + ": " +
                    rm.message());
      }
    }
  }
  return entries;
}

size_t KernelIndex::prune(double days) {
  const std::string dir = directory();
  if (dir.empty()) return 0;
  const int64_t cutoff = now_unix() - static_cast<int64_t>(days * 86400);
  size_t removed = 0;
  for (const IndexEntry& e : list()) {
    if (e.state == IndexEntry::State::Valid && e.last_used_unix > cutoff) continue;
    // Rewritten or used by another process since it was read: that process's entry now.
    const auto now = stat_file(e.file);
    if (!now || now->size != e.bytes || now->mtime_ns / 1000000000 != e.last_used_unix) continue;
    std::error_code ec;
    if (fs::remove(e.file, ec)) ++removed;
    if (ec && ec != std::errc::no_such_file_or_directory) {
      throw Error("cannot remove " + e.file + ": " + ec.message());
    }
  }
  remove_abandoned_temp_files(dir);
  return removed;
}

}  // namespace triton_jit::detail

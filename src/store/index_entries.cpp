#include "store/index_entries.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "store/files.h"
#include "store/index_folders.h"
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
#define TRITON_JIT_INDEX_VERSION_DIR "v3"       // the folder of this format version, beside older ones

std::string default_directory() {
  // TRITON_JIT_CACHE_DIR is the variable's former name, still read: the new one wins when both are
  // set, and an empty value of whichever is read turns the index off.
  if (const char* env = std::getenv("TRITON_JIT_INDEX_DIR")) return env;
  if (const char* env = std::getenv("TRITON_JIT_CACHE_DIR")) return env;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/triton_jit";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/triton_jit";
  return {};
}

int64_t now_unix() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A file of the index larger than this is not read (a cubin is megabytes).
constexpr uint64_t kLargestIndexFile = uint64_t{1} << 30;

// Write failures that another process's clean-up causes (a folder or temporary file removed
// under the writer): retried, and only so many writes in a row lost turn writing off.
bool transient_write_error(int e) { return e == 0 || e == ENOENT || e == ESTALE || e == EINTR || e == EAGAIN; }
constexpr int kLostWritesInARow = 3;

// Links and refused folders that clear, prune and listing met and left alone.
void report(const WalkNotes& notes) {
  for (const std::string& link : notes.links) {
    std::fprintf(stderr,
                 "[triton_jit] warning: skipped symbolic link %s in the kernel index: links below the index "
                 "folder are never followed, and nothing they point to is read or removed. Remove the link.\n",
                 link.c_str());
  }
  for (const std::string& folder : notes.refused) {
    std::fprintf(stderr,
                 "[triton_jit] warning: skipped the kernel index folder %s: it is not trusted (see "
                 "TRITON_JIT_TRUST_SHARED_INDEX in the README).\n",
                 folder.c_str());
  }
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
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
  refused_.store(false, std::memory_order_relaxed);
  failed_writes_.store(0, std::memory_order_relaxed);
  std::lock_guard<std::mutex> checked(checked_mutex_);
  checked_.clear();
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
  std::string file = sharded_file(dir, "locks", kernel_id(path, name, key, environment), ".lock");
  int error = 0;
  if (!folders_ready(dir, file, true, false, &error)) return {};
  return file;
}

std::string KernelIndex::kernel_file(const std::string& dir, const std::string& id) const {
  return sharded_file(dir, "kernels", id, ".tjk");
}

// DIR/v3/FOLDER/XX/ID.EXT: kernels are many, so their files spread over 256 folders.
std::string KernelIndex::sharded_file(const std::string& dir, const char* folder, const std::string& id,
                                      const char* extension) {
  return dir + "/" TRITON_JIT_INDEX_VERSION_DIR "/" + folder + "/" + id.substr(0, 2) + "/" + id + extension;
}

std::string KernelIndex::signature_file(const std::string& dir, const std::string& path, const std::string& name,
                                        const std::string& environment) const {
  const std::string_view nul("\0", 1);
  Sha256 h;
  h.update(path).update(nul).update(name).update(nul).update(environment);
  return dir + "/" TRITON_JIT_INDEX_VERSION_DIR "/functions/" + h.hex() + ".tjs";
}

std::string KernelIndex::module_record_file(const std::string& dir, const std::string& module,
                                            const std::string& environment) const {
  const std::string_view nul("\0", 1);
  Sha256 h;
  h.update(module).update(nul).update(environment);
  return dir + "/" TRITON_JIT_INDEX_VERSION_DIR "/modules/" + h.hex() + ".tjm";
}

void KernelIndex::warn_damaged(const std::string& file, const std::string& why) {
  std::fprintf(stderr, "[triton_jit] warning: ignoring the damaged index entry %s (%s); it will be rebuilt\n",
               file.c_str(), why.c_str());
}

bool KernelIndex::folders_ready(const std::string& dir, const std::string& file, bool create, bool again,
                                int* error) {
  *error = 0;
  if (refused_.load(std::memory_order_relaxed)) return false;
  const size_t slash = file.rfind('/');
  const std::string relative = file.substr(dir.size() + 1, slash - dir.size() - 1);
  {
    std::lock_guard<std::mutex> lock(checked_mutex_);
    if (!again && checked_.count(relative) != 0) return true;
  }
  const FolderCheck c = check_folders(dir, relative, create);
  switch (c.state) {
    case FolderCheck::State::Ok: {
      std::lock_guard<std::mutex> lock(checked_mutex_);
      checked_.insert(relative);
      return true;
    }
    case FolderCheck::State::Missing: return false;
    case FolderCheck::State::Refused: refuse(c.folder, c.problem); return false;
    case FolderCheck::State::Failed: *error = c.error; return false;
  }
  return false;
}

void KernelIndex::refuse(const std::string& folder, const std::string& problem) {
  if (refused_.exchange(true)) return;
  std::fprintf(stderr,
               "[triton_jit] warning: not using the kernel index in %s: %s %s. The index holds code that launches "
               "run, so it is used only where every folder is this user's (or root's) and no one else can write "
               "it, and links below it are never followed; kernels compile as without an index. Remove the link, "
               "or make the folder yours and not writable by others (chown, chmod go-w), or choose another "
               "folder with TRITON_JIT_INDEX_DIR; for an index shared on purpose, TRITON_JIT_TRUST_SHARED_INDEX=1 "
               "accepts it (whoever can write it can then run code as you).\n",
               directory().c_str(), folder.c_str(), problem.c_str());
}

std::optional<std::string> KernelIndex::read_index_file(const std::string& dir, const std::string& file) {
  int error = 0;
  if (!folders_ready(dir, file, false, false, &error)) return std::nullopt;
  const int fd = open_entry_for_reading(file);
  if (fd < 0) {
    if (errno == ELOOP) warn_damaged(file, "a symbolic link, never followed");
    if (errno == EPERM) warn_damaged(file, "not a regular file of this user, or writable by others");
    return std::nullopt;
  }
  std::string why;
  auto bytes = read_open_file(fd, kLargestIndexFile, &why, &error);
  ::close(fd);
  if (!bytes && error == EFBIG) warn_damaged(file, "larger than 1 GiB");
  return bytes;
}

void KernelIndex::write(const std::string& dir, const std::string& file, const std::string& bytes) {
  if (writes_off_.load(std::memory_order_relaxed) || refused_.load(std::memory_order_relaxed)) return;
  std::string why;
  int error = 0;
  // A concurrent `triton-jit index clear` or `rm -r` may remove folders under this writer:
  // they are checked and made again, and the write retried.
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (!folders_ready(dir, file, true, attempt > 0, &error)) {
      if (refused_.load(std::memory_order_relaxed)) return;
      why = std::strerror(error != 0 ? error : ENOENT);
      if (!transient_write_error(error)) break;
      continue;
    }
    why = write_file_atomically(file, bytes, &error);
    if (why.empty()) {
      failed_writes_.store(0, std::memory_order_relaxed);
      return;
    }
    if (!transient_write_error(error)) break;
  }
  // Lost to a clean-up racing this writer: this entry only, unless it goes on and on.
  if (transient_write_error(error) && failed_writes_.fetch_add(1) + 1 < kLostWritesInARow) return;
  if (!writes_off_.exchange(true)) {
    std::fprintf(stderr,
                 "[triton_jit] warning: cannot write the kernel index in %s (%s): compiled kernels stay in the table "
                 "for this process only. Set TRITON_JIT_INDEX_DIR to a writable directory, or to an empty value "
                 "to turn the index off.\n",
                 dir.c_str(), why.c_str());
  }
}

std::optional<KernelRecord> KernelIndex::load(const std::string& path, const std::string& name, const KernelKey& key,
                                              const std::string& environment, std::string* stale) {
  const std::string dir = directory();
  if (dir.empty()) return std::nullopt;
  const std::string file = kernel_file(dir, kernel_id(path, name, key, environment));
  auto bytes = read_index_file(dir, file);
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
  ::utimensat(AT_FDCWD, file.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);  // last use, for prune; fails quietly when read-only
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
  auto bytes = read_index_file(dir, file);
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
  return dir + "/" TRITON_JIT_INDEX_VERSION_DIR "/tables/" + h.hex() + ".tjt";
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
  WalkNotes notes;
  walk_files(
      dir, TRITON_JIT_INDEX_VERSION_DIR "/tables",
      [&](int, const std::string& name, const struct stat&, const std::string& file) {
        if (ends_with(name, ".tjt")) out.push_back(file);  // not a writer's temporary file
      },
      &notes);
  report(notes);
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
  auto bytes = read_index_file(dir, file);
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
    auto bytes = read_index_file(dir, file);
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
    auto bytes = read_index_file(dir, file);
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
  if (auto bytes = read_index_file(dir, file)) {
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
  auto bytes = read_index_file(dir, file);
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
  std::string error;
  int error_number = 0;
  std::optional<std::string> bytes;
  if (const int fd = open_entry_for_reading(file); fd < 0) {
    error_number = errno;
    error = error_number == ELOOP    ? "a symbolic link (never followed)"
            : error_number == EPERM ? "not a regular file of this user, or writable by others"
                                    : std::strerror(error_number);
  } else {
    struct stat st;
    if (::fstat(fd, &st) == 0) {
      e.bytes = static_cast<uint64_t>(st.st_size);
      e.last_used_unix = static_cast<int64_t>(st.st_mtim.tv_sec);
    }
    bytes = read_open_file(fd, kLargestIndexFile, &error, &error_number);
    ::close(fd);
  }
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
  WalkNotes notes;
  walk_files(
      dir, TRITON_JIT_INDEX_VERSION_DIR "/kernels",
      [&](int, const std::string& name, const struct stat&, const std::string& file) {
        if (ends_with(name, ".tjk") && !is_temp_file(name)) out.push_back(file);
      },
      &notes);
  report(notes);
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
// (Triton's installation key, triton_jit_bridge/triton_key.py).
constexpr const char* kSubfolders[] = {TRITON_JIT_INDEX_VERSION_DIR "/kernels", TRITON_JIT_INDEX_VERSION_DIR "/functions",
                                       TRITON_JIT_INDEX_VERSION_DIR "/tables", TRITON_JIT_INDEX_VERSION_DIR "/modules",
                                       TRITON_JIT_INDEX_VERSION_DIR "/installations"};

// A writer takes milliseconds; a temporary file this old was left by one that was killed.
constexpr int64_t kAbandonedTempSeconds = 3600;

int64_t mtime_ns(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// Removes the temporary files killed writers left in the index's folders.
void remove_abandoned_temp_files(const std::string& dir, WalkNotes* notes) {
  const int64_t cutoff_ns = (now_unix() - kAbandonedTempSeconds) * 1000000000;
  for (const char* sub : kSubfolders) {
    walk_files(
        dir, sub,
        [&](int folder, const std::string& name, const struct stat& st, const std::string&) {
          if (is_temp_file(name) && mtime_ns(st) < cutoff_ns) ::unlinkat(folder, name.c_str(), 0);  // gone: fine
        },
        notes);
  }
}

}  // namespace

IndexStatus KernelIndex::status() {
  IndexStatus s;
  s.dir = directory();
  if (s.dir.empty()) {
    s.state = IndexStatus::State::Off;
    return s;
  }
  auto unusable = [&](std::string problem) {
    s.state = IndexStatus::State::Unusable;
    s.problem = std::move(problem);
    return s;
  };
  struct stat st;
  if (::stat(s.dir.c_str(), &st) != 0) {
    if (errno == ENOENT) {
      s.state = IndexStatus::State::Missing;
      return s;
    }
    return unusable(std::string("cannot be looked at: ") + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) return unusable("is not a folder; set TRITON_JIT_INDEX_DIR to a folder");
  // The index folder and v3; a link or an untrusted folder further down is skipped (and told)
  // by the commands that walk it, which can do their job around it.
  for (const std::string& folder : {std::string(), std::string(TRITON_JIT_INDEX_VERSION_DIR)}) {
    const FolderCheck c = check_folders(s.dir, folder, false);
    if (c.state == FolderCheck::State::Refused) {
      return unusable(c.folder + " " + c.problem +
                      "; the index holds code that launches run, so it is not used (make the folder yours and "
                      "not writable by others, remove the link, or set TRITON_JIT_TRUST_SHARED_INDEX=1 for a "
                      "index shared on purpose)");
    }
    if (c.state == FolderCheck::State::Failed) return unusable(c.folder + ": " + c.problem);
  }
  if (::access(s.dir.c_str(), R_OK | X_OK) != 0) return unusable(std::string("cannot be read: ") + std::strerror(errno));
  for (const std::string& folder : {s.dir, s.dir + "/" TRITON_JIT_INDEX_VERSION_DIR}) {
    if (::access(folder.c_str(), F_OK) == 0 && ::access(folder.c_str(), W_OK) != 0) {
      s.state = IndexStatus::State::ReadOnly;
      s.problem = folder + " cannot be written: " + std::strerror(errno);
      return s;
    }
  }
  s.state = IndexStatus::State::Usable;
  return s;
}

size_t KernelIndex::clear() {
  const std::string dir = directory();
  if (dir.empty()) return 0;
  // Files only: the folders stay, so that processes writing meanwhile never find their folder
  // gone between making it and renaming into it. Nor are writers' fresh temporary files removed:
  // each is renamed into an entry within milliseconds, an entry stored after the clear; removing
  // it would only fail that write.
  const int64_t cutoff_ns = (now_unix() - kAbandonedTempSeconds) * 1000000000;
  size_t entries = 0;
  std::string failure;
  WalkNotes notes;
  for (const char* sub : kSubfolders) {
    walk_files(
        dir, sub,
        [&](int folder, const std::string& name, const struct stat& st, const std::string& file) {
          if (is_temp_file(name) && mtime_ns(st) >= cutoff_ns) return;
          if (::unlinkat(folder, name.c_str(), 0) == 0) {
            if (ends_with(name, ".tjk")) ++entries;
          } else if (errno != ENOENT && failure.empty()) {
            failure = "cannot remove " + file + ": " + std::strerror(errno);
          }
        },
        &notes);
  }
  report(notes);
  if (!failure.empty()) throw Error("cannot clear the kernel index in " + dir + ": " + failure);
  return entries;
}

size_t KernelIndex::prune(double days) {
  const std::string dir = directory();
  if (dir.empty()) return 0;
  const int64_t cutoff = now_unix() - static_cast<int64_t>(days * 86400);
  size_t removed = 0;
  std::string failure;
  WalkNotes notes;
  walk_files(
      dir, TRITON_JIT_INDEX_VERSION_DIR "/kernels",
      [&](int folder, const std::string& name, const struct stat&, const std::string& file) {
        if (!ends_with(name, ".tjk") || is_temp_file(name)) return;
        const std::optional<IndexEntry> e = describe_entry(file);
        if (!e || (e->state == IndexEntry::State::Valid && e->last_used_unix > cutoff)) return;
        // Rewritten or used by another process since it was read: that process's entry now.
        struct stat now;
        if (::fstatat(folder, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(now.st_mode) ||
            static_cast<uint64_t>(now.st_size) != e->bytes || now.st_mtim.tv_sec != e->last_used_unix) {
          return;
        }
        if (::unlinkat(folder, name.c_str(), 0) == 0) {
          ++removed;
        } else if (errno != ENOENT && failure.empty()) {
          failure = "cannot remove " + file + ": " + std::strerror(errno);
        }
      },
      &notes);
  remove_abandoned_temp_files(dir, &notes);
  report(notes);
  if (!failure.empty()) throw Error(failure);
  return removed;
}

}  // namespace triton_jit::detail

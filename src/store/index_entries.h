#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "store/records.h"
#include "triton_jit/index.h"

namespace triton_jit::detail {

// The on-disk index (docs/FORMATS.md):
//   DIR/v3/kernels/XX/ID.tjk     one compiled kernel; ID = sha256(path, name, key text, environment)
//   DIR/v3/functions/ID.tjs      one function's static signature; ID = sha256(path, name, environment)
//   DIR/v3/modules/ID.tjm        the file a module was imported from; ID = sha256(module, environment)
//   DIR/v3/locks/XX/ID.lock      a kernel's compile lock (store/compile_lock.h); ID as the kernel's
// `environment` names the Triton installation the entry belongs to (bridge::python_environment):
// a process using another one neither takes nor overwrites it.
// Reads never fail: a missing, stale or damaged file is a miss. Writes go through a temporary
// file and a rename; a write that fails for good (EACCES, ENOSPC, ...) or again and again turns
// writing off with one warning; a folder removed under the writer is made again and the write
// retried. Every folder on the way to a file is checked before it is used (store/index_folders.h):
// one that is a link or not trusted turns the index off for this process, with one warning.
class KernelIndex {
 public:
  static KernelIndex& instance();

  void set_directory(std::optional<std::string> dir);
  std::string directory();  // empty: off

  // The kernel for `key` of `path`:`name` when stored and still valid; when it is stored but
  // stale, nothing, with the reason in *stale.
  std::optional<KernelRecord> load(const std::string& path, const std::string& name, const KernelKey& key,
                                   const std::string& environment, std::string* stale = nullptr);
  void store(const KernelRecord& record, const std::string& environment);

  std::optional<StaticSignature> load_signature(const std::string& path, const std::string& name,
                                                const std::string& environment);
  void store_signature(const std::string& path, const std::string& name, const std::string& environment,
                       const SignatureRecord& record);

  // Small tables kept beside a function's kernels (tuning results, heuristic memos): one file per
  // (function, environment, table), entries of (key, value) bytes. A store merges its entry into
  // what is on disk, so processes add to one table; nothing when the index is off.
  std::vector<std::pair<std::string, std::string>> load_table(const std::string& path, const std::string& name,
                                                              const std::string& environment, const std::string& table);
  void store_table_entry(const std::string& path, const std::string& name, const std::string& environment,
                         const std::string& table, const std::string& key, const std::string& value);
  // Every table of a function (what a pack of it carries): (table name, entries).
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> tables_of(
      const std::string& path, const std::string& name, const std::string& environment);
  // The file the module `module` was imported from when Python last resolved it, while that
  // file exists: a process without Python finds a function named by module through it.
  std::optional<std::string> load_module_file(const std::string& module, const std::string& environment);
  void store_module_file(const std::string& module, const std::string& environment, const std::string& file);

  // Whether the index can be used, and if not why (the public index_status()).
  IndexStatus status();

  std::vector<IndexEntry> list();
  std::vector<IndexTable> list_tables();
  size_t clear();
  size_t prune(double days);

  // The compile lock's file of a kernel (store/compile_lock.h); empty when the index is off.
  std::string compile_lock_file(const std::string& path, const std::string& name, const KernelKey& key,
                                const std::string& environment);

  static std::string kernel_id(const std::string& path, const std::string& name, const KernelKey& key,
                               const std::string& environment);

 private:
  std::string kernel_file(const std::string& dir, const std::string& id) const;
  static std::string sharded_file(const std::string& dir, const char* folder, const std::string& id,
                                  const char* extension);
  std::vector<std::string> entry_files(const std::string& dir) const;
  std::string signature_file(const std::string& dir, const std::string& path, const std::string& name,
                             const std::string& environment) const;
  std::string table_file(const std::string& dir, const std::string& path, const std::string& name,
                         const std::string& environment, const std::string& table) const;
  std::string module_record_file(const std::string& dir, const std::string& module,
                                 const std::string& environment) const;
  void write(const std::string& dir, const std::string& file, const std::string& bytes);
  void warn_damaged(const std::string& file, const std::string& why);
  // Whether the folders of `file` (below `dir`) may be used, made when `create`; checked once per
  // folder and process unless `again`. A refused folder turns the index off (refuse()). On other
  // trouble, false with errno's number in *error (0: only missing).
  bool folders_ready(const std::string& dir, const std::string& file, bool create, bool again, int* error);
  void refuse(const std::string& folder, const std::string& problem);
  // The bytes of the index file `file`, read without following a link, or nothing.
  std::optional<std::string> read_index_file(const std::string& dir, const std::string& file);

  std::mutex mutex_;
  std::mutex table_mutex_;
  bool resolved_ = false;
  std::string dir_;
  std::atomic<bool> writes_off_{false};
  std::atomic<bool> refused_{false};  // a folder was refused: no reads, no writes
  std::atomic<int> failed_writes_{0};  // transient failures in a row
  std::mutex checked_mutex_;
  std::set<std::string> checked_;  // folders (relative to dir_) found usable
};

// What the entry file holds; nothing when the file is gone (removed since it was listed).
std::optional<IndexEntry> describe_entry(const std::string& file);

}  // namespace triton_jit::detail

// The public face of the persistent kernel index (triton_jit/index.h).
#include "triton_jit/index.h"

#include "store/index_entries.h"
#include "triton_jit/errors.h"

namespace triton_jit {

void set_index_dir(std::optional<std::string> dir) { detail::KernelIndex::instance().set_directory(std::move(dir)); }
std::string index_dir() { return detail::KernelIndex::instance().directory(); }
IndexStatus index_status() { return detail::KernelIndex::instance().status(); }
std::vector<IndexEntry> list_index() { return detail::KernelIndex::instance().list(); }
std::vector<IndexTable> list_index_tables() { return detail::KernelIndex::instance().list_tables(); }
size_t clear_index() { return detail::KernelIndex::instance().clear(); }
size_t prune_index(double days) { return detail::KernelIndex::instance().prune(days); }

IndexEntry index_entry(std::string_view id_prefix) {
  if (id_prefix.empty()) throw Error("no index entry id given");
  std::vector<IndexEntry> matches;
  for (IndexEntry& e : list_index()) {
    if (e.id.compare(0, id_prefix.size(), id_prefix) == 0) matches.push_back(std::move(e));
  }
  if (matches.size() == 1) return std::move(matches.front());
  const std::string dir = index_dir();
  if (matches.empty()) {
    throw Error("no index entry has an id starting with '" + std::string(id_prefix) + "' in " +
                (dir.empty() ? std::string("(the index is off)") : dir) + "; `triton-jit index list` shows the ids");
  }
  throw Error("'" + std::string(id_prefix) + "' matches " + std::to_string(matches.size()) +
              " index entries; give more digits of the id");
}

}  // namespace triton_jit

#pragma once
// Kept for source compatibility: the persistent kernel index's API is in index.h, named for the
// index (the in-memory table is not a cache of it). These forward to it.
#include "triton_jit/index.h"

namespace triton_jit {

using CacheDependency [[deprecated("use triton_jit::IndexDependency")]] = IndexDependency;
using CacheEntry [[deprecated("use triton_jit::IndexEntry")]] = IndexEntry;
[[deprecated("use set_index_dir")]] inline void set_cache_dir(std::optional<std::string> dir) {
  set_index_dir(std::move(dir));
}
[[deprecated("use index_dir")]] inline std::string cache_dir() { return index_dir(); }
[[deprecated("use list_index")]] inline std::vector<IndexEntry> list_cache() { return list_index(); }
[[deprecated("use index_entry")]] inline IndexEntry cache_entry(std::string_view id_prefix) {
  return index_entry(id_prefix);
}
[[deprecated("use clear_index")]] inline size_t clear_cache() { return clear_index(); }
[[deprecated("use prune_index")]] inline size_t prune_cache(double days) { return prune_index(days); }

}  // namespace triton_jit

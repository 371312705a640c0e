#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>

#include "commands.h"
#include "triton_jit/index.h"

namespace triton_jit_cli {
namespace {

const char* state_name(triton_jit::IndexEntry::State s) {
  switch (s) {
    case triton_jit::IndexEntry::State::Valid: return "valid";
    case triton_jit::IndexEntry::State::Stale: return "stale";
    case triton_jit::IndexEntry::State::Corrupt: return "corrupt";
  }
  return "?";
}

std::string when(int64_t unix_seconds) {
  if (unix_seconds <= 0) return "-";
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  // A time the calendar cannot hold (a year past 2^31, from a damaged or forged file's mtime)
  // has no local time: the seconds are shown as they are.
  std::tm local{};
  char buf[32];
  if (::localtime_r(&t, &local) == nullptr || std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &local) == 0) {
    return std::to_string(unix_seconds) + " s since 1970 (no calendar date)";
  }
  return buf;
}

std::string launch_options(const triton_jit::IndexEntry& e) {
  std::string s = "num_warps=" + std::to_string(e.num_warps) + " num_stages=" + std::to_string(e.num_stages) +
                  " num_ctas=" + std::to_string(e.num_ctas);
  if (!e.options.empty()) s += " " + e.options;
  return s;
}

std::string directory_or_off() {
  const std::string dir = triton_jit::index_dir();
  return dir.empty() ? "off (TRITON_JIT_INDEX_DIR is empty)" : dir;
}

int list() {
  const auto entries = triton_jit::list_index();
  std::cout << "# " << directory_or_off() << ": " << entries.size() << " entries\n";
  for (const auto& e : entries) {
    std::cout << e.id.substr(0, 12) << "  " << state_name(e.state) << "  ";
    if (e.state == triton_jit::IndexEntry::State::Corrupt) {
      std::cout << e.problem << '\n';
      continue;
    }
    std::cout << e.function_path << ":" << e.function_name << "  [" << e.signature << "]  " << launch_options(e) << "  "
              << e.target.str() << "  triton " << e.triton_version << "  " << e.bytes << " B\n";
  }
  // Autotuners' choices and memoized heuristic values, by function.
  for (const auto& t : triton_jit::list_index_tables()) {
    std::cout << "table  " << t.function_path << ":" << t.function_name << "  " << t.name << "  " << t.rows.size()
              << (t.rows.size() == 1 ? " row\n" : " rows\n");
    for (const auto& row : t.rows) std::cout << "  " << row << '\n';
  }
  return 0;
}

int info(const std::string& id) {
  const triton_jit::IndexEntry e = triton_jit::index_entry(id);
  std::cout << "id:             " << e.id << '\n'
            << "file:           " << e.file << '\n'
            << "state:          " << state_name(e.state) << (e.problem.empty() ? "" : " (" + e.problem + ")") << '\n';
  if (e.state == triton_jit::IndexEntry::State::Corrupt) return 0;
  std::cout << "function:       " << e.function_path << ":" << e.function_name << '\n'
            << "signature:      " << e.signature << '\n'
            << "launch:         " << launch_options(e) << '\n'
            << "target:         " << e.target.str() << ":" << e.target.warp_size << '\n'
            << "triton:         " << e.triton_version << '\n'
            << "kernel:         " << e.kernel_name << " (" << e.cubin_bytes << " B cubin, " << e.shared
            << " B shared memory)\n"
            << "created:        " << when(e.created_unix) << '\n'
            << "last used:      " << when(e.last_used_unix) << '\n'
            << "dependencies:\n";
  for (const auto& d : e.dependencies) {
    std::cout << "  " << d.state << "  " << d.sha256.substr(0, 16) << "  " << d.path
              << (d.required ? "" : "  (Triton; may be absent)") << '\n';
  }
  return 0;
}

// Whether `action` can do its job on the index as it is; if not, says why on stderr (one line).
bool usable_for(const std::string& action) {
  const triton_jit::IndexStatus s = triton_jit::index_status();
  using State = triton_jit::IndexStatus::State;
  switch (s.state) {
    case State::Usable: return true;
    case State::Off:
      std::cerr << "triton-jit: error: the kernel index is off (TRITON_JIT_INDEX_DIR is empty, or neither "
                   "XDG_CACHE_HOME nor HOME is set); set TRITON_JIT_INDEX_DIR to a folder to use one\n";
      return false;
    case State::Missing:
      // Nothing to list or remove, which is no failure; info's own error says no entry has the id.
      if (action != "info") std::cerr << "no index at " << s.dir << " (nothing stored yet)\n";
      return true;
    case State::ReadOnly:
      if (action == "list" || action == "info") return true;
      std::cerr << "triton-jit: error: cannot " << action << " the kernel index in " << s.dir << ": " << s.problem
                << '\n';
      return false;
    case State::Unusable:
      std::cerr << "triton-jit: error: cannot use the kernel index in " << s.dir << ": " << s.problem << '\n';
      return false;
  }
  return false;
}

}  // namespace

int run_index(const Options& o) {
  if (!usable_for(o.index_action)) return 1;
  if (o.index_action == "list") return list();
  if (o.index_action == "info") return info(o.index_entry_id);
  if (o.index_action == "clear") {
    const size_t n = triton_jit::clear_index();
    std::cout << "removed " << n << " entries from " << directory_or_off() << '\n';
    return 0;
  }
  const size_t n = triton_jit::prune_index(o.older_than_days);
  std::cout << "removed " << n << " entries (unused for " << o.older_than_days << " days, stale or damaged) from "
            << directory_or_off() << '\n';
  return 0;
}

}  // namespace triton_jit_cli

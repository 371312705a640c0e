// A process for the concurrency test (fault_test.cpp): for SECONDS, writes kernel records and
// table entries into the index at DIR (made-up kernels, no Python), reads them back and lists the
// index, while other processes prune and clear it. Every kernel and table value is a function of
// its key alone, so whatever version a read finds must equal it. Prints
//   stores=N hits=N lists=N
// and exits 0; a wrong or damaged read prints `error=...` and exits 4.
// Usage: index_churn DIR SECONDS TAG
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "store/index_entries.h"

namespace {

using triton_jit::detail::KernelIndex;
using triton_jit::detail::KernelRecord;

constexpr const char* kEnvironment = "churn-environment";

std::string cubin_of(int slot) {
  std::string bytes(2048 + 97 * slot, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 31 + slot) & 0xff);
  return bytes;
}

KernelRecord record_of(const std::string& path, int slot) {
  KernelRecord r;
  r.function_path = path;
  r.function_name = "churn_kernel";
  r.key.signature = "*fp32:16,i32," + std::to_string(slot);
  r.key.target = triton_jit::Target{"cuda", 90, 32};
  r.created_unix = 1;
  r.kernel.info.name = "churn_kernel";
  r.kernel.info.target = r.key.target;
  r.kernel.info.cubin = cubin_of(slot);
  r.kernel.info.triton_version = "churn";
  return r;
}

int fail(const std::string& what) {
  std::cout << "error=" << what << std::endl;
  return 4;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: index_churn DIR SECONDS TAG\n";
    return 2;
  }
  KernelIndex& index = KernelIndex::instance();
  index.set_directory(std::string(argv[1]));
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(std::stod(argv[2]));
  const std::string path = std::string("/churn/") + argv[3] + ".py";
  size_t stores = 0, hits = 0, lists = 0;
  for (int round = 0; std::chrono::steady_clock::now() < end; ++round) {
    const int slot = round % 16;
    const KernelRecord r = record_of(path, slot);
    index.store(r, kEnvironment);
    ++stores;
    if (auto back = index.load(path, r.function_name, r.key, kEnvironment)) {
      ++hits;
      if (back->kernel.info.cubin != r.kernel.info.cubin)
        return fail("kernel slot " + std::to_string(slot) + " read back wrong");
    }
    const std::string key = "key" + std::to_string(slot);
    index.store_table_entry(path, r.function_name, kEnvironment, "heuristic/churn/X", key, "value-of-" + key);
    for (const auto& [k, v] : index.load_table(path, r.function_name, kEnvironment, "heuristic/churn/X")) {
      if (v != "value-of-" + k) return fail("table entry " + k + " read back as " + v);
    }
    if (round % 8 == 0) {
      ++lists;
      for (const triton_jit::IndexEntry& e : index.list()) {
        if (e.state == triton_jit::IndexEntry::State::Corrupt)
          return fail("corrupt entry " + e.file + ": " + e.problem);
      }
      for (const triton_jit::IndexTable& t : index.list_tables()) {
        for (const std::string& row : t.rows) {
          if (row.rfind("damaged", 0) == 0) return fail("damaged table " + t.file + ": " + row);
        }
      }
    }
  }
  std::cout << "stores=" << stores << " hits=" << hits << " lists=" << lists << std::endl;
  return 0;
}

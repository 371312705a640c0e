#pragma once

#include <cuda.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cuda/device.h"
#include "kernel/kernel_fields.h"
#include "key/spec_key.h"

namespace triton_jit::detail {

// A compiled specialization and its modules, one per CUDA context it was launched in.
// A tensor-descriptor argument among a launch's packed parameters: the launcher expands it into
// what the kernel takes (a CUtensorMap, or base pointer, shape and strides).
struct DescriptorSlot {
  int packed_index = 0;   // among the runtime parameters, in order
  std::string parameter;  // its name, for errors
};

class KernelEntry {
 public:
  static constexpr int kMaxContexts = 32;

  // `signature`: the function's, to name descriptor parameters in errors; `key_text`: the kernel
  // key's text (KernelKey::text), what launch hooks see.
  KernelEntry(const SpecKey& key, std::vector<std::pair<int, std::string>> string_constexprs,
              const CompiledKernel& kernel, const StaticSignature& signature, std::string key_text = {});
  ~KernelEntry();

  const uint64_t* key_words() const noexcept { return key_.data(); }
  uint32_t key_size() const noexcept { return static_cast<uint32_t>(key_.size()); }
  uint64_t hash() const noexcept { return hash_; }
  // String constexprs are keyed by hash; a hit compares the characters too.
  bool strings_match(const ArgValue* args) const noexcept { return strings_.empty() || strings_match_slow(args); }
  // What users see (compile() returns it) and what the launcher reads.
  const KernelInfo& info() const noexcept { return info_; }
  const LaunchMetadata& launch() const noexcept { return launch_; }
  const std::string& key_text() const noexcept { return key_text_; }
  CompiledKernel kernel() const { return CompiledKernel{info_, launch_}; }
  bool needs_launch_ex() const noexcept { return needs_launch_ex_; }
  bool has_descriptors() const noexcept { return !descriptors_.empty(); }
  const std::vector<DescriptorSlot>& descriptors() const noexcept { return descriptors_; }

  // The function loaded in `context`; loads the module on first use there. `loads` counts loads.
  CUfunction function_for(CUcontext context, const cuda::DeviceInfo& device, std::atomic<uint64_t>& loads) const {
    const int n = num_loaded_.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i) {
      if (loaded_[i].context.load(std::memory_order_relaxed) == context) return loaded_[i].function;
    }
    return load(context, device, loads);
  }

 private:
  struct Loaded {
    std::atomic<CUcontext> context{nullptr};
    CUfunction function = nullptr;
    CUmodule module = nullptr;
  };
  bool strings_match_slow(const ArgValue* args) const noexcept;
  CUfunction load(CUcontext context, const cuda::DeviceInfo& device, std::atomic<uint64_t>& loads) const;

  std::vector<uint64_t> key_;
  uint64_t hash_;
  std::vector<std::pair<int, std::string>> strings_;
  KernelInfo info_;
  LaunchMetadata launch_;
  std::string key_text_;
  bool needs_launch_ex_;
  std::vector<DescriptorSlot> descriptors_;
  mutable Loaded loaded_[kMaxContexts];
  mutable std::atomic<int> num_loaded_{0};
  mutable std::mutex load_mutex_;
};

// Key -> entry. Readers take no lock: an open-addressing array whose slots are filled once
// (hash, then entry with release) and published through an atomic pointer. Growing (rare, under
// the owner's lock) publishes a larger copy and keeps the old one alive for readers still in it.
class KernelTable {
 public:
  const KernelEntry* find(const SpecKey& key, const ArgValue* args) const noexcept {
    const Table* t = table_.load(std::memory_order_acquire);
    if (t == nullptr) return nullptr;
    for (size_t i = key.hash & t->mask;; i = (i + 1) & t->mask) {
      const Slot& s = t->slots[i];
      const KernelEntry* e = s.entry.load(std::memory_order_acquire);
      if (e == nullptr) return nullptr;
      if (s.hash.load(std::memory_order_relaxed) == key.hash && key.equals(e->key_words(), e->key_size()) &&
          e->strings_match(args)) {
        return e;
      }
    }
  }

  // Takes ownership. The caller serializes inserts.
  void insert(std::unique_ptr<KernelEntry> entry);
  size_t size() const noexcept { return entries_.size(); }

 private:
  struct Slot {
    std::atomic<uint64_t> hash{0};
    std::atomic<const KernelEntry*> entry{nullptr};
  };
  struct Table {
    size_t mask = 0;
    std::unique_ptr<Slot[]> slots;
  };
  static void place(Table& table, const KernelEntry* entry);

  std::atomic<const Table*> table_{nullptr};
  std::vector<std::unique_ptr<Table>> tables_;
  std::vector<std::unique_ptr<KernelEntry>> entries_;
};

}  // namespace triton_jit::detail

#pragma once
// A map from a short array of 64-bit words to a value, read without a lock: readers load the
// current snapshot (an immutable open-addressing table) with one acquire load and probe it;
// writers, serialized by a mutex, publish a grown copy. Old snapshots are kept until the map is
// destroyed, so a reader never sees freed memory. Inserts are rare (one per tuning run or per
// distinct heuristic input), so copying on insert is cheap against what caused it.

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "key/spec_key.h"

namespace triton_jit::detail {

template <typename V>
class SnapshotMap {
 public:
  SnapshotMap() { publish(std::make_unique<Snapshot>(8)); }
  SnapshotMap(const SnapshotMap&) = delete;
  SnapshotMap& operator=(const SnapshotMap&) = delete;

  // The value stored under words[0..n), or nullptr. Lock-free, allocation-free. The entry found
  // last is tried first: calls repeat their key, and comparing a few words costs less than
  // hashing them and probing.
  const V* find(const uint64_t* words, uint32_t n) const noexcept {
    const Entry* last = last_.load(std::memory_order_acquire);
    if (last != nullptr && same(last, words, n)) return &last->value;
    const Snapshot* s = current_.load(std::memory_order_acquire);
    const uint64_t h = hash_words(words, n);
    const size_t mask = s->slots.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Entry* e = s->slots[i];
      if (e == nullptr) return nullptr;
      if (e->hash == h && same(e, words, n)) {
        last_.store(e, std::memory_order_release);  // entries are immutable and never freed
        return &e->value;
      }
    }
  }

  // Stores `value` under the words unless a value is there already; returns the stored one.
  const V& insert(const uint64_t* words, uint32_t n, V value) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const V* known = find(words, n)) return *known;
    auto entry = std::make_unique<Entry>(
        Entry{hash_words(words, n), std::vector<uint64_t>(words, words + n), std::move(value)});
    const Snapshot* old = current_.load(std::memory_order_relaxed);
    const size_t capacity = (old->count + 1) * 2 > old->slots.size() ? old->slots.size() * 2 : old->slots.size();
    auto next = std::make_unique<Snapshot>(capacity);
    for (const Entry* e : old->slots) {
      if (e != nullptr) next->place(e);
    }
    next->place(entry.get());
    entries_.push_back(std::move(entry));
    const V& stored = entries_.back()->value;
    publish(std::move(next));
    return stored;
  }

  size_t size() const noexcept { return current_.load(std::memory_order_acquire)->count; }

  // Visits every entry (words, value) under the writers' lock.
  template <typename F>
  void for_each(F&& visit) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& e : entries_) visit(e->words, e->value);
  }

 private:
  struct Entry {
    uint64_t hash;
    std::vector<uint64_t> words;
    V value;
  };
  struct Snapshot {
    explicit Snapshot(size_t capacity) : slots(capacity, nullptr) {}
    std::vector<const Entry*> slots;
    size_t count = 0;
    void place(const Entry* e) {
      const size_t mask = slots.size() - 1;
      size_t i = e->hash & mask;
      while (slots[i] != nullptr) i = (i + 1) & mask;
      slots[i] = e;
      ++count;
    }
  };
  static bool same(const Entry* e, const uint64_t* words, uint32_t n) noexcept {
    if (e->words.size() != n) return false;
    const uint64_t* w = e->words.data();
    for (uint32_t i = 0; i < n; ++i) {
      if (w[i] != words[i]) return false;
    }
    return true;
  }
  void publish(std::unique_ptr<Snapshot> s) {
    current_.store(s.get(), std::memory_order_release);
    snapshots_.push_back(std::move(s));
  }

  mutable std::mutex mutex_;
  std::atomic<const Snapshot*> current_{nullptr};
  mutable std::atomic<const Entry*> last_{nullptr};   // the entry the last successful find returned
  std::vector<std::unique_ptr<Snapshot>> snapshots_;  // every published one, alive for readers
  std::vector<std::unique_ptr<Entry>> entries_;
};

}  // namespace triton_jit::detail

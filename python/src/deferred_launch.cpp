#include "deferred_launch.h"

#include <array>
#include <atomic>
#include <mutex>
#include <string>

#include "triton_jit/errors.h"

namespace triton_jit::python {
namespace {

// A tag in the address's top bits, the index above the low 12 bits: 4096-byte aligned.
constexpr uint64_t kTag = uint64_t{0x7e57} << 48;
constexpr uint64_t kTagMask = uint64_t{0xffff} << 48;
constexpr uint64_t kIndexShift = 12;

// Launches in chunks that never move: the handler reads an id's slot without a lock while
// Python adds more.
constexpr size_t kChunk = 1024;
constexpr size_t kChunks = 1024;
std::array<std::atomic<std::atomic<const DeferredLaunch*>*>, kChunks> g_chunks{};
std::atomic<int64_t> g_count{0};
std::mutex g_add_mutex;

}  // namespace

uint64_t deferred_buffer_address(uint32_t index) { return kTag | (uint64_t{index} + 1) << kIndexShift; }

int64_t register_deferred(std::unique_ptr<DeferredLaunch> d) {
  for (uint32_t i = 0; i < d->values.size(); ++i) {
    const ArgValue& v = d->values[i];
    if (v.kind() != ArgValue::Kind::Pointer || (v.address() & kTagMask) != kTag) continue;
    const uint64_t index = ((v.address() & ~kTagMask) >> kIndexShift) - 1;
    d->buffers.push_back({i, static_cast<uint32_t>(index)});
  }
  std::lock_guard<std::mutex> lock(g_add_mutex);
  const int64_t id = g_count.load(std::memory_order_relaxed);
  if (static_cast<size_t>(id) >= kChunk * kChunks) {
    const std::string& name = d->fn->name();
    throw LaunchConfigError(name + ": more than " + std::to_string(kChunk * kChunks) +
                            " distinct kernel launches were traced under jax.jit in this process");
  }
  auto& chunk = g_chunks[static_cast<size_t>(id) / kChunk];
  if (chunk.load(std::memory_order_relaxed) == nullptr) {
    chunk.store(new std::atomic<const DeferredLaunch*>[kChunk](), std::memory_order_release);
  }
  chunk.load(std::memory_order_relaxed)[static_cast<size_t>(id) % kChunk].store(d.release(), std::memory_order_release);
  g_count.store(id + 1, std::memory_order_release);
  return id;
}

const DeferredLaunch* find_deferred(int64_t id) noexcept {
  if (id < 0 || id >= g_count.load(std::memory_order_acquire)) return nullptr;
  auto* chunk = g_chunks[static_cast<size_t>(id) / kChunk].load(std::memory_order_acquire);
  return chunk[static_cast<size_t>(id) % kChunk].load(std::memory_order_acquire);
}

#ifndef TRITON_JIT_XLA_FFI
void* xla_ffi_handler() noexcept { return nullptr; }
void* xla_ffi_host_test_handler() noexcept { return nullptr; }
void set_xla_host_test_emulator(nanobind::handle) {}
#endif

}  // namespace triton_jit::python

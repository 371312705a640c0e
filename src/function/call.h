#pragma once
// A launch of a complete call (every argument the @triton.jit function takes, in order): build the
// key, find the kernel in the function's table without a lock, else resolve it, pack and launch.
// Inline: it is the body of every cached launch. Plain functions run it directly; decorated ones
// after their decorators have completed the call (decorators/decorated_call.h).

#include "launch/function_state.h"
#include "launch/hooked_launch.h"
#include "resolve/resolver.h"
#include "settings/settings.h"

namespace triton_jit::detail {

// launch_call's miss for a HIP target: the key with its 'S' flags, found or resolved.
[[gnu::cold, gnu::noinline]] inline const KernelEntry* resolve_hip(FunctionState& m, SpecKey& key, const ArgValue* full,
                                                                   const Target& target) {
  if (pointer_ranges_for(target, m.signature.function)) mark_pointer_ranges(m.rules.data(), full, &key);
  return m.table.find(key, full);
}

inline void launch_call(FunctionState& m, const LaunchConfig& config, ArgSpan args) {
  const cuda::CurrentDevice dev = cuda::current_device();
  const uint32_t explicit_target = explicit_target_packed();
  const int arch = explicit_target ? static_cast<int>(explicit_target & 0xffff) : dev.info->arch;
  const int warp_size = explicit_target ? static_cast<int>(explicit_target >> 16) : dev.info->warp_size;
  const bool hip = explicit_target ? g_explicit_target_hip.load(std::memory_order_acquire) : dev.info->hip;

  SpecKey key;
  ArgStorage storage;
  PackedParams packed;
  const ArgValue* full = m.bind<true>(config, args, arch, warp_size, hip, &key, storage.data(), &packed);

  const KernelEntry* entry = m.table.find(key, full);
  if (entry != nullptr) {
    count_hit(m.hit_slot, m.hits);
  } else {
    // The packed explicit target holds only arch and warp size: its backend (hip) comes from the
    // setting itself, read here on the miss path.
    const Target target = explicit_target ? *triton_jit::explicit_target() : cuda::device_target(*dev.info);
    // A HIP target's key has Triton's 'S' flags: the lookup above, without them, could not hit.
    if (target.backend == "hip") {
      entry = resolve_hip(m, key, full, target);
      if (entry != nullptr) count_hit(m.hit_slot, m.hits);  // in memory after all: a hit
    }
    if (entry == nullptr) entry = Resolver::resolve(m, key, full, config, target, config.stream, true);
  }
  CUfunction function = entry->function_for(dev.context, *dev.info, m.loads);
  // Launch hooks, C++ or Triton's Python ones: one relaxed load when there are none.
  if (__builtin_expect(launch_hook_bits() != 0, 0)) {
    launch_with_hooks(m, *entry, function, config, packed, *dev.info, full);
    return;
  }
  launch_kernel(*entry, function, config, packed, *dev.info, m.signature.function.c_str());
}

// The kernel a complete call uses, resolved (compiled on a miss) without launching.
inline const KernelEntry& resolve_call(FunctionState& m, const LaunchConfig& config, ArgSpan args,
                                       const Target& target) {
  SpecKey key;
  ArgStorage storage;
  const ArgValue* full = m.bind_for<false>(config, args, target, &key, storage.data(), nullptr);
  const KernelEntry* entry = m.table.find(key, full);
  if (entry != nullptr) {
    count_hit(m.hit_slot, m.hits);
    return *entry;
  }
  return *Resolver::resolve(m, key, full, config, target, nullptr, false);
}

}  // namespace triton_jit::detail

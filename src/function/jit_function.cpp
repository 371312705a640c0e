// The calls of a TritonJitFunction. A launch builds its key on the stack, finds the kernel in the
// function's table without a lock, packs and launches; everything else is the resolver's.
#include "triton_jit/jit_function.h"

#include "launch/function_state.h"
#include "resolve/resolver.h"
#include "settings/settings.h"

namespace triton_jit {

using detail::ArgStorage;
using detail::KernelEntry;
using detail::Resolver;
using detail::SpecKey;

TritonJitFunction::TritonJitFunction(std::unique_ptr<detail::FunctionState> state) : state_(std::move(state)) {}
TritonJitFunction::~TritonJitFunction() = default;

void TritonJitFunction::launch(const LaunchConfig& config, ArgSpan args) const {
  detail::FunctionState& m = *state_;
  const cuda::CurrentDevice dev = cuda::current_device();
  const uint32_t explicit_target = detail::explicit_target_packed();
  const int arch = explicit_target ? static_cast<int>(explicit_target & 0xffff) : dev.info->arch;
  const int warp_size = explicit_target ? static_cast<int>(explicit_target >> 16) : 32;

  SpecKey key;
  ArgStorage storage;
  detail::PackedParams packed;
  const ArgValue* full = m.bind<true>(config, args, arch, warp_size, &key, storage.data(), &packed);

  const KernelEntry* entry = m.table.find(key, full);
  if (entry != nullptr) {
    detail::count_hit(m.hit_slot, m.hits);
  } else {
    Target target{"cuda", arch, warp_size};
    entry = Resolver::resolve(m, key, full, config, target, config.stream, true);
  }
  CUfunction function = entry->function_for(dev.context, *dev.info, m.loads);
  detail::launch_kernel(*entry, function, config, packed, *dev.info, m.signature.function.c_str());
}

Specialization TritonJitFunction::specialize(const LaunchConfig& config, ArgSpan args) const {
  const Target target = Resolver::default_target();
  SpecKey key;
  ArgStorage storage;
  const ArgValue* full = state_->bind<false>(config, args, target.arch, target.warp_size, &key, storage.data(),
                                             nullptr);
  return state_->describe(key, full, config, target);
}

const KernelInfo& TritonJitFunction::compile(const LaunchConfig& config, ArgSpan args) const {
  const Target target = Resolver::default_target();
  SpecKey key;
  ArgStorage storage;
  const ArgValue* full = state_->bind<false>(config, args, target.arch, target.warp_size, &key, storage.data(),
                                             nullptr);
  const KernelEntry* entry = state_->table.find(key, full);
  if (entry != nullptr) {
    detail::count_hit(state_->hit_slot, state_->hits);
  } else {
    entry = Resolver::resolve(*state_, key, full, config, target, nullptr, false);
  }
  return entry->info();
}

KernelInfo TritonJitFunction::compile(const CompileRequest& request) const {
  return Resolver::compile_request(*state_, request);
}

const StaticSignature& TritonJitFunction::signature() const noexcept { return state_->signature; }
const std::string& TritonJitFunction::name() const noexcept { return state_->name; }
const std::string& TritonJitFunction::path() const noexcept { return state_->path; }
const std::string& TritonJitFunction::module() const noexcept { return state_->module; }

Stats TritonJitFunction::stats() const noexcept {
  Stats s;
  s.hits = state_->hits.load(std::memory_order_relaxed) +
           (state_->hit_slot >= 0 ? detail::sum_hits(state_->hit_slot) : 0);
  s.misses = state_->misses.load(std::memory_order_relaxed);
  s.compiles = state_->compiles.load(std::memory_order_relaxed);
  s.loads = state_->loads.load(std::memory_order_relaxed);
  s.index_hits = state_->index_hits.load(std::memory_order_relaxed);
  s.pack_hits = state_->pack_hits.load(std::memory_order_relaxed);
  return s;
}

}  // namespace triton_jit

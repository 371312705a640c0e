#include "launch/table.h"

#include <string>

#include "cuda/driver_api.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {
namespace {

// A target as errors name it, as cuda::device_arch_name names devices: "sm_90", "hip:gfx942".
std::string arch_name(const Target& t) { return t.backend == "cuda" ? "sm_" + std::to_string(t.arch) : t.str(); }

}  // namespace

KernelEntry::KernelEntry(const SpecKey& key, std::vector<std::pair<int, std::string>> string_constexprs,
                         const CompiledKernel& kernel, const StaticSignature& signature, std::string key_text)
    : key_(key.words, key.words + key.num_words),
      hash_(key.hash),
      strings_(std::move(string_constexprs)),
      info_(kernel.public_info()),
      launch_(kernel.launch),
      key_text_(std::move(key_text)),
      needs_launch_ex_(info_.num_ctas != 1 || launch_.launch_pdl || launch_.launch_cooperative_grid) {
  int packed = 0;
  for (uint32_t i = 0; i < key.num_params; ++i) {
    const TypeKind kind = ParamCode{key.code(i), 0}.kind();
    if (kind == TypeKind::Constexpr) continue;
    if (kind == TypeKind::TensorDesc) descriptors_.push_back(DescriptorSlot{packed, signature.params.at(i).name});
    ++packed;
  }
}

// Modules stay loaded for the life of the process: entries are never destroyed while a context
// may still launch them, and unloading during static destruction would race the driver's own.
KernelEntry::~KernelEntry() = default;

bool KernelEntry::strings_match_slow(const ArgValue* args) const noexcept {
  for (const auto& [index, text] : strings_) {
    if (args[index].as_string() != text) return false;
  }
  return true;
}

CUfunction KernelEntry::load(CUcontext context, const cuda::DeviceInfo& device, std::atomic<uint64_t>& loads) const {
  std::lock_guard<std::mutex> lock(load_mutex_);
  const int n = num_loaded_.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) {
    if (loaded_[i].context.load(std::memory_order_relaxed) == context) return loaded_[i].function;
  }
  const std::string where = "kernel " + info_.name + " on device " + std::to_string(device.ordinal);
  if (info_.target.backend != (device.hip ? "hip" : "cuda") || info_.target.arch != device.arch) {
    const Target device_target = cuda::device_target(device);
    throw ArchitectureMismatchError(
        where + ": the binary was compiled for " + arch_name(info_.target) + " but the device is " +
        cuda::device_arch_name(device) +
        ". Unset TRITON_JIT_TARGET (or triton_jit::set_target) so kernels compile for the device, or set it to " +
        device_target.str() + ".");
  }
  if (info_.shared > device.max_shared_optin) {
    throw LaunchConfigError(
        where + " needs " + std::to_string(info_.shared) + " bytes of shared memory but the device allows at most " +
        std::to_string(device.max_shared_optin) + " per block; use smaller blocks or fewer num_stages.");
  }
  if (n == kMaxContexts) {
    throw CudaError(where + ": more than " + std::to_string(kMaxContexts) + " CUDA contexts launched this kernel",
                    CUDA_ERROR_OUT_OF_MEMORY);
  }
  const cuda::DriverApi& d = cuda::driver();
  CUmodule module = nullptr;
  CUresult r = d.ModuleLoadData(&module, info_.cubin.data());
  if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_INVALID_SOURCE) {
    throw ArchitectureMismatchError(where + ": the driver rejected the binary built for " + arch_name(info_.target) +
                                    " (" + cuda::error_name(r) + ": " + cuda::error_string(r) + "); the device is " +
                                    cuda::device_arch_name(device) + ".");
  }
  if (r != CUDA_SUCCESS) cuda::throw_cuda_error(r, "cuModuleLoadData", where.c_str());
  CUfunction function = nullptr;
  r = d.ModuleGetFunction(&function, module, info_.name.c_str());
  if (r != CUDA_SUCCESS) {
    d.ModuleUnload(module);
    cuda::throw_cuda_error(r, "cuModuleGetFunction", where.c_str());
  }
  auto fail = [&](CUresult res, const char* call) {
    d.ModuleUnload(module);
    cuda::throw_cuda_error(res, call, where.c_str());
  };
  // Above 48 KiB a block must opt in to dynamic shared memory, as Triton's own loader does.
  if (info_.shared > 49152) {
    if ((r = d.FuncSetCacheConfig(function, CU_FUNC_CACHE_PREFER_SHARED)) != CUDA_SUCCESS)
      fail(r, "cuFuncSetCacheConfig");
    int shared_static = 0;
    if ((r = d.FuncGetAttribute(&shared_static, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function)) != CUDA_SUCCESS) {
      fail(r, "cuFuncGetAttribute");
    }
    if ((r = d.FuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                device.max_shared_optin - shared_static)) != CUDA_SUCCESS) {
      fail(r, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    }
  }
  if (info_.num_ctas == 16) {  // a cluster of 16 is beyond the portable size
    if ((r = d.FuncSetAttribute(function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)) != CUDA_SUCCESS) {
      fail(r, "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)");
    }
  }
  loaded_[n].function = function;
  loaded_[n].module = module;
  loaded_[n].context.store(context, std::memory_order_relaxed);
  num_loaded_.store(n + 1, std::memory_order_release);
  loads.fetch_add(1, std::memory_order_relaxed);
  return function;
}

void KernelTable::place(Table& table, const KernelEntry* entry) {
  size_t i = entry->hash() & table.mask;
  while (table.slots[i].entry.load(std::memory_order_relaxed) != nullptr) i = (i + 1) & table.mask;
  table.slots[i].hash.store(entry->hash(), std::memory_order_relaxed);
  table.slots[i].entry.store(entry, std::memory_order_release);
}

void KernelTable::insert(std::unique_ptr<KernelEntry> entry) {
  Table* current = tables_.empty() ? nullptr : tables_.back().get();
  entries_.push_back(std::move(entry));
  const size_t count = entries_.size();
  if (current != nullptr && count * 2 <= current->mask + 1) {
    place(*current, entries_.back().get());  // readers see the slot complete or empty
    return;
  }
  size_t capacity = current ? (current->mask + 1) * 2 : 16;
  while (capacity < count * 2) capacity *= 2;
  auto table = std::make_unique<Table>();
  table->mask = capacity - 1;
  table->slots = std::make_unique<Slot[]>(capacity);
  for (const auto& e : entries_) place(*table, e.get());
  table_.store(table.get(), std::memory_order_release);
  tables_.push_back(std::move(table));
}

}  // namespace triton_jit::detail

// FlagGems' LibEntry (lib_entry.h): its key, its frozen choices, their records in the index.
#include "decorators/lib_entry.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "cuda/device.h"
#include "cuda/driver_api.h"
#include "decorators/autotune_hooks.h"
#include "key/arg_identity.h"
#include "launch/function_state.h"
#include "settings/settings.h"
#include "store/binary_io.h"
#include "store/index_entries.h"
#include "store/pack_registry.h"
#include "store/records.h"
#include "store/sha256.h"
#include "triton_jit/errors.h"
#include "triton_jit/tensor_descriptor.h"

namespace triton_jit::detail {

namespace {

// Tags of the key words: what LibEntry's key tuple holds for an argument. Different tags never
// compare equal, as (int, 1) and (bool, True) do not in LibEntry's spec_arg.
enum : uint64_t {
  kTagNone = 1,
  kTagBool,
  kTagInt,      // a Python int (C++ int64, or uint64 below 2**63)
  kTagBigUInt,  // a Python int of 2**63 or more
  kTagFloat,
  kTagString,
  kTagDType,
  kTagTensor,      // spec_arg: (dtype, data_ptr() % divisibility == 0)
  kTagDescriptor,  // a TensorDescriptor: (shape, strides, block_shape, padding), as LibEntry hashes it
  kTagNumber,      // a constexpr number: Python's 1 == 1.0 == True are one key
  kTagIntClass,    // dns_arg of an int: "i32", "u64", "i64"
  kTagTypeOnly,    // dns_arg of anything else: type(arg) (a tensor: its dtype)
};

constexpr uint64_t kTwo63 = uint64_t{1} << 63;

uint64_t float_bits(double v) {
  if (v == 0) v = 0;  // -0.0 == 0.0 in Python, and they hash alike
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

uint64_t descriptor_hash(const TensorDescriptor& d) {
  uint64_t h = 1469598103934665603ull;
  const auto mix = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ull;
  };
  mix(static_cast<uint64_t>(d.rank));
  for (int i = 0; i < d.rank; ++i) {
    mix(static_cast<uint64_t>(d.shape[i]));
    mix(static_cast<uint64_t>(d.strides[i]));
    mix(static_cast<uint64_t>(d.block_shape[i]));
  }
  mix(static_cast<uint64_t>(d.padding));
  return h;
}

// The key of a value that LibEntry holds as itself (a constexpr in const_args): Python's ==
// and hash, under which True, 1 and 1.0 are one value.
void constexpr_words(const ArgValue& a, uint64_t* out) {
  switch (a.kind()) {
    case ArgValue::Kind::Bool: out[0] = kTagNumber; out[1] = a.as_bool() ? 1 : 0; return;
    case ArgValue::Kind::Int: out[0] = kTagNumber; out[1] = a.bits(); return;
    case ArgValue::Kind::UInt:
      out[0] = a.as_uint() < kTwo63 ? kTagNumber : kTagBigUInt;
      out[1] = a.as_uint();
      return;
    case ArgValue::Kind::Float: {
      const double v = a.as_float();
      if (std::isfinite(v) && v == std::trunc(v) && v >= -9.2233720368547758e18 && v < 9.2233720368547758e18) {
        out[0] = kTagNumber;
        out[1] = static_cast<uint64_t>(static_cast<int64_t>(v));
      } else if (std::isfinite(v) && v == std::trunc(v) && v >= 9.2233720368547758e18 && v < 1.8446744073709552e19) {
        out[0] = kTagBigUInt;
        out[1] = static_cast<uint64_t>(v);
      } else {
        out[0] = kTagFloat;
        out[1] = float_bits(v);
      }
      return;
    }
    case ArgValue::Kind::String: out[0] = kTagString; out[1] = string_identity(a.as_string()); return;
    case ArgValue::Kind::DType: out[0] = kTagDType; out[1] = a.bits(); return;
    case ArgValue::Kind::Pointer: out[0] = kTagTensor | static_cast<uint64_t>(a.dtype()) << 8; out[1] = a.address(); return;
    case ArgValue::Kind::TensorDesc:
      out[0] = kTagDescriptor;
      out[1] = descriptor_hash(*a.as_tensor_descriptor());
      return;
    default: out[0] = kTagNone; out[1] = 0; return;
  }
}

// LibEntry.key's spec_arg: a tensor by (dtype, aligned), anything else by (type, value).
void spec_words(const ArgValue& a, int divisibility, uint64_t* out) {
  switch (a.kind()) {
    case ArgValue::Kind::Pointer:
      out[0] = kTagTensor | static_cast<uint64_t>(a.dtype()) << 8;
      out[1] = a.address() % static_cast<uint64_t>(divisibility) == 0;
      return;
    case ArgValue::Kind::TensorDesc:
      out[0] = kTagDescriptor;
      out[1] = descriptor_hash(*a.as_tensor_descriptor());
      return;
    case ArgValue::Kind::Bool: out[0] = kTagBool; out[1] = a.as_bool(); return;
    case ArgValue::Kind::Int: out[0] = kTagInt; out[1] = a.bits(); return;
    case ArgValue::Kind::UInt:
      out[0] = a.as_uint() < kTwo63 ? kTagInt : kTagBigUInt;
      out[1] = a.as_uint();
      return;
    case ArgValue::Kind::Float: out[0] = kTagFloat; out[1] = float_bits(a.as_float()); return;
    case ArgValue::Kind::String: out[0] = kTagString; out[1] = string_identity(a.as_string()); return;
    case ArgValue::Kind::DType: out[0] = kTagDType; out[1] = a.bits(); return;
    default: out[0] = kTagNone; out[1] = 0; return;
  }
}

// LibEntry.key's dns_arg: a tensor by its dtype, an int (bool included) by the class of its
// value, anything else by its type.
void dns_words(const ArgValue& a, uint64_t* out) {
  out[0] = kTagTypeOnly;
  switch (a.kind()) {
    case ArgValue::Kind::Pointer: out[1] = 0x100 | static_cast<uint64_t>(a.dtype()); return;
    case ArgValue::Kind::TensorDesc: out[1] = 0x200; return;  // LibEntry hashes it as a tuple: type tuple
    case ArgValue::Kind::Bool:
    case ArgValue::Kind::Int: {
      const int64_t v = a.kind() == ArgValue::Kind::Bool ? a.as_bool() : a.as_int();
      out[0] = kTagIntClass;
      out[1] = v >= -(int64_t{1} << 31) && v <= (int64_t{1} << 31) - 1 ? 32 : 64;
      return;
    }
    case ArgValue::Kind::UInt: {
      const uint64_t v = a.as_uint();
      out[0] = kTagIntClass;
      out[1] = v <= (uint64_t{1} << 31) - 1 ? 32 : v >= kTwo63 ? 65 : 64;
      return;
    }
    case ArgValue::Kind::Float: out[1] = 0x300; return;
    case ArgValue::Kind::String: out[1] = 0x400; return;
    case ArgValue::Kind::DType: out[1] = 0x500 | (a.bits() & 0x100); return;  // tl.dtype or torch.dtype
    default: out[1] = 0; return;                                              // NoneType
  }
}

// A value a call holds, as DefaultValue keeps Python values (for the index).
DefaultValue to_value(const ArgValue& a) {
  DefaultValue d;
  d.kind = a.kind();
  switch (a.kind()) {
    case ArgValue::Kind::Bool: d.bool_value = a.as_bool(); break;
    case ArgValue::Kind::Int: d.int_value = a.as_int(); break;
    case ArgValue::Kind::UInt: d.uint_value = a.as_uint(); break;
    case ArgValue::Kind::Float: d.float_value = a.as_float(); break;
    case ArgValue::Kind::String: d.string_value = std::string(a.as_string()); break;
    case ArgValue::Kind::DType:
      d.dtype_value = a.dtype();
      d.torch_dtype = (a.bits() & 0x100) != 0;
      break;
    case ArgValue::Kind::None: break;
    default: d.kind = ArgValue::Kind::None; d.representable = false; break;  // no constexpr form
  }
  d.repr = identity_repr(a);
  return d;
}

void view_values(FrozenChoice& frozen) {
  frozen.args.clear();
  for (const auto& [param, value] : frozen.values) frozen.args.emplace_back(param, value.to_arg());
}

std::string key_bytes(const uint64_t* words, uint32_t n) {
  BinaryWriter w;
  w.u32(n);
  for (uint32_t i = 0; i < n; ++i) w.u64(words[i]);
  return w.bytes();
}

constexpr uint32_t kFrozenFormat = 1;

bool same_value(const ArgValue& a, const ArgValue& b) {
  uint64_t x[kIdentityWords], y[kIdentityWords];
  identity_words(a, x);
  identity_words(b, y);
  return x[0] == y[0] && x[1] == y[1];
}

// The config an autotuner applied to a completed call: the one whose constexprs the call holds,
// and among several such, the one whose launch options it has (LibEntry reads best_config).
std::optional<uint32_t> chosen_config(const AutotuneInfo& info, const ArgValue* full, const LaunchConfig& out) {
  std::optional<uint32_t> found;
  for (uint32_t c = 0; c < info.configs.size(); ++c) {
    const AutotuneConfigInfo& config = info.configs[c];
    bool match = true;
    for (const auto& [param, value] : config.kwargs) match &= same_value(full[param], value.to_arg());
    if (!match) continue;
    if (config.num_warps == out.num_warps && config.num_stages == out.num_stages && config.num_ctas == out.num_ctas) {
      return c;
    }
    if (!found) found = c;
  }
  return found;
}

}  // namespace

std::string write_frozen_choice(const FrozenChoice& frozen) {
  BinaryWriter w;
  w.u32(kFrozenFormat);
  w.u32(static_cast<uint32_t>(frozen.values.size()));
  for (const auto& [param, value] : frozen.values) {
    w.u32(param);
    write_value(w, value);
  }
  w.u32(static_cast<uint32_t>(frozen.num_warps));
  w.u32(static_cast<uint32_t>(frozen.num_stages));
  w.u32(static_cast<uint32_t>(frozen.num_ctas));
  write_compile_options(w, frozen.options);
  w.u32(static_cast<uint32_t>(frozen.pre_hooks.size()));
  for (const auto& [layer, config] : frozen.pre_hooks) {
    w.u32(layer);
    w.u32(config);
  }
  return w.bytes();
}

std::unique_ptr<FrozenChoice> read_frozen_choice(const std::string& bytes, size_t num_params) {
  BinaryReader r(bytes);
  if (r.u32() != kFrozenFormat) throw FormatError{"frozen LibEntry choice of another format"};
  auto frozen = std::make_unique<FrozenChoice>();
  const uint32_t n = r.u32();
  if (n > num_params) throw FormatError{"too many frozen values"};
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t param = r.u32();
    if (param >= num_params) throw FormatError{"bad parameter index"};
    frozen->values.emplace_back(param, read_value(r));
  }
  frozen->num_warps = static_cast<int>(r.u32());
  frozen->num_stages = static_cast<int>(r.u32());
  frozen->num_ctas = static_cast<int>(r.u32());
  frozen->options = read_compile_options(r);
  const uint32_t hooks = r.u32();
  if (hooks > 64) throw FormatError{"too many pre_hooks"};
  for (uint32_t i = 0; i < hooks; ++i) {
    const uint32_t layer = r.u32();
    const uint32_t config = r.u32();
    frozen->pre_hooks.emplace_back(layer, config);
  }
  view_values(*frozen);
  return frozen;
}

LibEntryRuntime::LibEntryRuntime(const StaticSignature& signature, const LibEntryInfo& info,
                                 std::vector<uint32_t> caller_params)
    : signature_(&signature), info_(info), caller_params_(std::move(caller_params)) {
  std::vector<bool> caller(signature.params.size(), false);
  for (uint32_t p : caller_params_) caller[p] = true;
  for (size_t p = 0; p < signature.params.size(); ++p) {
    if (!caller[p] || signature.params[p].is_constexpr) frozen_params_.push_back(static_cast<uint32_t>(p));
  }
  // The wrappers below and the parameters: a table frozen for other configs, heuristics or
  // parameters is another table.
  Sha256 h;
  h.update("libentry/" + std::to_string(info.divisibility) + "\n");
  for (const ParamInfo& p : signature.params) {
    h.update(p.name + (p.is_constexpr ? ":c" : "") + (p.do_not_specialize ? ":d" : "") + "\n");
  }
  for (const DecoratorLayer& layer : signature.decorators) {
    h.update(std::to_string(static_cast<int>(layer.kind)) + "\n");
    for (const HeuristicInfo& x : layer.heuristics) h.update(x.name + "=" + x.source + "\n");
    for (const AutotuneConfigInfo& c : layer.autotune.configs) h.update(c.repr + "\n");
  }
  digest_ = h.hex().substr(0, 16);
}

std::string LibEntryRuntime::table_name(const std::string& device_name) const {
  return "libentry/" + digest_ + "/" + device_name;
}

uint32_t LibEntryRuntime::key_words(int device, const ArgValue* full, uint64_t* out) const noexcept {
  uint32_t n = 0;
  out[n++] = static_cast<uint64_t>(static_cast<int64_t>(device));
  for (uint32_t p : caller_params_) {
    const ParamInfo& info = signature_->params[p];
    if (info.is_constexpr) {
      constexpr_words(full[p], out + n);
    } else if (info.do_not_specialize) {
      dns_words(full[p], out + n);
    } else {
      spec_words(full[p], info_.divisibility, out + n);
    }
    n += 2;
  }
  return n;
}

const FrozenChoice* LibEntryRuntime::find(const uint64_t* words, uint32_t n) const noexcept {
  const std::unique_ptr<FrozenChoice>* found = table_.find(words, n);
  return found != nullptr ? found->get() : nullptr;
}

void LibEntryRuntime::apply(const FrozenChoice& frozen, ArgValue* full, LaunchConfig* out) const noexcept {
  for (const auto& [param, value] : frozen.args) full[param] = value;
  out->num_warps = frozen.num_warps;
  out->num_stages = frozen.num_stages;
  out->num_ctas = frozen.num_ctas;
  out->options = frozen.options.empty() ? nullptr : &frozen.options;
}

void LibEntryRuntime::run(FunctionState& fn, const DecoratedCall& call, ArgValue* full, size_t num_caller_args,
                          LaunchConfig* out, const LaunchConfig& user, CallMode mode) const {
  const bool have_device = mode != CallMode::Describe || cuda::driver_available();
  const int device = have_device ? cuda::current_device().info->ordinal : -1;
  uint64_t words[kMaxKeyWords];
  const uint32_t n = key_words(device, full, words);
  const FrozenChoice* frozen = find(words, n);
  if (frozen == nullptr) frozen = first_call(fn, call, device, full, num_caller_args, out, user, mode, words, n);
  if (frozen != nullptr) {
    apply(*frozen, full, out);
    apply_grid_fn(*signature_, user, full, out);
    if (!frozen->pre_hooks.empty() &&
        (mode == CallMode::Launch || has_descriptor_args(full, fn.signature.params.size()))) {
      run_pre_hooks(fn, call, *frozen, full, num_caller_args, *out);
    }
    return;
  }
  apply_grid_fn(*signature_, user, full, out);
}

const FrozenChoice* LibEntryRuntime::first_call(FunctionState& fn, const DecoratedCall& call, int device,
                                                ArgValue* full, size_t num_caller_args, LaunchConfig* out,
                                                const LaunchConfig& user, CallMode mode, const uint64_t* words,
                                                uint32_t n) const {
  if (device >= 0) {
    load_stored(fn, device);
    if (const FrozenChoice* stored = find(words, n)) return stored;
  }
  // As LibEntry.run: the wrappers below choose (tuning, heuristics), then their choice is frozen.
  // No lock is held meanwhile (the wrappers may wait for the GIL); concurrent first calls of one
  // key each run them, and the first choice inserted is the one kept.
  call.apply_layers(fn, 1, full, num_caller_args, out, user, mode);
  if (mode != CallMode::Launch || device < 0) return nullptr;  // only a launch freezes, as run() does
  auto choice = std::make_unique<FrozenChoice>();
  for (uint32_t p : frozen_params_) choice->values.emplace_back(p, to_value(full[p]));
  choice->num_warps = out->num_warps;
  // The kernel's number, as LibEntry keeps the kernel the first call compiled (with the
  // target's default where the call left num_stages to it).
  choice->num_stages = launch_num_stages(out->num_stages);
  choice->num_ctas = out->num_ctas;
  if (out->options != nullptr) choice->options = *out->options;
  for (size_t l = 1; l < fn.signature.decorators.size(); ++l) {
    const AutotuneRuntime* tuner = call.autotuner(l);
    if (tuner == nullptr || tuner->info().configs.empty()) continue;
    const std::optional<uint32_t> chosen = chosen_config(tuner->info(), full, *out);
    if (chosen && tuner->info().configs[*chosen].has_pre_hook) {
      choice->pre_hooks.emplace_back(static_cast<uint32_t>(l), *chosen);
    }
  }
  view_values(*choice);
  const std::unique_ptr<FrozenChoice>& kept = table_.insert(words, n, std::move(choice));
  KernelIndex::instance().store_table_entry(fn.path, fn.name, bridge::python_environment(),
                                            table_name(cuda::device_name_of(device)), key_bytes(words + 1, n - 1),
                                            write_frozen_choice(*kept));
  if (log_enabled(LogLevel::Info)) {
    log_line("libentry " + fn.signature.function + ": froze a choice on device " + std::to_string(device) + " (" +
             std::to_string(table_.size()) + " keys)");
  }
  return nullptr;  // this call was completed by the wrappers themselves
}

void LibEntryRuntime::load_stored(FunctionState& fn, int device) const {
  std::lock_guard<std::mutex> lock(loaded_mutex_);
  if (std::find(loaded_devices_.begin(), loaded_devices_.end(), device) != loaded_devices_.end()) return;
  loaded_devices_.push_back(device);
  const std::string table = table_name(cuda::device_name_of(device));
  auto entries = KernelIndex::instance().load_table(fn.path, fn.name, bridge::python_environment(), table);
  auto packed = PackRegistry::instance().find_table(fn.name, fn.pack_sha256, table);
  entries.insert(entries.end(), packed.begin(), packed.end());
  const size_t num_params = signature_->params.size();
  for (const auto& [key, value] : entries) {
    try {
      BinaryReader r(key);
      const uint32_t count = r.u32();
      if (count + 1 > kMaxKeyWords) continue;
      uint64_t words[kMaxKeyWords];
      words[0] = static_cast<uint64_t>(static_cast<int64_t>(device));
      for (uint32_t i = 0; i < count; ++i) words[1 + i] = r.u64();
      std::unique_ptr<FrozenChoice> frozen = read_frozen_choice(value, num_params);
      bool usable = true;
      for (const auto& [layer, config] : frozen->pre_hooks) {
        const DecoratorLayer* l = layer < signature_->decorators.size() ? &signature_->decorators[layer] : nullptr;
        usable &= l != nullptr && l->tunes() && config < l->autotune.configs.size();
      }
      if (usable) table_.insert(words, count + 1, std::move(frozen));
    } catch (const FormatError&) {
      continue;  // a damaged entry is a first call
    }
  }
}

void LibEntryRuntime::run_pre_hooks(FunctionState& fn, const DecoratedCall& call, const FrozenChoice& frozen,
                                    ArgValue* full, size_t num_caller_args, const LaunchConfig& out) const {
  for (const auto& [layer, config] : frozen.pre_hooks) {
    const AutotuneRuntime* tuner = call.autotuner(layer);
    const AutotuneConfigInfo& c = tuner->info().configs[config];
    try {
      run_config_pre_hook(fn, *tuner, config, full, num_caller_args, out.grid, out.stream);
    } catch (const ArgumentError& e) {
      throw ArgumentError(fn.signature.function + ": FlagGems' LibEntry froze " + c.repr +
                              ", whose pre_hook runs before every launch with it, through Python: " + e.what(),
                          fn.signature.function, "pre_hook");
    }
  }
}

}  // namespace triton_jit::detail

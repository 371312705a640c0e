// Decorated calls (decorated_call.h): heuristics and their memos, the autotuner's lookup. The
// tuning itself is in tuner.cpp.
#include "decorators/decorated_call.h"

#include <algorithm>
#include <cstring>

#include "decorators/autotune_hooks.h"
#include "decorators/lib_entry.h"
#include "decorators/lib_tuner.h"
#include "decorators/python_wrapper.h"
#include "decorators/tuner.h"
#include "key/arg_identity.h"
#include "launch/function_state.h"
#include "settings/settings.h"
#include "store/binary_io.h"
#include "store/index_entries.h"
#include "store/pack_registry.h"
#include "store/records.h"
#include "store/sha256.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {

namespace {

constexpr uint32_t kMaxMemoWords = 1 + kIdentityWords * kMaxParams;

// The words a memo entry is stored under: the read set's number, then each read parameter's identity.
uint32_t memo_words(uint32_t set_index, const std::vector<uint32_t>& set, const ArgValue* args, uint64_t* out) {
  out[0] = set_index;
  uint32_t n = 1;
  for (uint32_t p : set) {
    identity_words(args[p], out + n);
    n += kIdentityWords;
  }
  return n;
}

// A table's entries from the index and the loaded packs: what earlier processes stored.
std::vector<std::pair<std::string, std::string>> stored_table(const FunctionState& fn, const std::string& table) {
  auto entries = KernelIndex::instance().load_table(fn.path, fn.name, bridge::python_environment(), table);
  auto packed = PackRegistry::instance().find_table(fn.name, fn.pack_sha256, table);
  entries.insert(entries.end(), packed.begin(), packed.end());
  return entries;
}

std::string describe_inputs(const StaticSignature& s, const std::vector<uint32_t>& params, const ArgValue* args) {
  std::string out;
  for (uint32_t p : params) out += (out.empty() ? "" : ", ") + s.params[p].name + "=" + identity_repr(args[p]);
  return out;
}

}  // namespace

// ---- heuristics -------------------------------------------------------------------------------

HeuristicRuntime::HeuristicRuntime(const HeuristicInfo& info, size_t layer) : info_(&info), layer_(layer) {
  if (!info.program.empty()) {
    try {
      program_ = HeuristicProgram::parse(info.program);
    } catch (const std::exception&) {
      program_.reset();  // a program this build cannot read: Python evaluates it instead
    }
  }
}

std::string HeuristicRuntime::table_name() const { return "heuristic/" + std::to_string(layer_) + "/" + info_->name; }

ArgValue HeuristicRuntime::evaluate(FunctionState& fn, const ArgValue* args, bool* by_program) const {
  if (by_program != nullptr) *by_program = false;
  const bool forced = fn.heuristics_through_python.load(std::memory_order_relaxed);
  if (!forced) {
    if (program_) {
      ArgValue out;
      if (program_->evaluate(args, fn.signature.params.size(), &out) == HeuristicProgram::Outcome::Value) {
        if (by_program != nullptr) *by_program = true;
        return out;
      }
    }
    if (const MemoValue* m = find_memo(args)) return m->arg;
  }
  return call_python(fn, args).arg;
}

const MemoValue* HeuristicRuntime::find_memo(const ArgValue* args) const noexcept {
  const std::vector<std::vector<uint32_t>>* sets = read_sets_.load(std::memory_order_acquire);
  if (sets == nullptr) return nullptr;
  uint64_t words[kMaxMemoWords];
  for (uint32_t s = 0; s < sets->size(); ++s) {
    const uint32_t n = memo_words(s, (*sets)[s], args, words);
    if (const MemoValue* v = memo_.find(words, n)) return v;
  }
  return nullptr;
}

namespace {

// The index of `set` among the published read sets, adding it when new.
uint32_t read_set_index(std::mutex& mutex, std::atomic<const std::vector<std::vector<uint32_t>>*>& published,
                        std::vector<std::unique_ptr<std::vector<std::vector<uint32_t>>>>& versions,
                        const std::vector<uint32_t>& set) {
  std::lock_guard<std::mutex> lock(mutex);
  const auto* current = published.load(std::memory_order_relaxed);
  if (current != nullptr) {
    for (uint32_t i = 0; i < current->size(); ++i) {
      if ((*current)[i] == set) return i;
    }
  }
  auto next = std::make_unique<std::vector<std::vector<uint32_t>>>(
      current != nullptr ? *current : std::vector<std::vector<uint32_t>>{});
  next->push_back(set);
  const uint32_t index = static_cast<uint32_t>(next->size() - 1);
  published.store(next.get(), std::memory_order_release);
  versions.push_back(std::move(next));  // older versions stay alive for readers
  return index;
}

std::string memo_key_bytes(const std::vector<uint32_t>& set, const uint64_t* words) {
  BinaryWriter w;
  w.u32(static_cast<uint32_t>(set.size()));
  for (size_t i = 0; i < set.size(); ++i) {
    w.u32(set[i]);
    for (uint32_t k = 0; k < kIdentityWords; ++k) w.u64(words[1 + i * kIdentityWords + k]);
  }
  return w.bytes();
}

}  // namespace

void HeuristicRuntime::load_stored(FunctionState& fn) const {
  for (const auto& [key, value] : stored_table(fn, table_name())) {
    try {
      BinaryReader r(key);
      std::vector<uint32_t> set(r.u32());
      if (set.size() > static_cast<size_t>(kMaxParams)) continue;
      uint64_t words[kMaxMemoWords];
      uint32_t n = 1;
      for (uint32_t& p : set) {
        p = r.u32();
        if (p >= fn.signature.params.size()) throw FormatError{"bad parameter"};
        for (uint32_t k = 0; k < kIdentityWords; ++k) words[n++] = r.u64();
      }
      BinaryReader v(value);
      MemoValue memo;
      memo.value = read_value(v);
      words[0] = read_set_index(read_sets_mutex_, read_sets_, read_set_versions_, set);
      const MemoValue& stored = memo_.insert(words, n, std::move(memo));
      const_cast<MemoValue&>(stored).arg = stored.value.to_arg();
    } catch (const FormatError&) {
      continue;  // a damaged entry is a miss
    }
  }
}

const MemoValue& HeuristicRuntime::call_python(FunctionState& fn, const ArgValue* args) const {
  // A memo another process stored answers without Python.
  std::call_once(stored_loaded_, [&] { load_stored(fn); });
  const bool forced = fn.heuristics_through_python.load(std::memory_order_relaxed);
  if (!forced) {
    if (const MemoValue* m = find_memo(args)) return *m;
  }
  const auto missing = [&](const std::string& why) {
    std::string inputs;
    for (size_t i = 0; i < fn.signature.params.size(); ++i) {
      if (args[i].kind() == ArgValue::Kind::None && static_cast<int>(i) == info_->param) continue;
      inputs += (inputs.empty() ? "" : ", ") + fn.signature.params[i].name + "=" + identity_repr(args[i]);
    }
    return MissingKernelError(fn.signature.function + ": the heuristic for '" + info_->name +
                                  "' has no stored value for these arguments (" + inputs + ") and " + why +
                                  ". Run the same call once where Python and Triton are available, with the same "
                                  "kernel index (TRITON_JIT_INDEX_DIR), or build the pack there: the value is stored "
                                  "with the kernel.",
                              fn.signature.function, info_->name + "(" + inputs + ")",
                              fn.path + ":" + fn.name + " " + inputs);
  };
  if (offline()) throw missing("offline mode is on, so the heuristic cannot run through Python");
  if (fn.source_sha256.empty()) throw missing("the kernel's source file is absent, so Python cannot run it");
  bridge::HeuristicCall call;
  {
    const bridge::PyHandle wrapper = [&] {
      try {
        return fn.python_wrapper();
      } catch (const PythonError& e) {
        throw missing(std::string("Python cannot run it here: ") + e.what());
      }
    }();
    std::lock_guard<std::mutex> lock(fn.python_mutex);
    try {
      if (callable_.object == nullptr) callable_ = bridge::decorator_callable(wrapper, layer_, info_->name);
    } catch (const PythonError& e) {
      throw missing(std::string("Python cannot run it here: ") + e.what());
    }
    call = bridge::call_heuristic(callable_, fn.signature, info_->name, args, fn.signature.params.size());
  }
  fn.heuristic_python_calls.fetch_add(1, std::memory_order_relaxed);
  std::sort(call.params_read.begin(), call.params_read.end());
  const uint32_t set = read_set_index(read_sets_mutex_, read_sets_, read_set_versions_, call.params_read);
  uint64_t words[kMaxMemoWords];
  const uint32_t n = memo_words(set, call.params_read, args, words);
  if (forced) {
    // Not memoized: every call asks Python. The value still needs a home that outlives the call.
    thread_local MemoValue last;
    last.value = std::move(call.result);
    last.arg = last.value.to_arg();
    return last;
  }
  BinaryWriter value;
  write_value(value, call.result);
  const MemoValue& stored = memo_.insert(words, n, MemoValue{std::move(call.result), ArgValue()});
  const_cast<MemoValue&>(stored).arg = stored.value.to_arg();
  KernelIndex::instance().store_table_entry(fn.path, fn.name, bridge::python_environment(), table_name(),
                                            memo_key_bytes(call.params_read, words), value.bytes());
  if (log_enabled(LogLevel::Info)) {
    log_line("heuristic " + fn.signature.function + "." + info_->name +
             " through Python: " + describe_inputs(fn.signature, call.params_read, args) + " -> " + stored.value.repr);
  }
  return stored;
}

// ---- autotune lookup --------------------------------------------------------------------------

std::string configs_digest(const AutotuneInfo& info) {
  Sha256 h;
  for (const AutotuneConfigInfo& c : info.configs) h.update(c.repr).update(std::string_view("\0", 1));
  return h.hex().substr(0, 16);
}

std::string named_choice_table(size_t layer, const std::string& digest) {
  return "autotune/" + std::to_string(layer) + "/" + digest + "/@key";
}

std::string canonical_key_text(std::string_view key) {
  std::string out;
  char quote = 0;
  for (size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    if (quote != 0) {
      out += c;
      if (c == '\\' && i + 1 < key.size()) {
        out += key[++i];
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      out += c;
    } else if (c != ' ' && c != '\t') {
      out += c;
    }
  }
  return out;
}

AutotuneRuntime::AutotuneRuntime(const AutotuneInfo& info, size_t layer, std::vector<bool> set_by_outer_layer)
    : info_(&info),
      layer_(layer),
      set_by_outer_layer_(std::move(set_by_outer_layer)),
      configs_digest_(detail::configs_digest(info)) {
  for (const AutotuneConfigInfo& c : info.configs) {
    config_args_.emplace_back();
    for (const auto& [param, value] : c.kwargs) config_args_.back().emplace_back(param, value.to_arg());
  }
}

void AutotuneRuntime::apply(uint32_t config, ArgValue* full, LaunchConfig* out) const noexcept {
  for (const auto& [param, value] : config_args_[config]) full[param] = value;
  const AutotuneConfigInfo& c = info_->configs[config];
  out->num_warps = c.num_warps;
  out->num_stages = c.num_stages;
  out->num_ctas = c.num_ctas;
  if (!c.options.empty()) out->options = &c.options;
}

std::optional<uint32_t> AutotuneRuntime::named_choice(FunctionState& fn, const std::string& key_repr) const {
  std::call_once(named_loaded_, [&] {
    for (const auto& [key, value] : stored_table(fn, named_choice_table(layer_, configs_digest_))) {
      try {
        BinaryReader v(value);
        const uint32_t config = v.u32();
        if (config < info_->configs.size()) named_.emplace_back(key, config);
      } catch (const FormatError&) {
        continue;  // a damaged entry is a miss
      }
    }
  });
  const std::string wanted = canonical_key_text(key_repr);
  for (const auto& [key, config] : named_) {
    if (key == wanted) return config;
  }
  return std::nullopt;
}

__attribute__((always_inline)) inline uint32_t AutotuneRuntime::key_words(const ArgValue* args, size_t num_present,
                                                                          uint64_t* out) const noexcept {
  // Triton's key: the `key` arguments' values (of those passed), then str(dtype) of every passed
  // tensor argument, in parameter order.
  uint32_t n = 0;
  out[n++] = num_present;
  for (int p : info_->key) {
    identity_words(args[p], out + n);
    n += kIdentityWords;
  }
  for (size_t p = 0; p < num_present; ++p) {
    if (args[p].kind() == ArgValue::Kind::Pointer) out[n++] = static_cast<uint64_t>(args[p].dtype()) | 1u << 31;
  }
  return n;
}

std::string AutotuneRuntime::key_repr(const ArgValue* args, size_t num_present) const {
  std::vector<std::string> items;
  for (int p : info_->key) {
    // Triton's key holds only the `key` arguments it was given (or an outer wrapper set).
    if (static_cast<size_t>(p) < num_present || set_by_outer_layer_[p]) items.push_back(identity_repr(args[p]));
  }
  for (size_t p = 0; p < num_present; ++p) {
    if (args[p].kind() == ArgValue::Kind::Pointer) items.push_back(identity_repr(args[p]));
  }
  std::string out = "(";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + (items.size() == 1 ? ",)" : ")");
}

std::vector<uint32_t> AutotuneRuntime::hook_params(size_t num_caller_args, size_t* num_passed) const {
  std::vector<uint32_t> out;
  for (size_t p = 0; p < num_caller_args && p < caller_param_.size(); ++p) {
    if (caller_param_[p]) out.push_back(static_cast<uint32_t>(p));
  }
  *num_passed = out.size();
  for (size_t p = 0; p < set_by_outer_layer_.size(); ++p) {
    if (set_by_outer_layer_[p]) out.push_back(static_cast<uint32_t>(p));
  }
  return out;
}

std::string AutotuneRuntime::table_name(const std::string& device_name) const {
  return "autotune/" + std::to_string(layer_) + "/" + configs_digest_ + "/" + device_name;
}

void AutotuneRuntime::load_stored(FunctionState& fn, const std::string& device_name) const {
  std::call_once(stored_loaded_, [&] {
    for (const auto& [key, value] : stored_table(fn, table_name(device_name))) {
      try {
        BinaryReader r(key);
        const uint32_t n = r.u32();
        if (n > kMaxKeyWords) continue;
        uint64_t words[kMaxKeyWords];
        for (uint32_t i = 0; i < n; ++i) words[i] = r.u64();
        BinaryReader v(value);
        const uint32_t config = v.u32();
        if (config >= info_->configs.size()) continue;
        choices_.insert(words, n, config);
      } catch (const FormatError&) {
        continue;
      }
    }
  });
}

void AutotuneRuntime::set_last_tuning(TuningResult result) const {
  std::lock_guard<std::mutex> lock(last_tuning_mutex_);
  last_tuning_ = std::move(result);
}

std::optional<TuningResult> AutotuneRuntime::last_tuning() const {
  std::lock_guard<std::mutex> lock(last_tuning_mutex_);
  return last_tuning_;
}

// ---- the call ---------------------------------------------------------------------------------

DecoratedCall::DecoratedCall(const StaticSignature& signature, const Binder& binder)
    : signature_(signature), binder_(binder) {
  const size_t n = signature.params.size();
  const std::vector<int>& set_by_layer = binder.set_by_layer();
  std::vector<bool> caller(n);
  for (size_t p = 0; p < n; ++p) caller[p] = set_by_layer[p] < 0;
  for (size_t l = 0; l < signature.decorators.size(); ++l) {
    const DecoratorLayer& layer = signature.decorators[l];
    heuristics_.emplace_back();
    autotuners_.emplace_back();
    libtuners_.emplace_back();
    memos_.emplace_back();
    if (layer.kind == DecoratorLayer::Kind::LibEntry) continue;  // sets nothing: lib_entry.h
    if (layer.kind == DecoratorLayer::Kind::Python) {
      // Runs the whole call in Python; the binder marks what its chain says it sets.
      if (python_layer_ < 0) python_layer_ = static_cast<int>(l);
    } else if (layer.kind == DecoratorLayer::Kind::Heuristics) {
      for (const HeuristicInfo& h : layer.heuristics)
        heuristics_.back().push_back(std::make_unique<HeuristicRuntime>(h, l));
    } else {
      // What the layers outside this one set.
      std::vector<bool> outer(n);
      for (size_t p = 0; p < n; ++p) outer[p] = set_by_layer[p] >= 0 && static_cast<size_t>(set_by_layer[p]) < l;
      autotuners_.back() = std::make_unique<AutotuneRuntime>(layer.autotune, l, std::move(outer));
      autotuners_.back()->set_caller_params(caller);
      runs_hooks_ = runs_hooks_ || has_hooks(layer.autotune);
      // fla's CachedAutotuner is Triton's Autotuner only while FLA_CACHE_MODE is off.
      if (layer.autotune.fla_cache_gate && fla_cache_mode_on() && python_layer_ < 0) python_layer_ = static_cast<int>(l);
      if (layer.kind == DecoratorLayer::Kind::LibTuner) {
        libtuners_.back() = std::make_shared<const LibTunerRuntime>(layer.libtuner, *autotuners_.back(), l, signature);
      }
    }
  }
  for (size_t l = 0; l < heuristics_.size(); ++l) {
    if (!heuristics_[l].empty()) plan_memo(l);
  }
  if (!signature.decorators.empty() && signature.decorators[0].kind == DecoratorLayer::Kind::LibEntry) {
    lib_entry_ = std::make_unique<LibEntryRuntime>(signature, signature.decorators[0].lib_entry, binder.caller_params());
  }
}

DecoratedCall::~DecoratedCall() = default;

void DecoratedCall::plan_memo(size_t layer) {
  auto memo = std::make_unique<LayerMemo>();
  memo->usable = true;
  std::vector<bool> set_before(signature_.params.size(), false), set_here(signature_.params.size(), false);
  for (const auto& h : heuristics_[layer]) {
    if (h->info().param >= 0) set_here[h->info().param] = true;
  }
  for (const auto& h : heuristics_[layer]) {
    const HeuristicProgram* program = h->program();
    if (program == nullptr) {
      memo->usable = false;  // a Python heuristic reads what it likes: its own memo handles it
      break;
    }
    for (uint32_t p : program->params_read()) {
      if (set_before[p]) continue;  // computed earlier in this layer from the inputs
      if (set_here[p]) {
        memo->usable = false;  // reads a value this layer sets later: keep it simple, no memo
        break;
      }
      if (std::find(memo->inputs.begin(), memo->inputs.end(), p) == memo->inputs.end()) memo->inputs.push_back(p);
    }
    if (h->info().param >= 0) {
      set_before[h->info().param] = true;
      memo->outputs.push_back(static_cast<uint32_t>(h->info().param));
    } else {
      memo->outputs.push_back(LayerMemo::kOptionOutput | static_cast<uint32_t>(h->info().option));
    }
  }
  memos_[layer] = std::move(memo);
}

namespace {

// The launch option a memo output names (kOptionOutput | HeuristicOption), as set in `config`.
int option_of(const LaunchConfig& config, uint32_t output) {
  switch (static_cast<HeuristicOption>(output & ~LayerMemo::kOptionOutput)) {
    case HeuristicOption::NumWarps: return config.num_warps;
    case HeuristicOption::NumStages: return config.num_stages;
    default: return config.num_ctas;
  }
}

}  // namespace

void set_heuristic_option(const FunctionState& fn, const HeuristicInfo& heuristic, const ArgValue& value,
                          LaunchConfig* out) {
  int64_t v = 0;
  bool is_int = true;
  switch (value.kind()) {
    case ArgValue::Kind::Int: v = value.as_int(); break;
    case ArgValue::Kind::UInt: v = value.as_uint() > 1000 ? 1000 : static_cast<int64_t>(value.as_uint()); break;
    case ArgValue::Kind::Bool: v = value.as_bool() ? 1 : 0; break;
    case ArgValue::Kind::None:  // JITFunction.run drops a None option: Triton's default, the target's
      v = heuristic.option == HeuristicOption::NumWarps    ? kDefaultNumWarps
          : heuristic.option == HeuristicOption::NumStages ? kTargetDefaultNumStages
                                                           : kDefaultNumCtas;
      break;
    default: is_int = false; break;
  }
  // The ranges a launch takes (FunctionState::check_config); CUDAOptions asserts the power of two.
  const char* rule = nullptr;
  int* target = nullptr;
  switch (heuristic.option) {
    case HeuristicOption::NumWarps:
      if (!is_int || v < 1 || v > 64 || (v & (v - 1)) != 0) rule = "num_warps must be a power of two in 1..64";
      target = &out->num_warps;
      break;
    case HeuristicOption::NumStages:
      if (!is_int || v < (value.kind() == ArgValue::Kind::None ? kTargetDefaultNumStages : 0) || v > 255) {
        rule = "num_stages must be an int in 0..255";
      }
      target = &out->num_stages;
      break;
    case HeuristicOption::NumCtas:
      if (!is_int || v < 1 || v > 16) rule = "num_ctas must be an int in 1..16";
      target = &out->num_ctas;
      break;
    case HeuristicOption::None: rule = "it names no launch option"; break;
  }
  if (rule == nullptr) {
    *target = static_cast<int>(v);
    return;
  }
  const std::string& function = fn.signature.function;
  throw ArgumentError(function + ": the @triton.heuristics value '" + heuristic.name + "' returned " +
                          identity_repr(value) + ", which is no valid launch option " + heuristic.name + " (" + rule +
                          "; Triton's launch fails too); make the heuristic return one",
                      function, heuristic.name);
}

void DecoratedCall::apply_heuristics(FunctionState& fn, size_t layer, ArgValue* full, LaunchConfig* out) const {
  const LayerMemo* memo = memos_[layer].get();
  const bool memoize = memo != nullptr && memo->usable && !fn.heuristics_through_python.load(std::memory_order_relaxed);
  uint64_t words[kIdentityWords * kMaxParams];
  uint32_t num_words = 0;
  if (memoize) {
    for (uint32_t p : memo->inputs) {
      if (full[p].kind() == ArgValue::Kind::String) {
        num_words = UINT32_MAX;  // identified by a hash: evaluate rather than risk a collision
        break;
      }
      identity_words(full[p], words + num_words);
      num_words += kIdentityWords;
    }
    if (num_words != UINT32_MAX) {
      if (const std::vector<ArgValue>* known = memo->values.find(words, num_words)) {
        for (size_t i = 0; i < known->size(); ++i) {
          const uint32_t target = memo->outputs[i];
          if (target & LayerMemo::kOptionOutput) {
            set_heuristic_option(fn, heuristics_[layer][i]->info(), (*known)[i], out);
          } else {
            full[target] = (*known)[i];
          }
        }
        return;
      }
    }
  }
  bool all_by_program = true;
  for (const auto& h : heuristics_[layer]) {
    bool by_program = false;
    const ArgValue value = h->evaluate(fn, full, &by_program);
    if (h->info().param >= 0) {
      full[h->info().param] = value;
    } else {
      // A launch option, for the launch; a later heuristic does not read it (Heuristics.run
      // passes it on as a keyword, which args[...] of a parameter never is).
      set_heuristic_option(fn, h->info(), value, out);
    }
    all_by_program &= by_program;
  }
  if (memoize && num_words != UINT32_MAX && all_by_program && memo->values.size() < LayerMemo::kMaxEntries) {
    std::vector<ArgValue> values;
    for (uint32_t p : memo->outputs) {
      // A heuristic's None (the target's default) is replayed as None.
      const int option = p & LayerMemo::kOptionOutput ? option_of(*out, p) : 0;
      values.push_back(!(p & LayerMemo::kOptionOutput)     ? full[p]
                       : option == kTargetDefaultNumStages ? ArgValue::none()
                                                           : ArgValue::integer(option));
    }
    memo->values.insert(words, num_words, std::move(values));
  }
}

const AutotuneRuntime* DecoratedCall::autotuner(size_t layer) const {
  return layer < autotuners_.size() ? autotuners_[layer].get() : nullptr;
}

void DecoratedCall::complete(FunctionState& fn, const LaunchConfig& config, ArgSpan args, ArgValue* full,
                             LaunchConfig* out, CallMode mode) const {
  // A launch runs such a call through Python before it gets here (TritonJitFunction::launch).
  if (python_layer_ >= 0) fail_python_wrapper_not_launched(fn, static_cast<size_t>(python_layer_));
  // Parameters a layer sets are None until it does (a heuristic sees the values so far); the
  // caller's come from the call or their defaults.
  fn.binder->complete(args, full);
  copy_launch_options(config, out);
  // Triton keys and passes only what the caller gave: the caller's positional arguments.
  const size_t num_caller_args = args.size == 0 ? 0 : binder_.caller_params()[args.size - 1] + 1;
  if (lib_entry_ != nullptr) {  // FlagGems' LibEntry: a frozen choice, or the layers below it
    lib_entry_->run(fn, *this, full, num_caller_args, out, config, mode);
    return;
  }
  apply_layers(fn, 0, full, num_caller_args, out, config, mode);
  apply_grid_fn(signature_, config, full, out);
}

void DecoratedCall::apply_layers(FunctionState& fn, size_t first, ArgValue* full, size_t num_caller_args,
                                 LaunchConfig* out, const LaunchConfig& user, CallMode mode) const {
  for (size_t l = first; l < heuristics_.size(); ++l) {
    if (const AutotuneRuntime* at = autotuners_[l].get()) {
      const AutotuneInfo& info = at->info();
      uint32_t chosen = 0;
      if (info.configs.size() > 1 && libtuners_[l]) {
        uint64_t words[AutotuneRuntime::kMaxKeyWords];
        const uint32_t nw = libtuners_[l]->key_words(fn, full, num_caller_args, words);
        const uint32_t* known = at->find(words, nw);
        chosen = known != nullptr ? *known
                                  : libtuners_[l]->choose(fn, *this, full, num_caller_args, *out, user, mode, words, nw);
      } else if (info.configs.size() > 1) {
        uint64_t words[AutotuneRuntime::kMaxKeyWords];
        const uint32_t nw = at->key_words(full, num_caller_args, words);
        const uint32_t* known = at->find(words, nw);
        chosen = known != nullptr ? *known : tune(fn, *this, *at, full, num_caller_args, *out, user, mode, words, nw);
      }
      const AutotuneConfigInfo& config = info.configs[chosen];
      at->apply(chosen, full, out);
      // As Autotuner.run: the chosen config's pre_hook before every launch with it (Python). Where
      // the call has tensor descriptors it also runs for prepare() and specialize(): the block
      // shape it sets on them is part of the key.
      if (config.has_pre_hook &&
          (mode == CallMode::Launch || has_descriptor_args(full, fn.signature.params.size()))) {
        run_config_pre_hook(fn, *at, chosen, full, num_caller_args, out->grid, out->stream);
      }
      continue;
    }
    apply_heuristics(fn, l, full, out);
  }
}

void apply_config(const AutotuneConfigInfo& c, ArgValue* full, LaunchConfig* out) {
  for (const auto& [param, value] : c.kwargs) full[param] = value.to_arg();
  out->num_warps = c.num_warps;
  out->num_stages = c.num_stages;
  out->num_ctas = c.num_ctas;
  if (!c.options.empty()) out->options = &c.options;
}

void copy_launch_options(const LaunchConfig& config, LaunchConfig* out) {
  out->grid = config.grid;
  out->num_warps = config.num_warps;
  out->num_stages = config.num_stages;
  out->num_ctas = config.num_ctas;
  out->stream = config.stream;
  out->options = config.options;
}

void apply_grid_fn(const StaticSignature& signature, const LaunchConfig& config, const ArgValue* full,
                   LaunchConfig* out) {
  if (config.grid_fn) {
    // The grid function reads the number the kernel compiles with: the target's default resolved.
    out->grid = config.grid_fn(
        GridMeta(signature, full, out->num_warps, launch_num_stages(out->num_stages), out->num_ctas));
  }
}

}  // namespace triton_jit::detail

namespace triton_jit::detail {

void DecoratedCallDeleter::operator()(DecoratedCall* call) const noexcept { delete call; }

}  // namespace triton_jit::detail

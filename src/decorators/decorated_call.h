#pragma once
// How a call of a function wrapped in @triton.heuristics and @triton.autotune becomes a call of
// the @triton.jit function under them, as Triton's wrappers do it in Python: the caller passes
// the parameters no decorator sets; the layers, outermost first, fill in the rest (a heuristic
// from the values so far, an autotuner the chosen config's constexprs and launch options).
//
// Nothing here runs Python on a repeated call: heuristics run as translated programs, or once
// per distinct input through Python with the result memoized; the autotuner's choice is looked up
// without a lock. Memos and tuning results are stored in the index, so a later process needs no
// Python for the inputs an earlier one saw.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bridge/bridge.h"
#include "decorators/heuristic_program.h"
#include "decorators/snapshot_map.h"
#include "launch/call_mode.h"
#include "triton_jit/arg.h"
#include "triton_jit/binder.h"
#include "triton_jit/decorators.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/signature.h"

namespace triton_jit::detail {

struct FunctionState;
class LibEntryRuntime;  // decorators/lib_entry.h
class LibTunerRuntime;  // decorators/lib_tuner.h

// A heuristic's value for one input, kept for the life of the process (strings are viewed).
struct MemoValue {
  DefaultValue value;
  ArgValue arg;  // value.to_arg(), viewing value's string
};

class HeuristicRuntime {
 public:
  HeuristicRuntime(const HeuristicInfo& info, size_t layer);

  const HeuristicInfo& info() const noexcept { return *info_; }
  // The translated program, when there is one.
  const HeuristicProgram* program() const noexcept { return program_ ? &*program_ : nullptr; }
  // The heuristic's value for the call's arguments so far. *by_program: whether the program gave it.
  ArgValue evaluate(FunctionState& fn, const ArgValue* args, bool* by_program = nullptr) const;

 private:
  const MemoValue* find_memo(const ArgValue* args) const noexcept;
  const MemoValue& call_python(FunctionState& fn, const ArgValue* args) const;
  void load_stored(FunctionState& fn) const;
  std::string table_name() const;

  const HeuristicInfo* info_;
  size_t layer_;
  std::optional<HeuristicProgram> program_;
  // Memo: the sets of parameters the Python heuristic was seen to read, and per set the value
  // under the identities of those parameters. Sets are published like the map: copy on insert.
  mutable std::mutex read_sets_mutex_;
  mutable std::atomic<const std::vector<std::vector<uint32_t>>*> read_sets_{nullptr};
  mutable std::vector<std::unique_ptr<std::vector<std::vector<uint32_t>>>> read_set_versions_;
  mutable SnapshotMap<MemoValue> memo_;
  mutable std::once_flag stored_loaded_;
  mutable bridge::PyHandle callable_;  // under FunctionState::python_mutex
};

// One autotuner's choices: the config index per tuning key. As with Triton's Autotuner, a process
// keeps one choice per key whatever the device; the index keeps them per device name.
class AutotuneRuntime {
 public:
  // `set_by_outer_layer`: per parameter, whether a wrapper outside this one sets it.
  AutotuneRuntime(const AutotuneInfo& info, size_t layer, std::vector<bool> set_by_outer_layer);
  const AutotuneInfo& info() const noexcept { return *info_; }
  size_t layer() const noexcept { return layer_; }

  // The tuning key of a call: words (for lookups) and Python's repr of Triton's key tuple.
  // `num_caller_args`: the leading parameters the caller passed (Triton keys only those).
  uint32_t key_words(const ArgValue* args, size_t num_caller_args, uint64_t* out) const noexcept;
  std::string key_repr(const ArgValue* args, size_t num_caller_args) const;

  const uint32_t* find(const uint64_t* words, uint32_t n) const noexcept { return choices_.find(words, n); }
  // Sets config `config`'s constexprs and launch options (apply_config, with the constexprs'
  // ArgValues made once, not per call).
  void apply(uint32_t config, ArgValue* full, LaunchConfig* out) const noexcept;
  uint32_t insert(const uint64_t* words, uint32_t n, uint32_t config) const {
    return choices_.insert(words, n, config);
  }

  // A choice named by Triton's key text (a pack manifest's `autotune key=... config=...` line),
  // for any device; read once from the packs and the index. Called under tune_mutex().
  std::optional<uint32_t> named_choice(FunctionState& fn, const std::string& key_repr) const;

  // The persisted choices for this device, read once into memory.
  void load_stored(FunctionState& fn, const std::string& device_name) const;
  std::string table_name(const std::string& device_name) const;
  // A digest of the configs: a table written for other configs is another table.
  const std::string& configs_digest() const noexcept { return configs_digest_; }
  std::mutex& tune_mutex() const noexcept { return tune_mutex_; }

  // The parameters in the dict Triton's Autotuner gives its hooks, in its order: those the caller
  // passed (its nargs; *num_passed of them), then those outer wrappers set (its kwargs).
  std::vector<uint32_t> hook_params(size_t num_caller_args, size_t* num_passed) const;
  // Per parameter, whether the caller passes it (no wrapper sets it). Set once by DecoratedCall.
  void set_caller_params(std::vector<bool> caller) { caller_param_ = std::move(caller); }

  // What tune() last decided for a key it had no choice for in memory (set on that miss only,
  // never on the hot path), for TritonJitFunction::last_tuning.
  void set_last_tuning(TuningResult result) const;
  std::optional<TuningResult> last_tuning() const;

  static constexpr uint32_t kMaxKeyWords = 1 + 3 * 64;  // count, two per key, one per pointer

 private:
  const AutotuneInfo* info_;
  size_t layer_;
  std::vector<bool> set_by_outer_layer_;
  std::vector<bool> caller_param_;
  std::vector<std::vector<std::pair<int, ArgValue>>> config_args_;  // per config: its kwargs as ArgValues
  std::string configs_digest_;
  mutable SnapshotMap<uint32_t> choices_;
  mutable std::once_flag stored_loaded_;
  mutable std::once_flag named_loaded_;
  mutable std::vector<std::pair<std::string, uint32_t>> named_;  // canonical key text, config
  mutable std::mutex tune_mutex_;
  mutable std::mutex last_tuning_mutex_;
  mutable std::optional<TuningResult> last_tuning_;
};

// A heuristics layer whose heuristics are all translated programs is a pure function of the
// arguments they read from outside the layer: its values are kept per distinct input, so a
// repeated call costs one lookup instead of running each program. Bounded: calls whose inputs
// keep changing (a new size every call) run the programs.
struct LayerMemo {
  static constexpr size_t kMaxEntries = 1024;
  bool usable = false;
  std::vector<uint32_t> inputs;   // parameters read from outside the layer
  // What the layer sets, in order: a parameter's index, or kOptionOutput | HeuristicOption.
  static constexpr uint32_t kOptionOutput = 1u << 31;
  std::vector<uint32_t> outputs;
  mutable SnapshotMap<std::vector<ArgValue>> values;
};

// What a decorated function's calls share.
class DecoratedCall {
 public:
  // `binder`: the function's (which parameters the caller passes and which layer sets the others);
  // it and `signature` outlive this object.
  DecoratedCall(const StaticSignature& signature, const Binder& binder);
  ~DecoratedCall();

  // The parameters the caller passes, in order: those no decorator sets.
  const std::vector<uint32_t>& caller_params() const noexcept { return binder_.caller_params(); }

  // Completes the caller's `args` into one argument per parameter (into `full`) and the launch
  // options of the call (into *out: grid, options and stream from `config`, the rest from the
  // chosen autotune config). Throws ArgumentError for a call that does not fit.
  void complete(FunctionState& fn, const LaunchConfig& config, ArgSpan args, ArgValue* full, LaunchConfig* out,
                CallMode mode) const;

  // Applies the layers from `first` on to a call whose caller arguments are in place. `user`: the
  // caller's config (its grid function).
  void apply_layers(FunctionState& fn, size_t first, ArgValue* full, size_t num_caller_args, LaunchConfig* out,
                    const LaunchConfig& user, CallMode mode) const;

  const AutotuneRuntime* autotuner(size_t layer) const;

  // The first layer the runtime does not emulate (DecoratorLayer::Kind::Python), or -1: a call
  // then runs through that chain's own run in Python (decorators/python_wrapper.h).
  int python_layer() const noexcept { return python_layer_; }

  // Whether an autotune layer has hooks (pre_hook, post_hook, a Config's pre_hook), whose
  // descriptor write-backs must live until the launch is done (HookedDescriptorScope): a call of
  // any other function opens no scope, so its launch reads no thread-local state.
  bool runs_hooks() const noexcept { return runs_hooks_; }

 private:
  void apply_heuristics(FunctionState& fn, size_t layer, ArgValue* full, LaunchConfig* out) const;
  void plan_memo(size_t layer);

  const StaticSignature& signature_;
  const Binder& binder_;
  std::vector<std::vector<std::unique_ptr<HeuristicRuntime>>> heuristics_;  // per layer
  std::vector<std::unique_ptr<LayerMemo>> memos_;                           // per layer (heuristics)
  std::vector<std::unique_ptr<AutotuneRuntime>> autotuners_;                // per layer (null if heuristics)
  std::vector<std::shared_ptr<const LibTunerRuntime>> libtuners_;           // per layer (FlagGems' LibTuner)
  int python_layer_ = -1;
  bool runs_hooks_ = false;
  std::unique_ptr<LibEntryRuntime> lib_entry_;  // FlagGems' LibEntry, when it is the outermost layer
};

// A digest of an autotuner's configs (their reprs): tables written for other configs are others.
std::string configs_digest(const AutotuneInfo& info);
// The table of choices named by key text (pack manifests), for any device.
std::string named_choice_table(size_t layer, const std::string& configs_digest);
// A tuning key's text without the spaces outside quotes: a manifest's key and the key a call
// computes compare equal however the manifest spaced it.
std::string canonical_key_text(std::string_view key);

// Sets the launch option a heuristic chose (HeuristicInfo::option) in `out`, as JITFunction.run
// takes the keyword Heuristics.run passes: an int (a bool as Python's int), None for Triton's
// default. Throws ArgumentError naming the function, the heuristic and the value for one Triton
// would refuse (num_warps not a power of two, say).
void set_heuristic_option(const FunctionState& fn, const HeuristicInfo& heuristic, const ArgValue& value,
                          LaunchConfig* out);

// Sets a config's constexprs in `full` and its launch and compile options in `out`, as
// Triton's Autotuner passes config.all_kwargs() on.
void apply_config(const AutotuneConfigInfo& config, ArgValue* full, LaunchConfig* out);

// Copies grid, launch options, stream and compile options, not the grid function (whose copy could
// allocate).
void copy_launch_options(const LaunchConfig& config, LaunchConfig* out);

// Sets the grid of `out` from config.grid_fn when there is one.
void apply_grid_fn(const StaticSignature& signature, const LaunchConfig& config, const ArgValue* full,
                   LaunchConfig* out);

}  // namespace triton_jit::detail

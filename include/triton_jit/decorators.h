#pragma once

// What the runtime knows of a function's @triton.heuristics and @triton.autotune wrappers: read
// once through Python (or from the index or a pack), kept in the StaticSignature, honoured by
// every call. A call passes only the parameters no decorator sets, in parameter order.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "triton_jit/default_value.h"
#include "triton_jit/launch_config.h"

namespace triton_jit {

// The launch options a heuristic may set instead of a parameter. Triton's Heuristics.run passes
// every value to JITFunction.run as a keyword, and run takes these as the launch's options (so
// FlagGems' softmax picks num_warps from the row length).
enum class HeuristicOption : uint8_t { None = 0, NumWarps = 1, NumStages = 2, NumCtas = 3 };

inline HeuristicOption heuristic_option_named(std::string_view name) noexcept {
  if (name == "num_warps") return HeuristicOption::NumWarps;
  if (name == "num_stages") return HeuristicOption::NumStages;
  if (name == "num_ctas") return HeuristicOption::NumCtas;
  return HeuristicOption::None;
}

// One value of a @triton.heuristics dict: the parameter (or launch option) it sets and how the
// runtime computes it.
struct HeuristicInfo {
  std::string name;  // the parameter or launch option it sets
  int param = -1;    // the parameter's index; -1 when it sets a launch option
  // The lambda translated into a program C++ evaluates without Python (empty when it could not
  // be), and why not. Untranslated heuristics run through Python once per distinct input and are
  // memoized under the values of exactly the arguments they read.
  std::string program;
  std::string not_translated_reason;
  std::string source;  // the heuristic's source text, for messages
  HeuristicOption option = HeuristicOption::None;  // the launch option it sets (param is -1), from `name`
};

// One triton.Config of an autotuner.
struct AutotuneConfigInfo {
  // The constexprs it sets: (parameter index, value as Python holds it).
  std::vector<std::pair<int, DefaultValue>> kwargs;
  int num_warps = kDefaultNumWarps;
  // As the config states it (triton.Config's own default, 3, on AMD too); kTargetDefaultNumStages
  // for num_stages=None, which Triton's launch leaves to the target.
  int num_stages = kDefaultNumStages;
  int num_ctas = kDefaultNumCtas;
  CompileOptions options;  // maxnreg and other compile options the config sets
  bool has_pre_hook = false;
  std::string repr;  // Python's str(config), for tables and messages
};

struct AutotuneInfo {
  std::vector<int> key;  // parameters whose values are part of the tuning key
  std::vector<AutotuneConfigInfo> configs;
  std::vector<int> reset_to_zero;  // pointer parameters zeroed before each timed run
  std::vector<int> restore_value;  // pointer parameters restored after each timed run
  bool has_pre_hook = false;       // user hooks (autotune(pre_hook=..., post_hook=...)), run through Python
  bool has_post_hook = false;
  bool has_perf_model = false;  // prune_configs_by
  bool has_early_config_prune = false;
  double top_k = 0;  // prune_configs_by's top_k (an int, or a fraction when < 1); 0: none
  double warmup_ms = 25;
  double rep_ms = 100;
  bool cache_results = false;
  // fla's CachedAutotuner (fla/ops/utils/cache.py), which is Triton's Autotuner exactly while
  // FLA_CACHE_MODE is unset or "disabled"; with another mode its configs come from fla's JSON
  // files, and each call runs its own run through Python (decorators/python_wrapper.h).
  bool fla_cache_gate = false;
};

// One config's outcome in a tuning run (TritonJitFunction::last_tuning).
struct TuningRow {
  std::string config;  // Python's str(config), as AutotuneConfigInfo::repr
  // do_bench's median and 20th/80th percentiles of the config's run time; 0 when not timed.
  double median_ms = 0, p20_ms = 0, p80_ms = 0;
  std::string failure;  // why it was not timed (does not compile, cannot launch); empty when timed
};

// What one autotuner decided, the last time a call gave it a tuning key it had no choice for in
// memory: it timed every config (`rows`, one per config, in order), or it read the choice an
// earlier process stored in the kernel index (`from_index`; `rows` empty, nothing was timed).
struct TuningResult {
  size_t layer = 0;           // the autotune wrapper: its index in StaticSignature::decorators
  std::string key;            // Triton's tuning key, as Python's repr of its tuple: "(1024, 'fp16')"
  std::string device;         // the device's name ("NVIDIA H100 80GB HBM3")
  size_t chosen = 0;          // the chosen config's index (into `rows` and the layer's configs)
  std::string chosen_config;  // its repr
  bool from_index = false;
  std::vector<TuningRow> rows;
};

// A wrapper the runtime does not emulate (a subclass of Triton's Autotuner or Heuristics that
// overrides how a call runs, or another object wrapping the function in `.fn`): every call runs
// the outermost wrapper's own `kernel[grid](...)` through Python, and Triton launches. It stands
// for the whole chain below it.
struct PythonWrapperInfo {
  std::string class_name;  // the wrapper's class, "module.QualName", for messages
  std::string reason;      // why it is not emulated ("a subclass of triton's Autotuner that overrides run")
  std::vector<int> sets;   // parameters the chain sets as far as it says (configs' kwargs, heuristics' names)
};

// FlagGems' @libentry() (flag_gems.utils.libentry.LibEntry), outermost: it keys a dispatch table
// per device by the arguments as FlagGems does and freezes, on a key's first call, what the
// wrappers below it chose (decorators/lib_entry.h).
struct LibEntryInfo {
  int divisibility = 16;  // LibEntry.divisibility: a tensor is keyed by data_ptr() % this == 0
};

// What FlagGems' LibTuner (flag_gems.utils.libentry) adds to an autotuner: a strategy per key
// argument, a tuning policy, and FlagGems' SQLite tuning database, shared with FlagGems' Python.
struct LibTunerInfo {
  // Per `key` argument: "default", "log" (next power of two) or "align32", computed in C++; ""
  // for a strategy that is another Python function (run through Python, memoized per value).
  std::vector<std::string> strategies;
  std::string policy;  // "default": every config timed, the fastest kept; else the custom policy's class
  std::string config_table;         // FlagGems' config_table_name: "{name}_{kernel_hash}"
  std::vector<std::string> tables;  // the SQL table for each number of key columns (0, 1, ...)
  // Per config, the columns FlagGems writes for it: its all_kwargs() entries whose value is an
  // int, float, str or bool, in order.
  std::vector<std::vector<std::pair<std::string, DefaultValue>>> config_columns;
  int triton_major = 0, triton_minor = 0;  // in the database's file name, as FlagGems writes it
  std::string vendor;                      // FlagGems' vendor name ("nvidia": the device's name instead)
  // FlagGems' benchmark tables (each timed config's p50, p20, p80): benchmark_tables[i][n] for n
  // key columns, i = benchmark_table_of_config[config] (configs with the same column names share).
  std::vector<std::vector<std::string>> benchmark_tables;
  std::vector<uint32_t> benchmark_table_of_config;
};

// One wrapper around the @triton.jit function.
struct DecoratorLayer {
  // The values are persisted (index records, packs): a new kind takes a new value.
  enum class Kind { Heuristics = 0, Autotune = 1, Python = 2, LibEntry = 3, LibTuner = 4 };
  Kind kind = Kind::Heuristics;
  std::vector<HeuristicInfo> heuristics;  // Kind::Heuristics, in the dict's order
  AutotuneInfo autotune;                  // Kind::Autotune and Kind::LibTuner
  PythonWrapperInfo python;               // Kind::Python
  LibEntryInfo lib_entry;                 // Kind::LibEntry
  LibTunerInfo libtuner;                  // Kind::LibTuner

  // Whether the layer chooses among configs (Triton's autotuner, FlagGems' LibTuner).
  bool tunes() const noexcept { return kind == Kind::Autotune || kind == Kind::LibTuner; }
};

}  // namespace triton_jit

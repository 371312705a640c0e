#pragma once
// FlagGems' LibTuner (flag_gems.utils.libentry, FlagGems 5.0.2) emulated: an autotuner whose key
// applies a strategy to each key argument (get_key) and whose choices are shared with FlagGems
// through its SQLite tuning database (store/tuning_database.h).
//
// The key, as LibTuner.get_key builds it: strategy_i(args[key_i]) for each key argument, then
// str(arg.dtype) of every passed argument that has a dtype, in parameter order (the runtime's
// caller passes its arguments positionally, so FlagGems' dict order is the parameter order).
// "default", "log" and "align32" are computed here with Python's arithmetic; another Python
// function runs through Python once per distinct value (as an untranslated heuristic does).
//
// On a miss in memory: the runtime's own index, then FlagGems' database, and only then tuning with
// the tuner's policy, as LibTuner.run does: FlagGems' default policy (every kept config timed, the
// first of the least [p50, p20, p80] kept) in C++; a custom policy (register_policy, a subclass's
// own `policy`) through Python, its bench_fn the runtime's timing; without Python, an error naming
// the kernel and the policy. Each timing is read from, else written to, FlagGems' benchmark table
// as its bench_fn does; the choice is written to the config table, so FlagGems in Python finds
// it. A database that cannot be used is a warning and a fallback to tuning.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "decorators/decorated_call.h"
#include "store/tuning_database.h"
#include "triton_jit/arg.h"
#include "triton_jit/decorators.h"

namespace triton_jit::detail {

enum class Strategy { Default, Log, Align32, Python };

Strategy strategy_of(const std::string& name) noexcept;

enum class StrategyOutcome { Value, DomainError, TypeError, Overflow };

// FlagGems' strategy applied to `arg` (Python's result type kept: int, float, bool, str), without
// allocating. Not for Strategy::Python.
StrategyOutcome apply_strategy(Strategy s, const ArgValue& arg, ArgValue* out) noexcept;

// A strategy's result as the database column FlagGems writes for it; nullopt for a value FlagGems
// could not store either (None, a tensor, an integer beyond int64).
std::optional<SqlValue> key_column(const ArgValue& v);

class LibTunerRuntime {
 public:
  LibTunerRuntime(const LibTunerInfo& info, const AutotuneRuntime& tuner, size_t layer,
                  const StaticSignature& signature);

  // The choice map's words for a call (strategies applied), and the key's column values.
  uint32_t key_words(FunctionState& fn, const ArgValue* args, size_t num_present, uint64_t* out) const;
  std::vector<ArgValue> key_values(FunctionState& fn, const ArgValue* args, size_t num_present) const;

  // The config for a key with no choice in memory: the index, FlagGems' database, else tuning.
  uint32_t choose(FunctionState& fn, const DecoratedCall& call, ArgValue* full, size_t num_caller_args,
                  const LaunchConfig& out, const LaunchConfig& user, CallMode mode, const uint64_t* words,
                  uint32_t num_words) const;

  // The config whose columns equal a database row's, if any (FlagGems matches by all_kwargs()).
  std::optional<uint32_t> config_of_row(const std::vector<SqlColumn>& row) const;

 private:
  // FlagGems' benchmark table of `config` for `num_keys` key columns; null where unknown.
  const std::string* benchmark_table(uint32_t config, size_t num_keys) const;
  ArgValue strategy_result(FunctionState& fn, size_t i, const ArgValue* args) const;
  [[noreturn]] void fail_strategy(const FunctionState& fn, size_t i, const ArgValue& arg, StrategyOutcome o) const;

  const LibTunerInfo* info_;
  const AutotuneRuntime* tuner_;
  size_t layer_;
  std::vector<Strategy> strategies_;
  std::vector<std::unique_ptr<HeuristicRuntime>> python_strategies_;  // per key argument (null: in C++)
  std::vector<HeuristicInfo> python_infos_;
  std::vector<std::vector<SqlColumn>> config_columns_;
};

}  // namespace triton_jit::detail

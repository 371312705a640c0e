// FlagGems' LibTuner (lib_tuner.h): strategies, the key, and the tuning database around tune().
#include "decorators/lib_tuner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <mutex>

#include "bridge/bridge.h"
#include "cuda/device.h"
#include "cuda/driver_api.h"
#include "decorators/tuner.h"
#include "key/arg_identity.h"
#include "key/repr.h"
#include "launch/function_state.h"
#include "settings/settings.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {

Strategy strategy_of(const std::string& name) noexcept {
  if (name == "default") return Strategy::Default;
  if (name == "log") return Strategy::Log;
  if (name == "align32") return Strategy::Align32;
  return Strategy::Python;
}

namespace {

// The argument as the float Python's math functions see it; false for a non-number.
bool as_double(const ArgValue& a, double* out) noexcept {
  switch (a.kind()) {
    case ArgValue::Kind::Int: *out = static_cast<double>(a.as_int()); return true;
    case ArgValue::Kind::UInt: *out = static_cast<double>(a.as_uint()); return true;
    case ArgValue::Kind::Float: *out = a.as_float(); return true;
    case ArgValue::Kind::Bool: *out = a.as_bool() ? 1.0 : 0.0; return true;
    default: return false;
  }
}

// math.ceil(x) as an int64, as Python's int: nan and inf raise there.
StrategyOutcome ceil_to_int(double x, int64_t* out) noexcept {
  if (std::isnan(x)) return StrategyOutcome::DomainError;  // ValueError: cannot convert float NaN to integer
  const double c = std::ceil(x);
  if (!(c >= -9223372036854775808.0 && c < 9223372036854775808.0)) return StrategyOutcome::Overflow;
  *out = static_cast<int64_t>(c);
  return StrategyOutcome::Value;
}

SqlValue column_of(const DefaultValue& v) {
  switch (v.kind) {
    case ArgValue::Kind::Bool: return SqlValue::of_bool(v.bool_value);
    case ArgValue::Kind::Float: return SqlValue::of_float(v.float_value);
    case ArgValue::Kind::String: return SqlValue::of_text(v.string_value);
    default: return SqlValue::of_int(v.int_value);
  }
}

std::string key_text(const std::vector<SqlValue>& keys) {
  std::string out = "(";
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", " : "") + keys[i].repr();
  return out + (keys.size() == 1 ? ",)" : ")");
}

}  // namespace

StrategyOutcome apply_strategy(Strategy s, const ArgValue& arg, ArgValue* out) noexcept {
  if (s == Strategy::Default) {
    *out = arg;
    return StrategyOutcome::Value;
  }
  double x = 0;
  if (!as_double(arg, &x)) return StrategyOutcome::TypeError;
  if (s == Strategy::Log) {
    // 2 ** math.ceil(math.log2(x)): an int for x > 0.5, a float (2 ** a negative int) below.
    if (!(x > 0)) return StrategyOutcome::DomainError;  // math.log2 of 0, a negative, nan
    int64_t k = 0;
    const StrategyOutcome o = ceil_to_int(std::log2(x), &k);
    if (o != StrategyOutcome::Value) return o;
    if (k < 0) {
      *out = ArgValue::floating(std::ldexp(1.0, static_cast<int>(std::max<int64_t>(k, -1100))));
    } else if (k < 63) {
      *out = ArgValue::integer(int64_t{1} << k);
    } else {
      return StrategyOutcome::Overflow;  // an int beyond int64, which the database cannot hold either
    }
    return StrategyOutcome::Value;
  }
  // align32: math.ceil(x / 32) * 32 (x / 32 exact for an int, 32 being a power of two).
  int64_t q = 0;
  const StrategyOutcome o = ceil_to_int(x / 32.0, &q);
  if (o != StrategyOutcome::Value) return o;
  if (q > std::numeric_limits<int64_t>::max() / 32 || q < std::numeric_limits<int64_t>::min() / 32) {
    return StrategyOutcome::Overflow;
  }
  *out = ArgValue::integer(q * 32);
  return StrategyOutcome::Value;
}

std::optional<SqlValue> key_column(const ArgValue& v) {
  switch (v.kind()) {
    case ArgValue::Kind::Int: return SqlValue::of_int(v.as_int());
    case ArgValue::Kind::Float: return SqlValue::of_float(v.as_float());
    case ArgValue::Kind::Bool: return SqlValue::of_bool(v.as_bool());
    case ArgValue::Kind::String: return SqlValue::of_text(std::string(v.as_string()));
    default: return std::nullopt;
  }
}

LibTunerRuntime::LibTunerRuntime(const LibTunerInfo& info, const AutotuneRuntime& tuner, size_t layer,
                                 const StaticSignature& signature)
    : info_(&info), tuner_(&tuner), layer_(layer) {
  const std::vector<int>& key = tuner.info().key;
  python_infos_.reserve(key.size());  // HeuristicRuntime keeps a pointer to its info
  for (size_t i = 0; i < key.size(); ++i) {
    strategies_.push_back(strategy_of(i < info.strategies.size() ? info.strategies[i] : ""));
    python_strategies_.emplace_back();
    if (strategies_.back() != Strategy::Python) continue;
    HeuristicInfo h;
    h.name = "strategy:" + std::to_string(i);  // the bridge's decorator_callable knows the name
    h.param = key[i];
    h.not_translated_reason = "a LibTuner strategy written in Python";
    h.source = "strategy of " + signature.params[static_cast<size_t>(key[i])].name;
    python_infos_.push_back(std::move(h));
    python_strategies_.back() = std::make_unique<HeuristicRuntime>(python_infos_.back(), layer);
  }
  for (const auto& config : info.config_columns) {
    config_columns_.emplace_back();
    for (const auto& [name, value] : config) config_columns_.back().push_back({name, column_of(value)});
  }
}

void LibTunerRuntime::fail_strategy(const FunctionState& fn, size_t i, const ArgValue& arg,
                                    StrategyOutcome o) const {
  const std::string& param = fn.signature.params[static_cast<size_t>(tuner_->info().key[i])].name;
  const std::string what = o == StrategyOutcome::TypeError     ? "TypeError: it needs a number"
                           : o == StrategyOutcome::DomainError ? "ValueError: math domain error"
                                                               : "an integer beyond int64";
  throw ArgumentError(fn.signature.function + ": LibTuner's '" + info_->strategies[i] + "' strategy of key argument " +
                          param + " = " + identity_repr(arg) + " gives " + what +
                          " (FlagGems' get_key fails the same way); pass a value the strategy accepts",
                      fn.signature.function, param);
}

ArgValue LibTunerRuntime::strategy_result(FunctionState& fn, size_t i, const ArgValue* args) const {
  const ArgValue& arg = args[tuner_->info().key[i]];
  if (strategies_[i] == Strategy::Python) return python_strategies_[i]->evaluate(fn, args);
  ArgValue out;
  const StrategyOutcome o = apply_strategy(strategies_[i], arg, &out);
  if (o != StrategyOutcome::Value) fail_strategy(fn, i, arg, o);
  return out;
}

uint32_t LibTunerRuntime::key_words(FunctionState& fn, const ArgValue* args, size_t num_present,
                                    uint64_t* out) const {
  uint32_t n = 0;
  out[n++] = num_present;
  for (size_t i = 0; i < strategies_.size(); ++i) {
    identity_words(strategy_result(fn, i, args), out + n);
    n += kIdentityWords;
  }
  for (size_t p = 0; p < num_present; ++p) {
    if (args[p].kind() == ArgValue::Kind::Pointer) out[n++] = static_cast<uint64_t>(args[p].dtype()) | 1u << 31;
  }
  return n;
}

std::vector<ArgValue> LibTunerRuntime::key_values(FunctionState& fn, const ArgValue* args,
                                                  size_t num_present) const {
  std::vector<ArgValue> out;
  for (size_t i = 0; i < strategies_.size(); ++i) out.push_back(strategy_result(fn, i, args));
  for (size_t p = 0; p < num_present; ++p) {
    if (args[p].kind() == ArgValue::Kind::Pointer) out.push_back(args[p]);
  }
  return out;
}

const std::string* LibTunerRuntime::benchmark_table(uint32_t config, size_t num_keys) const {
  if (config >= info_->benchmark_table_of_config.size()) return nullptr;
  const std::vector<std::string>& names = info_->benchmark_tables[info_->benchmark_table_of_config[config]];
  return num_keys < names.size() ? &names[num_keys] : nullptr;
}

std::optional<uint32_t> LibTunerRuntime::config_of_row(const std::vector<SqlColumn>& row) const {
  for (uint32_t c = 0; c < config_columns_.size(); ++c) {
    const std::vector<SqlColumn>& mine = config_columns_[c];
    if (mine.size() != row.size()) continue;
    bool same = true;
    for (const SqlColumn& col : mine) {
      bool found = false;
      for (const SqlColumn& r : row) found |= r.name == col.name && r.value == col.value;
      same &= found;
    }
    if (same) return c;
  }
  return std::nullopt;
}

uint32_t LibTunerRuntime::choose(FunctionState& fn, const DecoratedCall& call, ArgValue* full,
                                 size_t num_caller_args, const LaunchConfig& out, const LaunchConfig& user,
                                 CallMode mode, const uint64_t* words, uint32_t num_words) const {
  const std::string& function = fn.signature.function;
  // FlagGems' key as columns: strategy values, then each tensor's str(dtype).
  std::vector<SqlValue> keys;
  bool storable = true;
  for (const ArgValue& v : key_values(fn, full, num_caller_args)) {
    if (v.kind() == ArgValue::Kind::Pointer) {
      keys.push_back(SqlValue::of_text(python_dtype_repr(v.dtype(), true)));
    } else if (std::optional<SqlValue> c = key_column(v)) {
      keys.push_back(std::move(*c));
    } else {
      storable = false;  // None or a tensor as a key value: FlagGems cannot store it either
    }
  }
  std::optional<TuningDatabase> db;
  std::string table;
  {
    std::lock_guard<std::mutex> lock(tuner_->tune_mutex());
    if (const uint32_t* known = tuner_->find(words, num_words)) return *known;
    const bool have_device = mode != CallMode::Describe || cuda::driver_available();
    const std::string device = have_device ? cuda::device_name_of(cuda::current_device().info->ordinal, "") : "";
    if (!device.empty()) {
      tuner_->load_stored(fn, device);  // the runtime's own index
      if (const uint32_t* known = tuner_->find(words, num_words)) return *known;
    }
    if (storable && keys.size() < info_->tables.size() && (!device.empty() || std::getenv("FLAGGEMS_DB_URL"))) {
      table = info_->tables[keys.size()];
      try {
        db.emplace(flaggems_database_path(device, info_->vendor, info_->triton_major, info_->triton_minor));
        if (const auto row = db->get_config(table, keys)) {
          if (const std::optional<uint32_t> chosen = config_of_row(*row)) {
            if (log_enabled(LogLevel::Info)) {
              log_line("LibTuner " + function + ": key " + key_text(keys) + " -> " +
                       tuner_->info().configs[*chosen].repr + " from FlagGems' tuning database " + db->path());
            }
            TuningResult result;
            result.layer = layer_;
            result.key = key_text(keys);
            result.device = device;
            result.chosen = *chosen;
            result.chosen_config = tuner_->info().configs[*chosen].repr;
            result.from_index = true;
            tuner_->set_last_tuning(std::move(result));
            return tuner_->insert(words, num_words, *chosen);
          }
          warn(function + ": FlagGems' tuning database " + db->path() + " holds a config for key " + key_text(keys) +
               " in table " + table + " that is none of the kernel's configs; tuning instead");
        }
      } catch (const TuningDatabaseError& e) {
        warn(function + ": " + e.what() + "; tuning instead");
        db.reset();
      }
    }
  }
  const bool custom = info_->policy != "default";
  bridge::PyHandle wrapper;
  if (custom) {
    std::string why;
    wrapper = fn.python_wrapper_or_why(&why);
    if (wrapper.object == nullptr) {
      throw ArgumentError(function + " tunes with the custom LibTuner policy " + info_->policy +
                              ", which runs through Python, and Python cannot run here (" + why + "); key " +
                              key_text(keys) +
                              " has no config in FlagGems' tuning database: run the operator once through FlagGems "
                              "in Python with the same database (FLAGGEMS_CACHE_DIR, FLAGGEMS_DB_URL), which stores "
                              "its choice there",
                          function, "");
    }
  }
  // FlagGems' bench_fn: the benchmark table's timing of the config for this key, else the
  // runtime's timing, then stored there.
  const auto bench = [&](uint32_t c, const std::function<std::array<double, 3>(uint32_t)>& time) {
    const std::string* bench_table = benchmark_table(c, keys.size());
    if (db && bench_table != nullptr) {
      try {
        if (const auto stored = db->get_benchmark(*bench_table, keys, config_columns_[c])) return *stored;
      } catch (const TuningDatabaseError& e) {
        warn(function + ": " + e.what() + "; timing config [" + std::to_string(c) + "] instead");
      }
    }
    const std::array<double, 3> timing = time(c);
    if (db && bench_table != nullptr) {
      try {
        db->put_benchmark(*bench_table, keys, config_columns_[c], timing);
      } catch (const TuningDatabaseError& e) {
        warn(function + ": the timing of config [" + std::to_string(c) + "] for key " + key_text(keys) +
             " is not shared with FlagGems: " + e.what());
      }
    }
    return timing;
  };
  const ConfigChooser chooser = [&](const std::vector<size_t>& kept,
                                    const std::function<std::array<double, 3>(uint32_t)>& time) -> uint32_t {
    if (custom) {
      size_t num_passed = 0;
      const std::vector<uint32_t> params = tuner_->hook_params(num_caller_args, &num_passed);
      return bridge::run_libtuner_policy(wrapper, layer_, fn.signature, full, params, num_passed, kept,
                                         [&](uint32_t c) { return bench(c, time); });
    }
    // default_policy: min(timings, key=timings.get), the first config of the least [p50, p20, p80].
    std::optional<std::pair<uint32_t, std::array<double, 3>>> best;
    for (size_t k : kept) {
      const uint32_t c = static_cast<uint32_t>(k);
      const std::array<double, 3> t = bench(c, time);
      if (!best || t < best->second) best.emplace(c, t);
    }
    if (!best) throw ArgumentError(function + ": prune_configs_by kept no config for key " + key_text(keys), function, "");
    return best->first;
  };
  const uint32_t chosen = tune(fn, call, *tuner_, full, num_caller_args, out, user, mode, words, num_words, &chooser);
  if (db) {
    try {
      db->put_config(table, keys, config_columns_[chosen]);
    } catch (const TuningDatabaseError& e) {
      warn(function + ": the choice for key " + key_text(keys) + " is not shared with FlagGems: " + e.what());
    }
  }
  return chosen;
}

}  // namespace triton_jit::detail

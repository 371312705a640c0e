// The autotuner's miss (tuner.h), with Triton's semantics: every config compiled, then timed in
// turn with reset_to_zero zeroed before and restore_value restored after each run (inside the
// timed call, as Triton's hooks are), the fastest median kept, and reset_to_zero zeroed once more
// before the real launch.
#include "decorators/tuner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>

#include "cuda/device.h"
#include "cuda/device_memory.h"
#include "cuda/driver_api.h"
#include "decorators/autotune_hooks.h"
#include "decorators/benchmark.h"
#include "function/call.h"
#include "launch/function_state.h"
#include "resolve/resolver.h"
#include "settings/settings.h"
#include "store/binary_io.h"
#include "store/index_entries.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {

namespace {

struct Candidate {
  std::vector<ArgValue> args;
  LaunchConfig config;
  std::string failure;  // why it was skipped; empty when timed
  double median_ms = std::numeric_limits<double>::infinity();
  double p20_ms = 0, p80_ms = 0;
};

// The pointer arguments a tuning run writes, with their sizes; a missing size is an error.
std::vector<Range> buffers_of(const FunctionState& fn, const std::vector<int>& params, const ArgValue* full,
                              const char* list) {
  std::vector<Range> out;
  for (int p : params) {
    const ArgValue& a = full[p];
    if (a.kind() == ArgValue::Kind::None) continue;  // an optional tensor not given
    const std::string& name = fn.signature.params[p].name;
    if (a.kind() != ArgValue::Kind::Pointer) {
      throw ArgumentError(fn.signature.function + ": autotune's " + list + " names '" + name + "', which was given a " +
                              kind_name(a.kind()) + ", not a tensor",
                          fn.signature.function, name);
    }
    if (a.extent() == 0) {
      throw ArgumentError(fn.signature.function + ": autotune's " + list + " names '" + name +
                              "'; the runtime writes it while tuning and needs its size: pass an at::Tensor (a "
                              "contiguous one) or TypedPtr{ptr, dtype, bytes}",
                          fn.signature.function, name);
    }
    out.push_back(Range{a.address(), a.extent()});
  }
  return out;
}

std::string format_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", ms);
  return buf;
}

// Makes every config's kernel ready before timing, compiling the missing ones in parallel on
// prepare's worker processes. A config that fails to compile is reported by its own resolve.
void compile_in_parallel(FunctionState& fn, const std::vector<Candidate>& candidates, const Target& target) {
  std::vector<KernelRequest> requests;
  const size_t n = fn.signature.params.size();
  for (const Candidate& c : candidates) {
    if (!c.failure.empty()) continue;  // pruned
    SpecKey key;
    ArgStorage storage;
    const ArgValue* full = fn.bind_for<false>(c.config, ArgSpan{c.args.data(), n}, target, &key, storage.data(),
                                              nullptr);
    if (fn.table.find(key, full) != nullptr) continue;
    KernelRequest r;
    r.function = fn.self;
    const Specialization spec = fn.describe(key, full, c.config, target);
    r.signature = spec.signature();
    r.num_warps = c.config.num_warps;
    r.num_stages = spec.num_stages;
    r.num_ctas = c.config.num_ctas;
    if (c.config.options != nullptr) r.options = *c.config.options;
    r.target = target;
    requests.push_back(std::move(r));
  }
  if (requests.size() < 2 || fn.self == nullptr) return;  // one compile: in this process, below
  PrepareOptions options;
  options.progress = Progress::Never;
  options.load = false;
  try {
    Resolver::resolve_batch(requests, options, "autotune", nullptr);
  } catch (const Error&) {
    // Each config's own resolve below reports (or skips) what failed here.
  }
}

// One timed run of a config whose tuning has Python hooks, in Autotuner._bench's order: the
// config's pre_hook, the autotuner's pre_hook (or reset_to_zero and the restore_value copies),
// the launch, the post_hook (or the restore), which also runs, with the error, when the launch
// fails.
std::function<void()> timed_call_with_hooks(const AutotuneConfigInfo& config, const AutotuneInfo& info,
                                            const HookArgs& hooks, std::function<void()> launch,
                                            const std::vector<Range>& zero, const RestoreSet& restore,
                                            CUstream stream) {
  return [&config, &info, &hooks, launch = std::move(launch), &zero, &restore, stream] {
    if (config.has_pre_hook) hooks.run(bridge::AutotuneHook::ConfigPreHook, stream);
    if (info.has_pre_hook) {
      hooks.run(bridge::AutotuneHook::PreHook, stream);
    } else {
      zero_all_async(stream, zero);
      if (!restore.empty()) restore.save(stream);
    }
    try {
      launch();
    } catch (const std::exception& e) {
      try {
        const std::string message = e.what();
        if (info.has_post_hook) {
          hooks.run(bridge::AutotuneHook::PostHook, stream, false, &message);
        } else if (!restore.empty()) {
          restore.restore(stream);
        }
      } catch (...) {  // the launch's error is the one to report
      }
      throw;
    }
    if (info.has_post_hook) {
      hooks.run(bridge::AutotuneHook::PostHook, stream);
    } else if (!restore.empty()) {
      restore.restore(stream);
    }
  };
}

// Keeps the choice in memory and in the index; returns the one kept.
uint32_t remember(FunctionState& fn, const AutotuneRuntime& tuner, const uint64_t* words, uint32_t num_words,
                  uint32_t config, const std::string& key, const std::string& device, const std::string& table) {
  const uint32_t chosen = tuner.insert(words, num_words, config);
  BinaryWriter k, v;
  k.u32(num_words);
  for (uint32_t i = 0; i < num_words; ++i) k.u64(words[i]);
  v.u32(chosen);
  v.str(key);
  v.str(table);
  if (!device.empty()) {
    KernelIndex::instance().store_table_entry(fn.path, fn.name, bridge::python_environment(), tuner.table_name(device),
                                              k.bytes(), v.bytes());
  }
  if (log_enabled(LogLevel::Info)) {
    log_line("autotuned " + fn.signature.function + " for key " + key + (device.empty() ? "" : " on " + device) +
             ": chose [" + std::to_string(chosen) + "] " + tuner.info().configs[chosen].repr + table);
  }
  return chosen;
}

// What Triton's own autotuner recorded for this key (cache_results=True), where Python can tell.
std::optional<size_t> tritons_cached_choice(FunctionState& fn, const AutotuneRuntime& tuner, const std::string& key,
                                            const Target& target) {
  if (offline() || fn.source_sha256.empty()) return std::nullopt;
  try {
    return bridge::autotune_cache_lookup(fn.python_wrapper(), tuner.layer(), key, target);
  } catch (const Error& e) {
    log_line(std::string("warning: could not read Triton's autotuning cache: ") + e.what());
    return std::nullopt;
  }
}

// The TuningResult of a choice made without timing: stored, or named by a pack manifest.
TuningResult untimed_result(const AutotuneRuntime& tuner, const std::string& key, const std::string& device,
                            uint32_t chosen) {
  TuningResult result;
  result.layer = tuner.layer();
  result.key = key;
  result.device = device;
  result.chosen = chosen;
  result.chosen_config = tuner.info().configs[chosen].repr;
  result.from_index = true;
  return result;
}

// A choice made before: stored in the index for this device, else named for this key by a pack
// manifest (any device). Kept as the last tuning.
std::optional<uint32_t> earlier_choice(FunctionState& fn, const AutotuneRuntime& tuner, const std::string& key,
                                       const std::string& device, const uint64_t* words, uint32_t num_words) {
  if (!device.empty()) {
    tuner.load_stored(fn, device);
    if (const uint32_t* known = tuner.find(words, num_words)) {
      tuner.set_last_tuning(untimed_result(tuner, key, device, *known));
      return *known;
    }
  }
  // A choice a pack manifest named for this key (any device).
  if (const std::optional<uint32_t> named = tuner.named_choice(fn, key)) {
    const uint32_t chosen = tuner.insert(words, num_words, *named);
    tuner.set_last_tuning(untimed_result(tuner, key, device, chosen));
    return chosen;
  }
  return std::nullopt;
}

// Where no config may be timed: a call that only describes (specialize, compile), and a stream
// being captured into a CUDA graph.
void refuse_timing_here(const FunctionState& fn, const AutotuneInfo& info, const std::string& key,
                        const std::string& device, CallMode mode, CUstream stream) {
  const std::string& function = fn.signature.function;
  if (mode == CallMode::Describe) {
    throw ArgumentError(function + " is autotuned over " + std::to_string(info.configs.size()) +
                            " configs and has no tuning result for key " + key +
                            (device.empty() ? std::string() : " on " + device) +
                            ": prepare() it or launch it once on the GPU (either tunes it), or run `triton-jit tune "
                            "--store`, or name the config in a pack manifest",
                        function, "");
  }
  if (cuda::stream_is_capturing(stream)) {
    throw MissingKernelError(function + " needs autotuning for key " + key +
                                 ", which cannot run while the stream is captured into a CUDA graph: prepare() it "
                                 "before capturing (triton_jit::prepare({triton_jit::request(fn, config, args...)}) "
                                 "tunes it and stores the choice), or launch it once with these arguments first",
                             function, key, "");
  }
}

// prune_configs_by: Triton's own pruning, through Python, on the caller's arguments. Returns
// Triton's order of the kept configs (ties go to the first); `pruned` marks the others.
std::vector<size_t> kept_configs(FunctionState& fn, const AutotuneRuntime& tuner, const ArgValue* full,
                                 size_t num_caller_args, const std::string& key, std::vector<bool>* pruned) {
  const AutotuneInfo& info = tuner.info();
  const std::string& function = fn.signature.function;
  pruned->assign(info.configs.size(), false);
  std::vector<size_t> order(info.configs.size());
  for (size_t c = 0; c < order.size(); ++c) order[c] = c;
  if (info.has_perf_model || info.has_early_config_prune) {
    if (offline() || fn.source_sha256.empty()) {
      throw MissingKernelError(function +
                                   ": autotune's prune_configs_by needs Python, which cannot run here, and "
                                   "tuning key " +
                                   key + " has no stored result",
                               function, key, "");
    }
    std::fill(pruned->begin(), pruned->end(), true);
    order = bridge::prune_autotune_configs(fn.python_wrapper(), tuner.layer(), fn.signature, full, num_caller_args);
    for (size_t c : order) {
      if (c < pruned->size()) (*pruned)[c] = false;
    }
  }
  return order;
}

// Each config's complete call: the caller's arguments with the config applied, then the inner
// layers and the grid function.
std::vector<Candidate> candidates_of(FunctionState& fn, const DecoratedCall& call, const AutotuneRuntime& tuner,
                                     const ArgValue* full, size_t num_caller_args, const LaunchConfig& out,
                                     const LaunchConfig& user, CallMode mode, const std::vector<bool>& pruned) {
  const AutotuneInfo& info = tuner.info();
  const size_t n = fn.signature.params.size();
  std::vector<Candidate> candidates(info.configs.size());
  for (size_t c = 0; c < candidates.size(); ++c) {
    Candidate& cand = candidates[c];
    const AutotuneConfigInfo& config = info.configs[c];
    cand.args.assign(full, full + n);
    if (pruned[c]) {
      cand.failure = "pruned by prune_configs_by";
      continue;
    }
    copy_launch_options(out, &cand.config);
    apply_config(config, cand.args.data(), &cand.config);
    // A config pre_hook may set the block shape of the call's tensor descriptors (FlagGems'
    // host-TMA mm), which decides the config's key: it runs before the kernel is compiled and timed.
    if (config.has_pre_hook && has_descriptor_args(cand.args.data(), n)) {
      run_config_pre_hook(fn, tuner, static_cast<uint32_t>(c), cand.args.data(), num_caller_args, cand.config.grid,
                          cand.config.stream);
    }
    call.apply_layers(fn, tuner.layer() + 1, cand.args.data(), num_caller_args, &cand.config, user,
                      mode == CallMode::Launch ? CallMode::Prepare : mode);
    apply_grid_fn(fn.signature, user, cand.args.data(), &cand.config);
  }
  return candidates;
}

// Every kept config's kernel, ready before timing; one that does not compile is skipped, with why.
void compile_candidates(FunctionState& fn, std::vector<Candidate>& candidates, const Target& target,
                        const std::string& key, const std::string& device) {
  const std::string& function = fn.signature.function;
  const size_t n = fn.signature.params.size();
  compile_in_parallel(fn, candidates, target);
  for (Candidate& cand : candidates) {
    if (!cand.failure.empty()) continue;  // pruned
    try {
      resolve_call(fn, cand.config, ArgSpan{cand.args.data(), n}, target);
    } catch (const CompileError& e) {
      cand.failure = std::string("does not compile: ") + e.what();
    } catch (const MissingKernelError& e) {
      // Nothing may compile here (no Python, offline): say how a deployment gets the choice.
      const std::string source = fn.module.empty() ? fn.path : bridge::module_source(fn.module);
      throw MissingKernelError(
          function + " has no tuning result for key " + key + (device.empty() ? std::string() : " on " + device) +
              ", and timing its configs needs their kernels: " + e.what() +
              "\nOr name the chosen config in the pack manifest, with the chosen kernel's line: " + source + ":" +
              fn.name + " autotune key=" + key + " config=INDEX",
          function, e.key(), e.manifest_line());
    }
  }
}

// The hooks' argument dicts, one per config that compiled, as Triton builds them (through Python);
// none when the tuning has no hooks.
std::vector<HookArgs> hook_args_of(FunctionState& fn, const AutotuneRuntime& tuner,
                                   const std::vector<Candidate>& candidates, size_t num_caller_args) {
  std::vector<HookArgs> hook_args(candidates.size());
  for (uint32_t c = 0; has_hooks(tuner.info()) && c < candidates.size(); ++c) {
    if (candidates[c].failure.empty())
      hook_args[c] = HookArgs(fn, tuner, c, candidates[c].args.data(), num_caller_args, candidates[c].config.grid);
  }
  return hook_args;
}

// Times config `c` (one that compiled), launching it as a plain call does, on the caller's stream.
void time_candidate(FunctionState& fn, const AutotuneRuntime& tuner, Candidate& cand, uint32_t c,
                    const HookArgs& hooks, const std::vector<Range>& zero,
                    const std::shared_ptr<const RestoreSet>& restore_set, CUstream stream) {
  const AutotuneInfo& info = tuner.info();
  const size_t n = fn.signature.params.size();
  const auto launch = [&] { launch_call(fn, cand.config, ArgSpan{cand.args.data(), n}); };
  const std::function<void()> run = has_hooks(info)
                                        ? timed_call_with_hooks(info.configs[c], info, hooks, launch, zero,
                                                                *restore_set, stream)
                                        : wrap_for_tuning(launch, zero, restore_set, stream);
  try {
    const BenchmarkResult r = benchmark(stream, run, BenchmarkOptions{info.warmup_ms, info.rep_ms});
    cand.median_ms = r.median_ms;
    cand.p20_ms = r.p20_ms;
    cand.p80_ms = r.p80_ms;
  } catch (const LaunchConfigError& e) {
    cand.failure = std::string("cannot launch on this device (skipped, as Triton prunes it): ") + e.what();
  }
}

// Triton takes the first config (in its order of the kept ones) of least (median, p20, p80).
// None when no config ran.
std::optional<uint32_t> fastest(const std::vector<Candidate>& candidates, const std::vector<size_t>& order) {
  uint32_t best = 0;
  bool any = false;
  for (size_t index : order) {
    if (index >= candidates.size()) continue;
    const uint32_t c = static_cast<uint32_t>(index);
    const Candidate& a = candidates[c];
    if (!a.failure.empty()) continue;
    const Candidate& b = candidates[best];
    if (!any || std::tie(a.median_ms, a.p20_ms, a.p80_ms) < std::tie(b.median_ms, b.p20_ms, b.p80_ms)) best = c;
    any = true;
  }
  if (!any) return std::nullopt;
  return best;
}

// A line per config, its median or why it was skipped: for the log, the index and errors.
std::string timings_table(const AutotuneInfo& info, const std::vector<Candidate>& candidates) {
  std::string table;
  for (size_t c = 0; c < candidates.size(); ++c) {
    table += "\n  [" + std::to_string(c) + "] " + info.configs[c].repr + ": " +
             (candidates[c].failure.empty() ? format_ms(candidates[c].median_ms) + " ms" : candidates[c].failure);
  }
  return table;
}

// Triton's autotuning cache (cache_results=True), written as Triton records it: the timed configs
// only; one that failed, as infinitely slow.
void store_in_tritons_cache(FunctionState& fn, const AutotuneRuntime& tuner, const std::string& key,
                            const Target& target, const std::vector<Candidate>& candidates,
                            const std::vector<bool>& pruned) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<std::array<double, 3>> timings;
  for (size_t c = 0; c < candidates.size(); ++c) {
    const Candidate& cand = candidates[c];
    if (pruned[c]) {
      timings.push_back({-1, -1, -1});
    } else if (!cand.failure.empty()) {
      timings.push_back({kInf, kInf, kInf});
    } else {
      timings.push_back({cand.median_ms, cand.p20_ms, cand.p80_ms});
    }
  }
  try {
    bridge::autotune_cache_store(fn.python_wrapper(), tuner.layer(), key, target, timings);
  } catch (const Error& e) {
    log_line(std::string("warning: could not write Triton's autotuning cache: ") + e.what());
  }
}

// The TuningResult of a timed choice: every config's timing, or why it was skipped.
TuningResult timed_result(const AutotuneRuntime& tuner, const std::string& key, const std::string& device,
                          uint32_t chosen, const std::vector<Candidate>& candidates) {
  const AutotuneInfo& info = tuner.info();
  TuningResult result;
  result.layer = tuner.layer();
  result.key = key;
  result.device = device;
  result.chosen = chosen;
  result.chosen_config = info.configs[chosen].repr;
  result.rows.reserve(candidates.size());
  for (size_t c = 0; c < candidates.size(); ++c) {
    const Candidate& cand = candidates[c];
    TuningRow row;
    row.config = info.configs[c].repr;
    row.failure = cand.failure;
    if (cand.failure.empty()) {
      row.median_ms = cand.median_ms;
      row.p20_ms = cand.p20_ms;
      row.p80_ms = cand.p80_ms;
    }
    result.rows.push_back(std::move(row));
  }
  return result;
}

}  // namespace

uint32_t tune(FunctionState& fn, const DecoratedCall& call, const AutotuneRuntime& tuner, const ArgValue* full,
              size_t num_caller_args, const LaunchConfig& out, const LaunchConfig& user, CallMode mode,
              const uint64_t* words, uint32_t num_words, const ConfigChooser* chooser) {
  const AutotuneInfo& info = tuner.info();
  const std::string& function = fn.signature.function;
  std::lock_guard<std::mutex> lock(tuner.tune_mutex());  // one tuning per key at a time
  if (const uint32_t* known = tuner.find(words, num_words)) return *known;

  const bool have_device = mode != CallMode::Describe || cuda::driver_available();
  const int ordinal = have_device ? cuda::current_device().info->ordinal : -1;
  const std::string device = ordinal >= 0 ? cuda::device_name_of(ordinal) : "";
  const std::string key = tuner.key_repr(full, num_caller_args);
  if (const std::optional<uint32_t> earlier = earlier_choice(fn, tuner, key, device, words, num_words)) {
    return *earlier;
  }
  const Target target = Resolver::default_target();
  bool config_hooks = false;
  for (const AutotuneConfigInfo& c : info.configs) config_hooks |= c.has_pre_hook;
  // Triton's autotuning cache gives up on configs with a pre_hook (it cannot serialize them).
  const bool tritons_cache = info.cache_results && !config_hooks;
  if (tritons_cache) {
    if (const auto cached = tritons_cached_choice(fn, tuner, key, target)) {
      return remember(fn, tuner, words, num_words, static_cast<uint32_t>(*cached), key, device,
                      "\n  (from Triton's autotuning cache)");
    }
  }
  refuse_timing_here(fn, info, key, device, mode, out.stream);
  std::vector<bool> pruned;
  const std::vector<size_t> order = kept_configs(fn, tuner, full, num_caller_args, key, &pruned);
  // A user pre_hook replaces Triton's reset_to_zero/restore_value pre_hook (so nothing is saved to
  // restore), a user post_hook its restoring post_hook.
  const auto zero = info.has_pre_hook ? std::vector<Range>{}
                                      : buffers_of(fn, info.reset_to_zero, full, "reset_to_zero");
  const auto restore = info.has_pre_hook || info.has_post_hook
                           ? std::vector<Range>{}
                           : buffers_of(fn, info.restore_value, full, "restore_value");

  std::vector<Candidate> candidates =
      candidates_of(fn, call, tuner, full, num_caller_args, out, user, mode, pruned);
  compile_candidates(fn, candidates, target, key, device);
  const auto restore_set = std::make_shared<const RestoreSet>(restore);
  const std::vector<HookArgs> hook_args = hook_args_of(fn, tuner, candidates, num_caller_args);
  std::optional<uint32_t> best;
  if (chooser == nullptr) {
    for (uint32_t c = 0; c < candidates.size(); ++c) {
      if (candidates[c].failure.empty())
        time_candidate(fn, tuner, candidates[c], c, hook_args[c], zero, restore_set, out.stream);
    }
    best = fastest(candidates, order);
  } else {
    // The tuner's own policy times what it asks for, each config once; one that cannot run is
    // infinitely slow to it, as Autotuner._bench reports it.
    std::vector<bool> timed(candidates.size(), false);
    const std::function<std::array<double, 3>(uint32_t)> time = [&](uint32_t c) -> std::array<double, 3> {
      Candidate& cand = candidates.at(c);
      if (cand.failure.empty() && !timed[c]) {
        time_candidate(fn, tuner, cand, c, hook_args[c], zero, restore_set, out.stream);
        timed[c] = true;
      }
      if (!cand.failure.empty()) {
        constexpr double kInf = std::numeric_limits<double>::infinity();
        return {kInf, kInf, kInf};
      }
      return {cand.median_ms, cand.p20_ms, cand.p80_ms};
    };
    best = (*chooser)(order, time);
    if (!candidates.at(*best).failure.empty()) best.reset();  // it cannot run
    for (uint32_t c = 0; c < candidates.size(); ++c) {
      if (candidates[c].failure.empty() && !timed[c]) {
        candidates[c].failure = "not timed here (the policy did not ask, or had its timing stored)";
      }
    }
  }
  const std::string table = timings_table(info, candidates);
  if (!best) {
    throw ArgumentError(function + ": no autotune config could run for key " + key + ":" + table, function, "");
  }
  // As Triton's pre_hook(reset_only=True) after tuning, with the chosen config's arguments.
  if (info.has_pre_hook) {
    hook_args[*best].run(bridge::AutotuneHook::PreHook, out.stream, /*reset_only=*/true);
  } else {
    zero_all_async(out.stream, zero);
  }
  if (tritons_cache && chooser == nullptr) store_in_tritons_cache(fn, tuner, key, target, candidates, pruned);
  fn.tunings.fetch_add(1, std::memory_order_relaxed);
  const uint32_t chosen = remember(fn, tuner, words, num_words, *best, key, device, table);
  tuner.set_last_tuning(timed_result(tuner, key, device, chosen, candidates));
  return chosen;
}

}  // namespace triton_jit::detail

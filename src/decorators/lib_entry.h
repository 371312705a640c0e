#pragma once
// FlagGems' @libentry() (flag_gems.utils.libentry.LibEntry of FlagGems 5.0.2, the bridge's
// FLAGGEMS_VERSION) as its run() behaves, in C++. LibEntry is the outermost wrapper; on a call it
//  - keys a dispatch table per device by the caller's arguments: a specialized argument by
//    (type, value), a tensor by (dtype, data_ptr() % 16 == 0); a do_not_specialize integer only by
//    its class (i32, u64, i64), a tensor by its dtype; a constexpr by its value (given or default);
//  - on a key's first call runs the wrappers below it (autotune, heuristics) and freezes what they
//    chose: the constexprs the kernel was built with, num_warps/num_stages/num_ctas, the chosen
//    configs' pre_hooks;
//  - on a later call runs no tuner and no heuristic: the frozen kernel with the call's arguments,
//    the grid function on the arguments and frozen constexprs, the frozen pre_hooks first.
// So a value that a heuristic or tuning key reads but LibEntry does not key by (a
// do_not_specialize integer, exponential_'s N) keeps the choice of the key's first call.
//
// The table is read without a lock; frozen choices are stored in the index (and so in packs), so
// a process without Python serves every key an earlier process froze.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "decorators/decorated_call.h"
#include "decorators/snapshot_map.h"
#include "key/flaggems_version.h"
#include "launch/call_mode.h"
#include "triton_jit/arg.h"
#include "triton_jit/decorators.h"
#include "triton_jit/launch_config.h"

namespace triton_jit::detail {

struct FunctionState;

// What the first call of one key chose, as LibEntry keeps it in kernel_cache[device][key].
struct FrozenChoice {
  // The constexprs (and anything a wrapper set) the kernel was built with: (parameter, value).
  std::vector<std::pair<uint32_t, DefaultValue>> values;
  std::vector<std::pair<uint32_t, ArgValue>> args;  // the same, viewing `values`
  int num_warps = kDefaultNumWarps;
  int num_stages = kDefaultNumStages;
  int num_ctas = kDefaultNumCtas;
  CompileOptions options;  // the compile options of the first call (a config's maxnreg, say)
  // The chosen configs that have a pre_hook: (autotune layer, config), outermost first.
  std::vector<std::pair<uint32_t, uint32_t>> pre_hooks;
};

class LibEntryRuntime {
 public:
  LibEntryRuntime(const StaticSignature& signature, const LibEntryInfo& info, std::vector<uint32_t> caller_params);

  // Completes a call whose caller arguments (and defaults) are in `full`: a frozen choice, or the
  // layers below (`call.apply_layers(.., 1, ..)`) on a key's first call, then the grid function.
  void run(FunctionState& fn, const DecoratedCall& call, ArgValue* full, size_t num_caller_args, LaunchConfig* out,
           const LaunchConfig& user, CallMode mode) const;

  // LibEntry's key of a call on `device` (words[0]); 0 words when an argument has no key form.
  static constexpr uint32_t kMaxKeyWords = 1 + 2 * 64;
  uint32_t key_words(int device, const ArgValue* full, uint64_t* out) const noexcept;

  // The choice frozen for a key, if any (for tests and the hit path).
  const FrozenChoice* find(const uint64_t* words, uint32_t n) const noexcept;
  size_t num_frozen() const noexcept { return table_.size(); }

  // The index table of this function's frozen choices on `device_name`.
  std::string table_name(const std::string& device_name) const;

 private:
  const FrozenChoice* first_call(FunctionState& fn, const DecoratedCall& call, int device, ArgValue* full,
                                 size_t num_caller_args, LaunchConfig* out, const LaunchConfig& user, CallMode mode,
                                 const uint64_t* words, uint32_t n) const;
  void load_stored(FunctionState& fn, int device) const;
  void apply(const FrozenChoice& frozen, ArgValue* full, LaunchConfig* out) const noexcept;
  [[gnu::cold, gnu::noinline]] void run_pre_hooks(FunctionState& fn, const DecoratedCall& call,
                                                  const FrozenChoice& frozen, ArgValue* full,
                                                  size_t num_caller_args, const LaunchConfig& out) const;

  const StaticSignature* signature_;
  LibEntryInfo info_;
  std::vector<uint32_t> caller_params_;
  std::vector<uint32_t> frozen_params_;  // constexprs and every parameter a wrapper sets
  std::string digest_;                   // of the wrappers below: a table written for others is another
  mutable SnapshotMap<std::unique_ptr<FrozenChoice>> table_;
  mutable std::mutex loaded_mutex_;
  mutable std::vector<int> loaded_devices_;
};

// A frozen choice's bytes in the index, and back (throws FormatError).
std::string write_frozen_choice(const FrozenChoice& frozen);
std::unique_ptr<FrozenChoice> read_frozen_choice(const std::string& bytes, size_t num_params);

}  // namespace triton_jit::detail

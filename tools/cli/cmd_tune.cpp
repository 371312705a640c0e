// triton-jit tune: one launch on the GPU, which autotunes, then the table of what was timed.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "error_report.h"
#include "json_args.h"
#include "triton_jit/decorators.h"
#include "triton_jit/device.h"
#include "triton_jit/errors.h"
#include "triton_jit/index.h"
#include "triton_jit/jit_function.h"

namespace triton_jit_cli {
namespace {

using triton_jit::DecoratorLayer;
using triton_jit::TuningResult;
using triton_jit::TuningRow;

std::string ms(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", value);
  return buf;
}

std::string pad(std::string s, size_t width, bool right) {
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

void print_table(const TuningResult& r) {
  size_t width = std::string("config").size();
  for (const TuningRow& row : r.rows) width = std::max(width, row.config.size());
  constexpr size_t kNumber = 10;
  std::cout << pad("config", width, false) << "  " << pad("median ms", kNumber, true) << "  "
            << pad("p20 ms", kNumber, true) << "  " << pad("p80 ms", kNumber, true) << "  note\n";
  for (size_t c = 0; c < r.rows.size(); ++c) {
    const TuningRow& row = r.rows[c];
    const bool timed = row.failure.empty();
    std::string line = pad(row.config, width, false) + "  " + pad(timed ? ms(row.median_ms) : "-", kNumber, true) +
                       "  " + pad(timed ? ms(row.p20_ms) : "-", kNumber, true) + "  " +
                       pad(timed ? ms(row.p80_ms) : "-", kNumber, true);
    const std::string note = c == r.chosen ? "chosen" : timed ? "" : one_line(row.failure);
    if (!note.empty()) line += "  " + note;
    std::cout << line << '\n';
  }
}

}  // namespace

int run_tune(const Options& o) {
  // Read the arguments first: a malformed --args fails fast, without Python or a GPU.
  JsonArgs args(o.args_json, JsonArgs::Memory::Allocate);
  // Tune for real: without --store the index is off for this process, so no stored choice is
  // used and none is written.
  if (!o.store) {
    triton_jit::set_index_dir(std::string());
  } else if (triton_jit::index_dir().empty()) {
    throw triton_jit::Error("--store: the kernel index is off (TRITON_JIT_INDEX_DIR is empty), so the choice "
                            "could not be kept; set TRITON_JIT_INDEX_DIR or leave out --store");
  }
  const triton_jit::TritonJitFunction& fn = kernel_function(o);
  const std::string& function = fn.signature().function;
  size_t autotuners = 0, timed_autotuners = 0;
  for (const DecoratorLayer& layer : fn.signature().decorators) {
    if (!layer.tunes()) continue;
    ++autotuners;
    if (layer.autotune.configs.size() > 1) ++timed_autotuners;
  }
  if (autotuners == 0) {
    throw triton_jit::Error(function + " is not autotuned (no @triton.autotune wrapper): there is nothing to tune; "
                                       "`triton-jit specialize` prints the key a call uses");
  }
  if (timed_autotuners == 0) {
    throw triton_jit::Error(function +
                            "'s @triton.autotune has one config, which every call uses without timing (as in "
                            "Triton): there is nothing to tune");
  }

  std::string device;
  try {
    device = triton_jit::device_name();
    args.allocate();
  } catch (const triton_jit::NoDeviceError& e) {
    throw triton_jit::NoDeviceError("tune needs a GPU: " + one_line(e.what()), e.code());
  }

  triton_jit::LaunchConfig config;
  config.grid = triton_jit::Grid(o.grid[0], o.grid[1], o.grid[2]);
  fn.launch(config, args.span());  // a new key: every config compiled and timed, then the launch
  triton_jit::synchronize();

  const std::vector<TuningResult> results = fn.last_tuning();
  if (results.empty()) {
    throw triton_jit::Error(function + ": the launch ran without tuning (its choice was already known)");
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const TuningResult& r = results[i];
    if (i > 0) std::cout << '\n';
    std::cout << function;
    if (results.size() > 1 || autotuners > 1) std::cout << " (autotune layer " << r.layer << ")";
    std::cout << ": key " << r.key << " on " << (r.device.empty() ? device : r.device) << '\n';
    if (r.from_index) {
      std::cout << "chosen: [" << r.chosen << "] " << r.chosen_config
                << " (stored in the kernel index by an earlier tuning; nothing was timed: run without --store "
                   "to time the configs)\n";
      continue;
    }
    print_table(r);
  }
  const bool timed = std::any_of(results.begin(), results.end(), [](const TuningResult& r) { return !r.from_index; });
  if (o.store && timed) std::cout << "stored in the kernel index: " << triton_jit::index_dir() << '\n';
  return 0;
}

}  // namespace triton_jit_cli

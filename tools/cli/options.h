#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "triton_jit/jit_function.h"
#include "triton_jit/settings.h"

namespace triton_jit_cli {

enum class Command { Help, Version, Inspect, Specialize, Compile, Tune, Index, Pack };

// The command line, checked: every value here is well formed.
struct Options {
  Command command = Command::Help;
  std::string help_topic;  // Command::Help: the command whose help to print, empty for the overview
  bool verbose = false;

  // FILE.py:FN, or module:MODULE:FN (then `module` is set and `file` empty)
  std::string file;
  std::string module;
  std::string function;

  // inspect
  bool json = false;

  // specialize and tune
  std::string args_json;
  bool repr = false;

  // tune (and --args above)
  bool store = false;           // keep the choice in the kernel index
  int64_t grid[3] = {1, 1, 1};  // --grid X[,Y[,Z]]

  // specialize and compile
  int num_warps = 4;
  int num_stages = triton_jit::kTargetDefaultNumStages;  // no --num-stages: the target's default
  int num_ctas = 1;

  // compile
  std::string signature;
  triton_jit::Target target;
  std::string out_dir;
  std::vector<std::pair<std::string, std::string>> compile_options;  // --option KEY=VALUE, in order

  // index: the action (list, info, clear, prune) and, for info, the entry id
  std::string index_action;
  std::string index_entry_id;
  double older_than_days = -1;  // prune --older-than

  // pack
  std::string manifest;
  std::string out_file;
  int jobs = 0;        // 0: one per core
  bool quiet = false;  // no progress bar
};

// Parses argv; throws UsageError with a one-line reason.
Options parse_command_line(int argc, const char* const* argv);

// True when argv asks for --verbose anywhere (used to report errors of parsing itself).
bool wants_verbose(int argc, const char* const* argv);

// The function FILE.py:FN or module:MODULE:FN names (TritonJitFunction::get or get_module).
const triton_jit::TritonJitFunction& kernel_function(const Options& o);

// Help text: the overview for an empty topic, else the command's.
std::string help_text(const std::string& topic);

}  // namespace triton_jit_cli

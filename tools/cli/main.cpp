// triton-jit: inspect, specialize, compile and autotune @triton.jit kernels, manage the kernel
// index, build kernel packs.
#include <strings.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>

#include "commands.h"
#include "error_report.h"
#include "options.h"
#include "output_capture.h"
#include "triton_jit/settings.h"
#include "triton_jit/version.h"
#include "usage_error.h"

using namespace triton_jit_cli;

namespace {

int run(const Options& o) {
  // These compile one kernel in this process, or none: no compile pool, and so no fork server
  // booting beside them for nothing (the pool's server starts when a process first reads a kernel).
  if (o.command == Command::Inspect || o.command == Command::Specialize || o.command == Command::Compile ||
      o.command == Command::Cache) {
    triton_jit::set_compile_workers(0);
  }
  switch (o.command) {
    case Command::Help: std::cout << help_text(o.help_topic); return 0;
    case Command::Version: std::cout << "triton-jit " << TRITON_JIT_VERSION_STRING << '\n'; return 0;
    case Command::Inspect: return run_inspect(o);
    case Command::Specialize: return run_specialize(o);
    case Command::Compile: return run_compile(o);
    case Command::Tune: return run_tune(o);
    case Command::Cache: return run_cache(o);
    case Command::Pack: return run_pack(o);
  }
  return 0;
}

// TRITON_JIT_LOG=info or debug asks for the runtime's log on stderr, as things happen: then
// nothing is captured.
bool log_requested() {
  const char* env = std::getenv("TRITON_JIT_LOG");
  return env != nullptr && (::strcasecmp(env, "info") == 0 || ::strcasecmp(env, "debug") == 0);
}

// With -v, what compiling printed (ptxas, LLVM, Triton), after the tool's own report.
void show_captured(const std::optional<OutputCapture>& capture, bool verbose) {
  if (!verbose || !capture) return;
  const std::string text = capture->captured();
  if (text.empty()) return;
  std::cerr << "\n--- compiler output ---\n" << text << (text.back() == '\n' ? "" : "\n");
}

}  // namespace

int main(int argc, char** argv) {
  const bool verbose = wants_verbose(argc, argv);
  std::optional<OutputCapture> capture;
  if (!log_requested()) capture.emplace();
  int status = 1;
  try {
    status = run(parse_command_line(argc, argv));
  } catch (const UsageError& e) {
    report_error(e, false);
    return 2;
  } catch (const std::exception& e) {
    std::cout.flush();
    report_error(e, verbose);
    status = 1;
  } catch (...) {
    std::cerr << "triton-jit: error: unknown exception\n";
    status = 1;
  }
  show_captured(capture, verbose);
  return status;
}

// triton-jit: inspect, specialize, compile and autotune @triton.jit kernels, manage the kernel
// index, build kernel packs.
#include <strings.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
      o.command == Command::Index) {
    triton_jit::set_compile_workers(0);
  }
  switch (o.command) {
    case Command::Help: std::cout << help_text(o.help_topic); return 0;
    case Command::Version: std::cout << "triton-jit " << TRITON_JIT_VERSION_STRING << '\n'; return 0;
    case Command::Inspect: return run_inspect(o);
    case Command::Specialize: return run_specialize(o);
    case Command::Compile: return run_compile(o);
    case Command::Tune: return run_tune(o);
    case Command::Index: return run_index(o);
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

// What the runtime itself warns of (a damaged pack, an index it cannot write, an environment
// variable it ignored) starts so; it is captured with the compilers' output, but is the user's.
constexpr std::string_view kLibraryWarning = "[triton_jit] warning: ";

// Splits what was captured into the runtime's warnings (each once, without their prefix) and the
// rest, the compilers' output.
void split_captured(const std::string& text, std::vector<std::string>* warnings, std::string* rest) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    const std::string_view line(text.data() + start, end - start);
    if (line.substr(0, kLibraryWarning.size()) == kLibraryWarning) {
      std::string warning(line.substr(kLibraryWarning.size()));
      while (!warning.empty() && (warning.back() == '\n' || warning.back() == '\r')) warning.pop_back();
      if (std::find(warnings->begin(), warnings->end(), warning) == warnings->end()) warnings->push_back(warning);
    } else {
      rest->append(line);
    }
    start = end;
  }
}

// The runtime's warnings, always, before the tool's own error if any; with -v, what compiling
// printed (ptxas, LLVM, Triton) after it. Each part is shown once: the first call takes them.
class CapturedOutput {
 public:
  explicit CapturedOutput(const std::optional<OutputCapture>& capture) : capture_(capture) {}

  void show_warnings() {
    take();
    for (const std::string& w : warnings_) std::cerr << "triton-jit: warning: " << w << '\n';
    warnings_.clear();
    std::cerr.flush();
  }

  void show_compiler_output(bool verbose) {
    take();
    if (!verbose || compiler_output_.empty()) return;
    std::cerr << "\n--- compiler output ---\n" << compiler_output_ << (compiler_output_.back() == '\n' ? "" : "\n");
    compiler_output_.clear();
  }

 private:
  void take() {
    if (taken_ || !capture_) return;
    taken_ = true;
    split_captured(capture_->captured(), &warnings_, &compiler_output_);
  }

  const std::optional<OutputCapture>& capture_;
  bool taken_ = false;
  std::vector<std::string> warnings_;
  std::string compiler_output_;
};

}  // namespace

int main(int argc, char** argv) {
  const bool verbose = wants_verbose(argc, argv);
  std::optional<OutputCapture> capture;
  if (!log_requested()) capture.emplace();
  CapturedOutput captured(capture);
  int status = 1;
  try {
    status = run(parse_command_line(argc, argv));
    std::cout.flush();
    captured.show_warnings();
  } catch (const UsageError& e) {
    captured.show_warnings();
    report_error(e, false);
    return 2;
  } catch (const std::exception& e) {
    std::cout.flush();
    captured.show_warnings();
    report_error(e, verbose);
    status = 1;
  } catch (...) {
    captured.show_warnings();
    std::cerr << "triton-jit: error: unknown exception\n";
    status = 1;
  }
  captured.show_compiler_output(verbose);
  return status;
}

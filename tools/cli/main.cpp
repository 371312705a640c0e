// triton-jit: inspect, specialize, compile and autotune @triton.jit kernels, manage the kernel
// index, build kernel packs.
#include <exception>
#include <iostream>

#include "commands.h"
#include "error_report.h"
#include "options.h"
#include "triton_jit/version.h"
#include "usage_error.h"

using namespace triton_jit_cli;

int main(int argc, char** argv) {
  const bool verbose = wants_verbose(argc, argv);
  try {
    const Options o = parse_command_line(argc, argv);
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
  } catch (const UsageError& e) {
    report_error(e, false);
    return 2;
  } catch (const std::exception& e) {
    std::cout.flush();
    report_error(e, verbose);
    return 1;
  } catch (...) {
    std::cerr << "triton-jit: error: unknown exception\n";
    return 1;
  }
}

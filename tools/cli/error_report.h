#pragma once

#include <exception>
#include <string>

namespace triton_jit_cli {

// The one line reported for an error: the first non-empty line of its message.
std::string one_line(const std::string& message);

// one_line, completed for a Triton CompilationError whose first line ("... at 3:30:") says
// nothing by itself: its last line (the reason) is appended.
std::string summary(const std::exception& error);

// Prints "triton-jit: error: <one line>" on stderr; with `verbose`, the whole message and any
// Python traceback the error carries follow.
void report_error(const std::exception& error, bool verbose);

}  // namespace triton_jit_cli

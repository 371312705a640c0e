#include "error_report.h"

#include <iostream>

#include "triton_jit/errors.h"

namespace triton_jit_cli {
namespace {

std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

// The Python traceback an error of the runtime carries, if any.
std::string traceback_of(const std::exception& e) {
  if (auto* k = dynamic_cast<const triton_jit::KernelLookupError*>(&e)) return k->traceback();
  if (auto* c = dynamic_cast<const triton_jit::CompileError*>(&e)) return c->traceback();
  if (auto* p = dynamic_cast<const triton_jit::PythonError*>(&e)) return p->traceback();
  return {};
}

}  // namespace

std::string one_line(const std::string& message) {
  size_t start = 0;
  while (start < message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    std::string line = rtrim(message.substr(start, end - start));
    if (line.find_first_not_of(" \t") != std::string::npos) return line;
    start = end + 1;
  }
  return "unknown error";
}

std::string summary(const std::exception& error) {
  const std::string message = error.what();
  std::string line = one_line(message);
  // Triton's CompilationError reads "at 3:30:\n<source>\n    ^\nNameError(...)": the reason is last.
  if (dynamic_cast<const triton_jit::CompileError*>(&error) != nullptr && !line.empty() && line.back() == ':') {
    size_t end = message.find_last_not_of(" \t\r\n");
    size_t begin = message.rfind('\n', end);
    begin = begin == std::string::npos ? 0 : begin + 1;
    std::string last = message.substr(begin, end + 1 - begin);
    if (last != line) line += " " + last;
  }
  return line;
}

void report_error(const std::exception& error, bool verbose) {
  const std::string message = error.what();
  std::cerr << "triton-jit: error: " << summary(error) << '\n';
  if (!verbose) return;
  if (message.find('\n') != std::string::npos) std::cerr << '\n' << message << '\n';
  const std::string tb = traceback_of(error);
  if (!tb.empty() && message.find(tb) == std::string::npos) {
    std::cerr << '\n' << tb;
    if (tb.back() != '\n') std::cerr << '\n';
  }
}

}  // namespace triton_jit_cli

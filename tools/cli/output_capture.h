#pragma once

#include <memory>
#include <streambuf>
#include <string>

namespace triton_jit_cli {

// The tool promises its results on stdout and, on failure, one line on stderr. Compiling writes
// there too, from code it does not control: ptxas logs, LLVM warnings, the PTX Triton prints when
// ptxas fails, from Python, native libraries and child processes alike. So while the tool runs,
// file descriptors 1 and 2 point to a temporary file and std::cout and std::cerr write to the
// original stdout and stderr; what was captured is shown with -v. Later output (at exit) stays
// captured.
class OutputCapture {
 public:
  OutputCapture();  // captures nothing when no temporary file can be made
  ~OutputCapture();
  OutputCapture(const OutputCapture&) = delete;
  OutputCapture& operator=(const OutputCapture&) = delete;

  std::string captured() const;  // everything written to fd 1 and 2 so far
  void flush();                  // std::cout and std::cerr out to the terminal now

 private:
  class FdBuf;
  int saved_out_ = -1;
  int saved_err_ = -1;
  int file_ = -1;
  std::unique_ptr<FdBuf> out_buf_;
  std::unique_ptr<FdBuf> err_buf_;
  std::streambuf* old_out_ = nullptr;
  std::streambuf* old_err_ = nullptr;
};

// The descriptor of the tool's real stderr (for a progress bar), 2 when nothing is captured.
int terminal_stderr();

}  // namespace triton_jit_cli

#include "output_capture.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace triton_jit_cli {
namespace {
int g_terminal_stderr = STDERR_FILENO;
}

// A stream buffer that writes to a file descriptor.
class OutputCapture::FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  ~FdBuf() override { sync(); }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    const char* p = pbase();
    while (p < pptr()) {
      const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n <= 0) return -1;
      p += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return 0;
  }

 private:
  int fd_;
  char buffer_[4096];
};

OutputCapture::OutputCapture() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(stdout);
  std::fflush(stderr);
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/triton-jit-output.XXXXXX";
  file_ = ::mkostemp(path.data(), O_CLOEXEC);
  if (file_ < 0) return;
  ::unlink(path.c_str());
  saved_out_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  saved_err_ = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  if (saved_out_ < 0 || saved_err_ < 0 || ::dup2(file_, STDOUT_FILENO) < 0 || ::dup2(file_, STDERR_FILENO) < 0) {
    if (saved_out_ >= 0) ::dup2(saved_out_, STDOUT_FILENO);
    if (saved_err_ >= 0) ::dup2(saved_err_, STDERR_FILENO);
    return;
  }
  out_buf_ = std::make_unique<FdBuf>(saved_out_);
  err_buf_ = std::make_unique<FdBuf>(saved_err_);
  old_out_ = std::cout.rdbuf(out_buf_.get());
  old_err_ = std::cerr.rdbuf(err_buf_.get());
  g_terminal_stderr = saved_err_;
}

OutputCapture::~OutputCapture() {
  if (!out_buf_) return;
  flush();
  // The streams go back to fd 1 and 2, which stay captured: the buffers die here, and whatever
  // runs at exit (Python's finalization) must not reach the terminal either.
  std::cout.rdbuf(old_out_);
  std::cerr.rdbuf(old_err_);
}

void OutputCapture::flush() {
  std::cout.flush();
  std::cerr.flush();
}

std::string OutputCapture::captured() const {
  std::string text;
  if (file_ < 0) return text;
  std::fflush(stdout);
  std::fflush(stderr);
  char buf[1 << 16];
  off_t offset = 0;
  for (;;) {
    const ssize_t n = ::pread(file_, buf, sizeof buf, offset);
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    offset += n;
  }
  return text;
}

int terminal_stderr() { return g_terminal_stderr; }

}  // namespace triton_jit_cli

#include "resolve/progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace triton_jit::detail {

ProgressBar::ProgressBar(std::string label, size_t total, Progress mode, int fd)
    : label_(std::move(label)),
      total_(total),
      fd_(fd),
      enabled_(total > 0 && (mode == Progress::Always || (mode == Progress::Auto && ::isatty(fd)))) {
  if (enabled_) draw("");
}

ProgressBar::~ProgressBar() {
  if (enabled_) put("\n");
}

void ProgressBar::advance(const std::string& what) {
  ++done_;
  if (enabled_) draw(what);
}

void ProgressBar::draw(const std::string& what) {
  constexpr size_t kWidth = 24;
  const size_t filled = total_ ? done_ * kWidth / total_ : kWidth;
  std::string bar(filled, '#');
  bar.append(kWidth - filled, '-');
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // \033[K clears what a longer previous line left.
  char line[512];
  std::snprintf(line, sizeof line, "\r[triton_jit] %s [%s] %3zu/%zu  %.1f s  %s\033[K", label_.c_str(), bar.c_str(),
                done_, total_, seconds, what.substr(0, 40).c_str());
  put(line);
}

void ProgressBar::put(const std::string& text) {
  if (fd_ == STDERR_FILENO) std::fflush(stderr);  // after what the process wrote there before
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n <= 0) return;  // a bar is not worth an error
    done += static_cast<size_t>(n);
  }
}

}  // namespace triton_jit::detail

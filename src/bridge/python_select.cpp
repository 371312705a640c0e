#include "bridge/python_select.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>

#include "settings/settings.h"

#ifndef TRITON_JIT_BUILD_PYTHON
#define TRITON_JIT_BUILD_PYTHON ""
#endif

namespace triton_jit::bridge {
namespace {

namespace fs = std::filesystem;

// A path with a '/' made absolute (symlinks kept: a virtualenv's python links to its base);
// a bare name as given.
std::string absolute(const std::string& exe) {
  if (exe.find('/') == std::string::npos) return exe;
  std::error_code ec;
  const fs::path p = fs::absolute(exe, ec);
  return ec ? exe : p.lexically_normal().string();
}

bool executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  std::string dirs = path;
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = dirs.find(':', start);
    const std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (executable(candidate)) return absolute(candidate.string());
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

PythonChoice choose() {
  if (const char* env = std::getenv("TRITON_JIT_PYTHON"); env && *env) {
    // A bare name ("python3.11") is looked up on PATH, as a shell would.
    const std::string found = std::string(env).find('/') == std::string::npos ? find_on_path(env) : "";
    return {found.empty() ? absolute(env) : found, "TRITON_JIT_PYTHON"};
  }
  if (library_in_build_tree() && *TRITON_JIT_BUILD_PYTHON) {
    return {absolute(TRITON_JIT_BUILD_PYTHON), "the python this build was configured with"};
  }
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv && *venv) {
    for (const char* name : {"bin/python", "bin/python3"}) {
      const fs::path candidate = fs::path(venv) / name;
      if (executable(candidate)) return {absolute(candidate.string()), "the active virtualenv (VIRTUAL_ENV)"};
    }
  }
  if (std::string found = find_on_path("python3"); !found.empty()) return {found, "python3 on PATH"};
  return {"python3", "python3 on PATH (none found there)"};
}

}  // namespace

PythonChoice select_python() {
  PythonChoice choice = choose();
  if (detail::log_enabled(LogLevel::Debug)) {
    static std::mutex mutex;
    static std::string logged;
    std::lock_guard<std::mutex> lock(mutex);
    if (logged != choice.path) {
      logged = choice.path;
      detail::log_line("python: " + choice.path + " (from " + choice.origin + ")");
    }
  }
  return choice;
}

std::string python_executable() { return select_python().path; }

}  // namespace triton_jit::bridge

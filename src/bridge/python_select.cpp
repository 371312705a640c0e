#include "bridge/python_select.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <system_error>

#include "settings/settings.h"

extern char** environ;

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

// Whether `path` is a script ("#!"): a version manager's shim (pyenv's shims/python3) or a
// wrapper, not an interpreter whose installation lies around it.
bool is_script(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  char head[2] = {0, 0};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  const bool script = regular && ::read(fd, head, 2) == 2 && head[0] == '#' && head[1] == '!';
  ::close(fd);
  return script;
}

// The interpreter a script runs, as that interpreter names itself (sys.executable), or "" when
// it cannot say within a few seconds. Run with stdin and stderr closed to it: only the path comes back.
std::string interpreter_behind(const std::string& script) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  const char* argv[] = {script.c_str(), "-c", "import sys; sys.stdout.write(sys.executable)", nullptr};
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, script.c_str(), &actions, nullptr, const_cast<char* const*>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool done = spawned != 0;
  while (!done && text.size() < 4096) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                            std::chrono::steady_clock::now());
    pollfd p{out[0], POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[512];
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n <= 0) {
      done = true;
    } else {
      text.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(out[0]);
  if (spawned != 0) return "";
  if (!done) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!done || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty() || text[0] != '/') return "";
  return text;
}

// A script in place of a python resolved to the interpreter it runs, once per script: the
// bridge looks for the standard library and libpython around the interpreter, where a shim has
// none (pyenv's shims/python3 is a bash script).
PythonChoice resolve_script(PythonChoice choice) {
  if (!is_script(choice.path)) return choice;
  static std::mutex mutex;
  static std::map<std::string, std::string> resolved;
  std::string interpreter;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = resolved.find(choice.path);
    if (it == resolved.end()) it = resolved.emplace(choice.path, interpreter_behind(choice.path)).first;
    interpreter = it->second;
  }
  if (interpreter.empty()) return choice;  // the checks of the bridge say what is wrong with it
  return {interpreter, choice.origin + ", a script running " + interpreter};
}

}  // namespace

PythonChoice select_python() {
  PythonChoice choice = resolve_script(choose());
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

#pragma once
// Runs a command in a fresh process and reads the KEY=VALUE words it printed: how the store
// tests see what another process needed to launch (tests/cpu/store_test.cpp, tests/gpu/store_test.cpp).

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace test_support {

struct ChildRun {
  int status = -1;
  std::string output;  // stdout and stderr together
  std::map<std::string, std::string> fields;

  std::string operator[](const std::string& key) const {
    auto it = fields.find(key);
    return it == fields.end() ? "<missing>" : it->second;
  }
};

// `command` runs under /bin/sh; stderr is merged into the output.
inline ChildRun run_child(const std::string& command) {
  ChildRun r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
  r.status = WEXITSTATUS(::pclose(pipe));
  std::istringstream words(r.output);
  for (std::string w; words >> w;) {
    const size_t eq = w.find('=');
    if (eq != std::string::npos && eq > 0) r.fields.emplace(w.substr(0, eq), w.substr(eq + 1));
  }
  return r;
}

// A `triton` package that fails to import, in `dir`: first on PYTHONPATH, it makes any process
// that needs Triton fail, so a process that succeeds did not need it.
inline void write_unimportable_triton(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir / "triton");
  std::ofstream(dir / "triton" / "__init__.py")
      << "raise ImportError('triton is deliberately unavailable in this test')\n";
}

}  // namespace test_support

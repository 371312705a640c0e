#pragma once
// FlagGems 5.0.2's own Python (flag_gems/utils/libentry.py loaded without a GPU by
// tests/support/flaggems_stub.py) run from a C++ test, as the independent reference.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace flaggems_test {

inline std::string temp_dir() {
  char tmpl[] = "/tmp/tj-tuning-db-XXXXXX";
  const char* d = mkdtemp(tmpl);
  return d != nullptr ? d : "/tmp";
}

// Runs `script` in the test's Python with FlagGems' libentry loaded as `le` (env: FLAGGEMS_...
// set by the caller); returns its stdout, or "SKIP: why" when FlagGems cannot be loaded here.
inline std::string flaggems_python(const std::string& env, const std::string& script) {
  const std::string dir = temp_dir();
  const std::string file = dir + "/script.py";
  std::ofstream(file) << "import sys\nsys.path.insert(0, " << '"' << TRITON_JIT_TEST_SUPPORT_DIR << '"' << ")\n"
                      << "import flaggems_stub\nwhy = flaggems_stub.available()\n"
                      << "if why:\n    print('SKIP: ' + why)\n    sys.exit(0)\n"
                      << "import triton\nle = flaggems_stub.load()\n"
                      << script;
  // The python the runtime uses (TRITON_JIT_PYTHON: the version matrix's virtualenv), so that a
  // FlagGems its Triton cannot load skips here too.
  const char* python = std::getenv("TRITON_JIT_PYTHON");
  const std::string command = env + " " + (python != nullptr && *python ? python : TRITON_JIT_BUILD_PYTHON) + " " +
                              file + " 2>&1";
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    std::array<char, 4096> buf{};
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

#define SKIP_WITHOUT_FLAGGEMS(out) \
  if ((out).rfind("SKIP: ", 0) == 0) GTEST_SKIP() << (out).substr(6)

}  // namespace flaggems_test

#pragma once
// What every fuzz target asserts besides "no crash": a rejection carries a message, and a value
// the reader accepted survives writing it back. A failed check aborts, which libFuzzer reports
// as a crash with the input that caused it.
#include <cstdio>
#include <cstdlib>
#include <string>

namespace fuzz {

[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  std::abort();
}

inline void check(bool ok, const char* what) {
  if (!ok) fail(what);
}

// A rejection names what is wrong: an empty message is no clear error.
inline void check_message(const std::string& message) { check(!message.empty(), "a rejection with no message"); }

}  // namespace fuzz

#pragma once

#include <stdexcept>
#include <string>

namespace triton_jit_cli {

// A mistake on the command line (unknown command or option, bad value, malformed --args JSON).
// Reported as one line; the tool exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace triton_jit_cli

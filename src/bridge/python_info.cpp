// What the public settings.h tells of Python: answered by the bridge, which knows whether it is
// loaded and which Triton it imported.
#include <string>

#include "bridge/bridge.h"
#include "triton_jit/settings.h"

namespace triton_jit {

bool python_used() noexcept { return bridge::interpreter_used(); }

std::string triton_version() { return bridge::triton_version(); }

}  // namespace triton_jit

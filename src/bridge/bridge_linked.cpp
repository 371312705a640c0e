// Static builds (triton_jit_internal, which the tests link) hold the bridge's objects themselves:
// no library to open, no table. They are never installed, so the python defaults to the build's.
#include "bridge/python_select.h"

namespace triton_jit::bridge {

bool library_in_build_tree() { return true; }

}  // namespace triton_jit::bridge

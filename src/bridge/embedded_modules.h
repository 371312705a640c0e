#pragma once
// The Python bridge (the package triton_jit_bridge, src/bridge/python) as libtriton_jit_python
// carries it: one entry per module, generated at build time (cmake/embed_bridge.cmake). The
// embedded interpreter, the fork server and the compile workers import the package from this
// table through its own finder (triton_jit_bridge/_finder.py), so its files need not be found on
// disk and tracebacks name each module's file.
#include <cstddef>
#include <string>

namespace triton_jit::bridge {

struct EmbeddedModule {
  const char* name;    // e.g. "triton_jit_bridge.compiler"
  const char* path;    // its file name in tracebacks, e.g. "triton_jit_bridge/compiler.py"
  const char* source;  // the module's source
};

extern const EmbeddedModule kEmbeddedModules[];
extern const size_t kEmbeddedModuleCount;

// The table for a process that reads it from a pipe (the fork server): name, path and source of
// each module, each followed by a NUL (no module source holds one).
std::string serialized_module_table();

}  // namespace triton_jit::bridge

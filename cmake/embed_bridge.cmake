# Writes the table of the Python bridge's module sources (src/bridge/embedded_modules.h) that
# libtriton_jit_python carries, so that no path has to be found at run time. Run at build time by
# CMakeLists.txt whenever a module of the package changes (cmake -P, with PACKAGE_DIR: the folder
# of the package triton_jit_bridge, MODULES: its modules' names separated by commas, OUTPUT: the
# .cpp to write, HEADER: src/decorators/heuristic_program.h). The module _formats is generated
# rather than read: the versions of the formats the bridge writes, as the C++ side defines them.
string(REPLACE "," ";" _modules "${MODULES}")
set(_delimiter "tjbridge")
set(_entries "")
set(_count 0)
file(READ "${HEADER}" _header)
foreach(_constant kVersion kMaxStack)
  if(NOT _header MATCHES "static constexpr int ${_constant} = ([0-9]+);")
    message(FATAL_ERROR "${HEADER} defines no `static constexpr int ${_constant} = N;`: the bridge's _formats needs it")
  endif()
  set(_${_constant} "${CMAKE_MATCH_1}")
endforeach()
foreach(_module IN LISTS _modules)
  if(_module STREQUAL "_formats")
    set(_source "\"\"\"The versions of the formats this bridge writes for the C++ side, generated from
src/decorators/heuristic_program.h by cmake/embed_bridge.cmake (src/bridge/python/triton_jit_bridge/_formats.py
reads the header itself).\"\"\"

HEURISTIC_PROGRAM_VERSION = ${_kVersion}
HEURISTIC_MAX_STACK = ${_kMaxStack}
")
  else()
    file(READ "${PACKAGE_DIR}/${_module}.py" _source)
  endif()
  string(FIND "${_source}" ")${_delimiter}\"" _clash)
  if(NOT _clash EQUAL -1)
    message(FATAL_ERROR "${PACKAGE_DIR}/${_module}.py contains )${_delimiter}\", which ends the raw string that embeds it")
  endif()
  if(_module STREQUAL "__init__")
    set(_name "triton_jit_bridge")
  else()
    set(_name "triton_jit_bridge.${_module}")
  endif()
  string(APPEND _entries
         "    {\"${_name}\", \"triton_jit_bridge/${_module}.py\", R\"${_delimiter}(${_source})${_delimiter}\"},\n")
  math(EXPR _count "${_count} + 1")
endforeach()
file(WRITE "${OUTPUT}" "// Generated from src/bridge/python/triton_jit_bridge/*.py by cmake/embed_bridge.cmake; do not edit.
#include \"bridge/embedded_modules.h\"

namespace triton_jit::bridge {

const EmbeddedModule kEmbeddedModules[] = {
${_entries}};
const size_t kEmbeddedModuleCount = ${_count};

}  // namespace triton_jit::bridge
")

# Writes the table of the Python bridge's module sources (src/bridge/embedded_modules.h) that
# libtriton_jit_python carries, so that no path has to be found at run time. Run at build time by
# CMakeLists.txt whenever a module of the package changes (cmake -P, with PACKAGE_DIR: the folder
# of the package triton_jit_bridge, MODULES: its modules' names separated by commas, OUTPUT: the
# .cpp to write).
string(REPLACE "," ";" _modules "${MODULES}")
set(_delimiter "tjbridge")
set(_entries "")
set(_count 0)
foreach(_module IN LISTS _modules)
  file(READ "${PACKAGE_DIR}/${_module}.py" _source)
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

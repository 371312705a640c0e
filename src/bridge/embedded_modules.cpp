#include "bridge/embedded_modules.h"

#include <pybind11/pybind11.h>

#include <cstring>
#include <stdexcept>

#include "bridge/interpreter.h"

namespace py = pybind11;

namespace triton_jit::bridge {
namespace {

constexpr const char* kFinderModule = "triton_jit_bridge._finder";

const EmbeddedModule& finder_module() {
  for (size_t i = 0; i < kEmbeddedModuleCount; ++i) {
    if (std::strcmp(kEmbeddedModules[i].name, kFinderModule) == 0) return kEmbeddedModules[i];
  }
  // The generator embeds every file of the package, and _finder.py is one of them.
  throw std::logic_error("the embedded bridge has no module triton_jit_bridge._finder");
}

}  // namespace

py::list embedded_module_table() {
  py::list table;
  for (size_t i = 0; i < kEmbeddedModuleCount; ++i) {
    const EmbeddedModule& m = kEmbeddedModules[i];
    table.append(py::make_tuple(m.name, m.path, m.source));
  }
  return table;
}

std::string serialized_module_table() {
  std::string out;
  for (size_t i = 0; i < kEmbeddedModuleCount; ++i) {
    const EmbeddedModule& m = kEmbeddedModules[i];
    for (const char* part : {m.name, m.path, m.source}) {
      out += part;
      out += '\0';
    }
  }
  return out;
}

py::module_ import_embedded_bridge() {
  const EmbeddedModule& finder = finder_module();
  py::module_ builtins = py::module_::import("builtins");
  py::dict globals;
  globals["__name__"] = kFinderModule;
  globals["__builtins__"] = builtins;
  builtins.attr("exec")(builtins.attr("compile")(finder.source, finder.path, "exec"), globals);
  return globals["install"](embedded_module_table()).cast<py::module_>();
}

}  // namespace triton_jit::bridge

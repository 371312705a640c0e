// TritonJitFunction::get_module: from a module name to the file get() keys functions by, so that a
// module and its file give one object, and the index and packs serve both spellings.
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "bridge/bridge.h"
#include "function/registry.h"
#include "store/index_entries.h"
#include "store/pack.h"
#include "store/pack_registry.h"
#include "triton_jit/errors.h"
#include "triton_jit/settings.h"

namespace triton_jit {
namespace {

using detail::KernelIndex;
using detail::PackRegistry;

// Module -> canonical file, once resolved in this process: later calls read neither the index nor
// Python.
std::mutex g_modules_mutex;
std::map<std::string, std::string>& resolved_modules() {
  static auto* m = new std::map<std::string, std::string>();
  return *m;
}

std::optional<std::string> known_file(const std::string& module) {
  std::lock_guard<std::mutex> lock(g_modules_mutex);
  auto it = resolved_modules().find(module);
  if (it != resolved_modules().end()) return it->second;
  return std::nullopt;
}

void remember(const std::string& module, const std::string& file) {
  std::lock_guard<std::mutex> lock(g_modules_mutex);
  resolved_modules()[module] = file;
}

bool pack_holds(const std::string& module, const std::string& name) {
  return PackRegistry::instance().find_function(bridge::module_source(module), name, "").has_value();
}

}  // namespace

TritonJitFunction& TritonJitFunction::get_module(std::string_view module_name, std::string_view name_view) {
  const std::string module(module_name);
  const std::string name(name_view);
  const std::string source = bridge::module_source(module);
  if (module.empty()) {
    throw KernelLookupError("cannot get Triton function '" + name +
                                "': the module name is empty; name a module as module:MODULE:FUNCTION "
                                "(module:pkg.kernels:" +
                                name + ")",
                            source, name);
  }
  detail::load_environment_packs();
  if (auto file = known_file(module)) return detail::get_function(*file, name, module);
  const std::string environment = bridge::python_environment();
  // Recorded when Python last imported the module: a process without Python finds it here.
  if (auto file = KernelIndex::instance().load_module_file(module, environment)) {
    remember(module, *file);
    return detail::get_function(*file, name, module);
  }
  std::string no_python = "offline mode is on (TRITON_JIT_OFFLINE=1 or set_offline)";
  if (!offline()) {
    try {
      const std::string file = bridge::module_file(module, name);
      KernelIndex::instance().store_module_file(module, environment, file);
      remember(module, file);
      return detail::get_function(file, name, module);
    } catch (const PythonError& e) {
      // No usable Python or Triton here: a pack may still hold the function by module name.
      if (!pack_holds(module, name)) {
        throw KernelLookupError("cannot get Triton function '" + name + "' of the module " + module +
                                    ": Python cannot import it, and neither the kernel index nor a loaded pack "
                                    "knows the module: " +
                                    e.what(),
                                source, name, e.traceback());
      }
    }
  }
  // Without Python: a pack built from "module:NAME:FN" serves it (compiles impossible here).
  if (pack_holds(module, name)) return detail::get_function(source, name, module);
  throw KernelLookupError("cannot get Triton function '" + name + "' of the module " + module + ": " + no_python +
                              ", and neither the kernel index (it records the file of a module Python imported "
                              "once) nor a loaded pack holds it. Name its file with TritonJitFunction::get(path, "
                              "name), or pack it with the manifest line `" +
                              source + ":" + name + " SIGNATURE ...`",
                          source, name);
}

}  // namespace triton_jit

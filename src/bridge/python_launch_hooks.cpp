// Triton's launch hooks around the runtime's launches (bridge.h, "Triton's launch hooks"); the
// Python side, which watches the knobs and calls the hooks, is triton_jit_bridge/launch_hooks.py.
#include <pybind11/pybind11.h>

#include <cstdint>

#include "bridge/bridge.h"
#include "bridge/interpreter.h"
#include "triton_jit/errors.h"

namespace py = pybind11;

namespace triton_jit::bridge {

py::object heuristic_arg(py::module_& b, const ArgValue& a);  // bridge.cpp

namespace {

py::int_ address(const void* p) { return py::int_(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p))); }

[[noreturn]] void fail_hook(const char* which, const std::string& function, py::error_already_set& e) {
  PythonFailure f = describe(e);
  throw PythonError(std::string("Triton's ") + which + " (triton.knobs.runtime." + which + "), at a launch of " +
                        function + ", raised " + f.type + ": " + f.message,
                    f.traceback);
}

}  // namespace

PyHandle python_launch_enter(const PythonLaunch& launch) {
  GilGuard gil;
  py::module_& b = bridge();
  const std::string& function = launch.signature->function;
  py::object state;
  try {
    py::list names, values;
    for (size_t i = 0; i < launch.num_args && i < launch.signature->params.size(); ++i) {
      names.append(launch.signature->params[i].name);
      values.append(heuristic_arg(b, launch.args[i]));
    }
    py::tuple grid = py::make_tuple(launch.grid.x, launch.grid.y, launch.grid.z);
    py::handle fn = launch.function.object != nullptr ? py::handle(static_cast<PyObject*>(launch.function.object))
                                                       : py::handle(Py_None);
    state = b.attr("launch_enter")(fn, address(launch.kernel_id), *launch.metadata_json,
                                   py::str(launch.kernel_name.data(), launch.kernel_name.size()),
                                   address(launch.cu_function), address(launch.stream), grid, names, values);
  } catch (py::error_already_set& e) {
    fail_hook("launch_enter_hook", function, e);
  }
  if (state.is_none()) return PyHandle{};
  return PyHandle{state.release().ptr()};
}

void python_launch_exit(PyHandle state, const StaticSignature& signature) {
  GilGuard gil;
  py::object owned = py::reinterpret_steal<py::object>(static_cast<PyObject*>(state.object));
  try {
    bridge().attr("launch_exit")(owned);
  } catch (py::error_already_set& e) {
    fail_hook("launch_exit_hook", signature.function, e);
  }
}

}  // namespace triton_jit::bridge

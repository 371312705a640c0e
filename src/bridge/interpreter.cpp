#include "bridge/interpreter.h"

#include <pybind11/eval.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <string>
#include <thread>

#include "bridge/bridge.h"
#include "bridge/python_select.h"
#include "settings/launch_hooks.h"
#include "triton_jit/errors.h"
#include "triton_jit/index.h"

namespace py = pybind11;

namespace triton_jit::bridge {
namespace {

std::atomic<bool> g_used{false};
std::atomic<bool> g_starting_own{false};  // set before this runtime starts its own interpreter
std::atomic<pid_t> g_own_pid{0};          // the process that started it (not a forked child)
std::once_flag g_init_once;

void start_interpreter() {
  if (Py_IsInitialized()) return;  // the host program runs Python already: join it
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;  // SIGINT belongs to the host program
  config.parse_argv = 0;
  // The python whose packages (triton) the interpreter should see (python_select.h). Naming a
  // virtualenv's python makes its site-packages visible, as running that python would.
  std::string exe = python_executable();
  PyStatus status = PyStatus_Ok();
  g_starting_own.store(true);
  g_own_pid.store(::getpid());
  if (!exe.empty()) status = PyConfig_SetBytesString(&config, &config.program_name, exe.c_str());
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) {
    throw PythonError(std::string("could not start the embedded Python interpreter (python: ") +
                          (exe.empty() ? "default" : exe) + "): " + (status.err_msg ? status.err_msg : "unknown") +
                          ". Set TRITON_JIT_PYTHON to a python that has triton installed.",
                      "");
  }
  // Initialization leaves this thread holding the GIL; give it back so any thread can take it.
  PyEval_SaveThread();
}

}  // namespace

GilGuard::GilGuard() {
  std::call_once(g_init_once, start_interpreter);
  g_used.store(true, std::memory_order_relaxed);
  state_ = PyGILState_Ensure();
}

GilGuard::~GilGuard() { PyGILState_Release(state_); }

PythonFailure describe(py::error_already_set& e) {
  PythonFailure f;
  f.type = py::str(e.type().attr("__name__"));
  f.message = py::str(e.value());
  try {
    py::module_ tb = py::module_::import("traceback");
    // An exception raised before any frame ran (a failed import at the top) has no traceback:
    // None, which pybind11 cannot make of a null handle.
    py::object trace = e.trace() ? py::reinterpret_borrow<py::object>(e.trace()) : py::none();
    py::list lines = tb.attr("format_exception")(e.type(), e.value(), trace);
    for (auto line : lines) f.traceback += py::str(line).cast<std::string>();
  } catch (const std::exception&) {  // error_already_set, cast_error: the traceback is only a detail
    f.traceback = f.type + ": " + f.message;
  }
  return f;
}

namespace {

// Imports triton, then the bridge package triton_jit_bridge from the table embedded in this library.
// Needs the GIL.
py::module_ load_bridge() {
  py::module_ sys = py::module_::import("sys");
  try {
    py::module_::import("triton");
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw PythonError("the embedded Python (" + py::str(sys.attr("executable")).cast<std::string>() + ", version " +
                          py::str(sys.attr("version")).cast<std::string>().substr(0, 6) +
                          ") cannot import triton: " + f.type + ": " + f.message +
                          ". Install triton (3.4 or newer) there, or set TRITON_JIT_PYTHON to a python that has it.",
                      f.traceback);
  }
  py::module_ m;
  try {
    m = import_embedded_bridge();
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw PythonError("the triton_jit bridge failed to load: " + f.type + ": " + f.message, f.traceback);
  }
  std::atexit(stop_python_threads);
  try {
    // From now on the launch path knows, without asking Python, whether Triton's launch hooks are set.
    m.attr("install_launch_hook_observer")(
        py::cpp_function([](bool on) { detail::set_python_launch_hooks(on); }));
  } catch (py::error_already_set& e) {
    // Launches still run; only Triton's hooks would be missed, so say so.
    PythonFailure f = describe(e);
    std::fprintf(stderr, "[triton_jit] warning: Triton's launch hooks cannot be watched (%s: %s); launches will not "
                 "call them\n", f.type.c_str(), f.message.c_str());
  }
  try {
    m.attr("set_index_dir_for_triton_key")(index_dir());
  } catch (py::error_already_set&) {  // only a shortcut: Triton computes its key itself
  }
  return m;
}

}  // namespace

py::module_& bridge() {
  // Loaded once, leaked on purpose (it must not be destroyed after Python ends). Not a function's
  // static: the load runs Python, which releases the GIL now and then (imports, file reads), and a
  // second thread would then wait for the static's guard while holding the GIL the loading thread
  // needs back. The GIL guards these variables; a thread that finds the load under way gives the
  // GIL up while it waits.
  static py::module_* module = nullptr;
  static bool loading = false;
  static std::thread::id loader;
  while (module == nullptr) {
    if (!loading) {
      loading = true;
      loader = std::this_thread::get_id();
      struct Done {
        ~Done() { loading = false; }
      } done;
      module = new py::module_(load_bridge());
      break;
    }
    if (loader == std::this_thread::get_id()) {
      throw PythonError("the triton_jit bridge was used while it was still loading (from its own load)", "");
    }
    py::gil_scoped_release unlocked;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return *module;
}

void stop_python_threads() {
  static std::atomic<bool> stopped{false};
  if (stopped.exchange(true)) return;
  if (g_own_pid.load() != ::getpid() || !Py_IsInitialized() || PyGILState_Check()) return;
  // Whether the GIL is passed around at all: a thread that holds it without end (blocked in a C
  // call that keeps it) would hold this one up for good, and then Python is left as it is.
  static auto* passed = new std::promise<void>;  // leaked: the probe may outlive this call
  std::future<void> probe = passed->get_future();
  std::thread([] {
    const PyGILState_STATE state = PyGILState_Ensure();
    PyGILState_Release(state);
    passed->set_value();
  }).detach();
  if (probe.wait_for(std::chrono::seconds(3)) != std::future_status::ready) return;
  // Held by this thread, the exiting one, and never given back: later exit handlers that take
  // the GIL on this thread (torch's static destructors do) take it again at once.
  PyGILState_Ensure();
}

bool interpreter_used() noexcept { return g_used.load(std::memory_order_relaxed); }

bool interpreter_is_hosts() noexcept { return Py_IsInitialized() && !g_starting_own.load(); }

std::string python_environment() {
  if (interpreter_is_hosts()) {
    // The host runs Python: its own executable, read once. Lock order: the GIL, then the mutex
    // (a thread holding the GIL may be the one that reads it).
    static std::mutex mutex;
    static std::string host;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!host.empty()) return host;
    }
    GilGuard gil;
    std::lock_guard<std::mutex> lock(mutex);
    if (host.empty()) {
      try {
        host = py::str(py::module_::import("sys").attr("executable")).cast<std::string>();
      } catch (py::error_already_set&) {
      }
      if (host.empty()) host = "<host python>";
    }
    return host;
  }
  return python_executable();
}

}  // namespace triton_jit::bridge

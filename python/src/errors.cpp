#include "errors.h"

#include <nanobind/stl/string.h>

#include <string_view>

#include "triton_jit/errors.h"

namespace nb = nanobind;

namespace triton_jit::python {
namespace {

// The classes of triton_jit/errors.py, by the C++ type they stand for. Set once at import;
// leaked on purpose (they must not be released after the interpreter ends).
struct ErrorTypes {
  nb::object error, lookup, preload, argument, compile, python, cuda, no_device, architecture, launch_config, missing,
      pack;
};
ErrorTypes* g_types = nullptr;

void set_error_types(nb::dict types) {
  auto* t = new ErrorTypes;
  t->error = types["Error"];
  t->lookup = types["KernelLookupError"];
  t->preload = types["PreloadError"];
  t->argument = types["ArgumentError"];
  t->compile = types["CompileError"];
  t->python = types["PythonError"];
  t->cuda = types["CudaError"];
  t->no_device = types["NoDeviceError"];
  t->architecture = types["ArchitectureMismatchError"];
  t->launch_config = types["LaunchConfigError"];
  t->missing = types["MissingKernelError"];
  t->pack = types["PackError"];
  delete g_types;
  g_types = t;
}

// A Python exception that ended in Ctrl-C: its traceback's last line names KeyboardInterrupt.
bool interrupted(std::string_view python_type, std::string_view traceback) {
  if (python_type == "KeyboardInterrupt") return true;
  while (!traceback.empty() && traceback.back() == '\n') traceback.remove_suffix(1);
  const size_t line = traceback.rfind('\n');
  const std::string_view last = line == std::string_view::npos ? traceback : traceback.substr(line + 1);
  return last.rfind("KeyboardInterrupt", 0) == 0;
}

// Sets the Python error `cls(message)` with the attributes `fill` sets.
template <typename Fill>
void raise(const nb::object& cls, const char* message, Fill&& fill) {
  nb::object exc = cls(message);
  fill(exc);
  PyErr_SetObject(cls.ptr(), exc.ptr());
}

void translate(const std::exception_ptr& p, void*) {
  if (g_types == nullptr) std::rethrow_exception(p);  // before __init__ ran: nanobind's defaults
  const ErrorTypes& t = *g_types;
  try {
    std::rethrow_exception(p);
  } catch (const CompileError& e) {
    if (interrupted(e.python_type(), e.traceback())) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      return;
    }
    raise(t.compile, e.what(), [&](nb::object& x) {
      x.attr("function") = e.function();
      x.attr("signature") = e.signature();
      x.attr("key") = e.key();
      x.attr("file") = e.file();
      x.attr("line") = e.line();
      x.attr("python_type") = e.python_type();
      x.attr("traceback") = e.traceback();
    });
  } catch (const PreloadError& e) {
    raise(t.preload, e.what(), [&](nb::object& x) {
      x.attr("path") = e.path();
      x.attr("function") = e.function();
      x.attr("traceback") = e.traceback();
      x.attr("module") = e.module();
    });
  } catch (const KernelLookupError& e) {
    if (interrupted("", e.traceback())) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      return;
    }
    raise(t.lookup, e.what(), [&](nb::object& x) {
      x.attr("path") = e.path();
      x.attr("function") = e.function();
      x.attr("traceback") = e.traceback();
    });
  } catch (const ArgumentError& e) {
    raise(t.argument, e.what(), [&](nb::object& x) {
      x.attr("function") = e.function();
      x.attr("parameter") = e.parameter();
    });
  } catch (const PythonError& e) {
    if (interrupted("", e.traceback())) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      return;
    }
    raise(t.python, e.what(), [&](nb::object& x) { x.attr("traceback") = e.traceback(); });
  } catch (const NoDeviceError& e) {
    raise(t.no_device, e.what(), [&](nb::object& x) { x.attr("code") = e.code(); });
  } catch (const CudaError& e) {
    raise(t.cuda, e.what(), [&](nb::object& x) { x.attr("code") = e.code(); });
  } catch (const ArchitectureMismatchError& e) {
    raise(t.architecture, e.what(), [](nb::object&) {});
  } catch (const LaunchConfigError& e) {
    raise(t.launch_config, e.what(), [](nb::object&) {});
  } catch (const MissingKernelError& e) {
    raise(t.missing, e.what(), [&](nb::object& x) {
      x.attr("function") = e.function();
      x.attr("key") = e.key();
      x.attr("manifest_line") = e.manifest_line();
    });
  } catch (const PackError& e) {
    raise(t.pack, e.what(), [&](nb::object& x) { x.attr("path") = e.path(); });
  } catch (const Error& e) {
    raise(t.error, e.what(), [](nb::object&) {});
  }
  // Anything else propagates to nanobind's own translators.
}

}  // namespace

void set_python_error_from_current_exception() noexcept {
  try {
    throw;
  } catch (nb::python_error& e) {
    e.restore();
  } catch (...) {
    try {
      translate(std::current_exception(), nullptr);
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "triton_jit: unknown error");
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (...) {
      PyErr_SetString(PyExc_RuntimeError, "triton_jit: unknown C++ exception");
    }
  }
}

void register_errors(nb::module_& m) {
  nb::register_exception_translator(translate);
  m.def("_set_error_types", &set_error_types, "Hands the exception classes of triton_jit.errors to the extension.");
}

void throw_argument_error(const std::string& message, const std::string& function, const std::string& parameter) {
  throw ArgumentError(message, function, parameter);
}

}  // namespace triton_jit::python

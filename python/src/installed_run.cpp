#include "installed_run.h"

#include <structmember.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "errors.h"
#include "kernel.h"
#include "pyutil.h"

namespace nb = nanobind;

namespace triton_jit::python {

// kernel.cpp: the hook a launch that failed to convert calls (a launch inside jax.jit becomes an
// XLA custom call): a new reference, NotImplemented when it has nothing to do, or nullptr with
// its error set.
PyObject* call_deferred_hook(PyObject* kernel, PyObject* grid, PyObject* args, PyObject* kwargs);

namespace {

// Interned names the run compares keywords and reads attributes by.
PyObject *s_grid, *s_warmup, *s_stream, *s_device, *s_device_type, *s_entry, *s_version_ok, *s_knobs,
    *s_instrumentation, *s_async_active, *s_async_default, *s_async_var, *s_pre_run_hooks, *s_jit_cache_hook,
    *s_jit_post_compile_hook, *s_debug, *s_instrumentation_mode, *s_used_global_vals, *s_fallback_errors,
    *s_launch_failed, *s_resolve_launched, *s_installed_launcher, *s_run, *s_value, *s_fn, *s_semantic;

PyObject* new_ref(PyObject* o) {  // Py_NewRef, which Python 3.9 lacks
  Py_INCREF(o);
  return o;
}

PyObject* g_install_globals = nullptr;  // triton_jit._install's module dict: read at each call, as Python reads it

// ---- InstallEntry -------------------------------------------------------------------------------

struct EntryObject {
  PyObject_HEAD PyObject* kernel;  // the runtime's Kernel, or None when it refuses the function
  PyObject* launch;                // kernel._installed_launcher (or what replaced it), or None
  PyObject* refused;               // why the runtime refuses the function, or None
  PyObject* logged;                // the fallback reasons already logged (a set)
  char launched;                   // the function launched through the runtime once
  // The launcher the entry was made with: the C++ run launches itself only while `launch` is it
  // (a test, or the refusal of the function, puts something else there: the Python run then).
  PyObject* own_launch;
  PyObject* own_kernel_object;
  Kernel* own_kernel;
};

PyTypeObject* g_entry_type = nullptr;

PyObject* entry_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject *kernel, *refused;
  static const char* names[] = {"kernel", "refused", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO", const_cast<char**>(names), &kernel, &refused)) {
    return nullptr;
  }
  nb::object logged = nb::steal(PySet_New(nullptr));
  if (!logged.is_valid()) return nullptr;
  nb::object launch = nb::none();
  Kernel* own_kernel = nullptr;
  if (kernel != Py_None) {
    if (!nb::isinstance<Kernel>(kernel)) {
      PyErr_SetString(PyExc_TypeError, "InstallEntry(kernel, refused): kernel must be a triton_jit Kernel or None");
      return nullptr;
    }
    launch = nb::steal(PyObject_GetAttr(kernel, s_installed_launcher));
    if (!launch.is_valid()) return nullptr;
    own_kernel = nb::inst_ptr<Kernel>(kernel);
  }
  auto* e = reinterpret_cast<EntryObject*>(type->tp_alloc(type, 0));
  if (e == nullptr) return nullptr;
  e->kernel = new_ref(kernel);
  e->refused = new_ref(refused);
  e->logged = logged.release().ptr();
  e->launch = new_ref(launch.ptr());
  e->own_launch = own_kernel != nullptr ? new_ref(launch.ptr()) : nullptr;
  e->own_kernel_object = own_kernel != nullptr ? new_ref(kernel) : nullptr;
  e->own_kernel = own_kernel;
  e->launched = 0;
  return reinterpret_cast<PyObject*>(e);
}

int entry_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* e = reinterpret_cast<EntryObject*>(self);
  Py_VISIT(e->kernel);
  Py_VISIT(e->launch);
  Py_VISIT(e->refused);
  Py_VISIT(e->logged);
  Py_VISIT(e->own_launch);
  Py_VISIT(e->own_kernel_object);
  return 0;
}

int entry_clear(PyObject* self) {
  auto* e = reinterpret_cast<EntryObject*>(self);
  Py_CLEAR(e->kernel);
  Py_CLEAR(e->launch);
  Py_CLEAR(e->refused);
  Py_CLEAR(e->logged);
  Py_CLEAR(e->own_launch);
  Py_CLEAR(e->own_kernel_object);
  e->own_kernel = nullptr;
  return 0;
}

void entry_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  entry_clear(self);
  type->tp_free(self);
  Py_DECREF(type);
}

// A copy (copy, deepcopy, pickle) of a JITFunction gets no entry: the runtime's Kernel is made
// again for it at its first installed launch.
PyObject* entry_reduce(PyObject*, PyObject*) {
  return Py_BuildValue("(O())", reinterpret_cast<PyObject*>(Py_TYPE(Py_None)));
}

PyTypeObject* make_entry_type(nb::module_& m) {
  static PyMemberDef members[] = {{"kernel", T_OBJECT, offsetof(EntryObject, kernel), 0, nullptr},
                                  {"launch", T_OBJECT, offsetof(EntryObject, launch), 0, nullptr},
                                  {"refused", T_OBJECT, offsetof(EntryObject, refused), 0, nullptr},
                                  {"logged", T_OBJECT, offsetof(EntryObject, logged), 0, nullptr},
                                  {"launched", T_BOOL, offsetof(EntryObject, launched), 0, nullptr},
                                  {nullptr, 0, 0, 0, nullptr}};
  static PyMethodDef methods[] = {{"__reduce__", entry_reduce, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
  static PyType_Slot slots[] = {
      {Py_tp_new, reinterpret_cast<void*>(entry_new)},
      {Py_tp_dealloc, reinterpret_cast<void*>(entry_dealloc)},
      {Py_tp_traverse, reinterpret_cast<void*>(entry_traverse)},
      {Py_tp_clear, reinterpret_cast<void*>(entry_clear)},
      {Py_tp_members, members},
      {Py_tp_methods, methods},
      {Py_tp_doc, const_cast<char*>("What triton_jit.install()'s run keeps on one JITFunction: the runtime's Kernel "
                                    "(None when it refuses the function, with the reason), its launcher, whether it "
                                    "launched, the fallback reasons already logged.")},
      {0, nullptr}};
  static PyType_Spec spec = {"triton_jit._C.InstallEntry", sizeof(EntryObject), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, slots};
  return add_type(m, &spec);
}

// ---- LaunchedKernel -----------------------------------------------------------------------------

// One allocation per launch: the call's values are held inline (ob_size of them; 0 once resolved).
struct LaunchedObject {
  PyObject_VAR_HEAD PyObject* fn;
  PyObject* kwnames;  // the call's keyword names (grid and warmup among them: `skip`)
  Py_ssize_t nargs;   // positional arguments in `values`
  uint64_t skip;
  PyObject* compiled;   // Triton's CompiledKernel, once made
  PyObject* values[1];  // the call's positional arguments after fn, then its keyword values: see values_of
};

// The inline values, through a pointer: they run past the declared array (UBSan's bounds check
// would flag values[i] for i > 0).
PyObject** values_of(LaunchedObject* l) {
  return reinterpret_cast<PyObject**>(reinterpret_cast<char*>(l) + offsetof(LaunchedObject, values));
}

PyTypeObject* g_launched_type = nullptr;

PyObject* global(PyObject* name) {
  PyObject* v = PyDict_GetItemWithError(g_install_globals, name);  // borrowed
  if (v == nullptr && !PyErr_Occurred()) PyErr_Format(PyExc_RuntimeError, "triton_jit._install has no %U", name);
  return v;
}

// (args, kwargs) of the call the values hold, without grid= and warmup=.
bool call_of(PyObject* const* values, PyObject* kwnames, Py_ssize_t nargs, uint64_t skip, nb::object& args,
             nb::object& kwargs) {
  args = nb::steal(PyTuple_New(nargs));
  if (args.is_valid()) {
    for (Py_ssize_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(args.ptr(), i, new_ref(values[i]));
  }
  kwargs = nb::steal(PyDict_New());
  if (!args.is_valid() || !kwargs.is_valid()) return false;
  const Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    if (k < 64 && ((skip >> k) & 1) != 0) continue;
    if (PyDict_SetItem(kwargs.ptr(), PyTuple_GET_ITEM(kwnames, k), values[nargs + k]) != 0) {
      return false;
    }
  }
  return true;
}

void clear_values(LaunchedObject* l) {
  const Py_ssize_t n = Py_SIZE(l);
  Py_SET_SIZE(l, 0);
  PyObject** values = values_of(l);
  for (Py_ssize_t i = 0; i < n; ++i) Py_CLEAR(values[i]);
  Py_CLEAR(l->kwnames);
}

PyObject* launched_resolve(PyObject* self, PyObject* = nullptr) {
  auto* l = reinterpret_cast<LaunchedObject*>(self);
  if (l->compiled == nullptr) {
    nb::object args, kwargs;
    if (!call_of(values_of(l), l->kwnames, l->nargs, l->skip, args, kwargs)) return nullptr;
    PyObject* resolve = global(s_resolve_launched);
    if (resolve == nullptr) return nullptr;
    PyObject* compiled = PyObject_CallFunctionObjArgs(resolve, l->fn, args.ptr(), kwargs.ptr(), nullptr);
    if (compiled == nullptr) return nullptr;
    if (l->compiled == nullptr) {
      l->compiled = compiled;
      clear_values(l);  // the call's arguments are not kept once resolved
    } else {
      Py_DECREF(compiled);
    }
  }
  return new_ref(l->compiled);
}

PyObject* launched_getattro(PyObject* self, PyObject* name) {
  PyObject* r = PyObject_GenericGetAttr(self, name);
  if (r != nullptr || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
  PyErr_Clear();
  nb::object compiled = nb::steal(launched_resolve(self));
  if (!compiled.is_valid()) return nullptr;
  return PyObject_GetAttr(compiled.ptr(), name);
}

// compiled[grid](*args): FlagGems' LibEntry launches the kernel it kept this way.
PyObject* launched_subscript(PyObject* self, PyObject* key) {
  nb::object compiled = nb::steal(launched_resolve(self));
  if (!compiled.is_valid()) return nullptr;
  return PyObject_GetItem(compiled.ptr(), key);
}

PyObject* launched_repr(PyObject* self) {
  nb::object compiled = nb::steal(launched_resolve(self));
  if (!compiled.is_valid()) return nullptr;
  return PyObject_Repr(compiled.ptr());
}

int launched_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* l = reinterpret_cast<LaunchedObject*>(self);
  Py_VISIT(l->fn);
  PyObject** values = values_of(l);
  for (Py_ssize_t i = 0; i < Py_SIZE(l); ++i) Py_VISIT(values[i]);
  Py_VISIT(l->kwnames);
  Py_VISIT(l->compiled);
  return 0;
}

int launched_clear(PyObject* self) {
  auto* l = reinterpret_cast<LaunchedObject*>(self);
  Py_CLEAR(l->fn);
  clear_values(l);
  Py_CLEAR(l->compiled);
  return 0;
}

void launched_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  launched_clear(self);
  PyObject_GC_Del(self);
  Py_DECREF(type);
}

PyTypeObject* make_launched_type(nb::module_& m) {
  static PyMethodDef methods[] = {{"_resolve", launched_resolve, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
  static PyType_Slot slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(launched_dealloc)},
      {Py_tp_traverse, reinterpret_cast<void*>(launched_traverse)},
      {Py_tp_clear, reinterpret_cast<void*>(launched_clear)},
      {Py_tp_getattro, reinterpret_cast<void*>(launched_getattro)},
      {Py_mp_subscript, reinterpret_cast<void*>(launched_subscript)},
      {Py_tp_repr, reinterpret_cast<void*>(launched_repr)},
      {Py_tp_methods, methods},
      {Py_tp_doc, const_cast<char*>("What triton_jit.install()'s run returns for a launch: Triton's CompiledKernel, "
                                    "made on first use by Triton's run with warmup=True for the same call.")},
      {0, nullptr}};
  static PyType_Spec spec = {"triton_jit._C.LaunchedKernel", offsetof(LaunchedObject, values), sizeof(PyObject*),
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, slots};
  return add_type(m, &spec);
}

// ---- InstalledRun -------------------------------------------------------------------------------

struct RunObject {
  PyObject_HEAD vectorcallfunc vectorcall;
  PyObject* slow;  // the Python run: every call the C++ run does not take
};

PyTypeObject* g_run_type = nullptr;
PyTypeObject* g_getitem_type = nullptr;

// `key` is `name`: by identity for an interned key (every keyword written in code), else by value.
bool is_name(PyObject* key, PyObject* name) {
  if (key == name) return true;
  if (PyUnicode_CHECK_INTERNED(key)) return false;
  return PyUnicode_Check(key) && PyUnicode_Compare(key, name) == 0;
}

// Truthiness; an error counts as true (the Python run asks again and raises it).
bool truthy(PyObject* v) {
  if (v == Py_None || v == Py_False) return false;
  if (v == Py_True) return true;
  const int t = PyObject_IsTrue(v);
  if (t < 0) PyErr_Clear();
  return t != 0;
}

bool attr_truthy(PyObject* o, PyObject* name) {
  if (o == nullptr) return true;
  nb::object v = nb::steal(PyObject_GetAttr(o, name));
  if (!v.is_valid()) {
    PyErr_Clear();
    return true;
  }
  return truthy(v.ptr());
}

bool attr_not_none(PyObject* o, PyObject* name) {
  nb::object v = nb::steal(PyObject_GetAttr(o, name));
  if (!v.is_valid()) {
    PyErr_Clear();
    return true;
  }
  return !v.is_none();
}

PyObject* global_or_clear(PyObject* name) {
  PyObject* v = PyDict_GetItemWithError(g_install_globals, name);
  if (v == nullptr) PyErr_Clear();
  return v;
}

// Whether the process-wide settings send calls to Triton's own run (the Python run's conditions
// after the entry's own): the supported version, the compile hooks, debug, instrumentation.
bool settings_fall_back() {
  PyObject* version_ok = global_or_clear(s_version_ok);
  if (version_ok == nullptr || !truthy(version_ok)) return true;
  PyObject* knobs = global_or_clear(s_knobs);
  if (knobs == nullptr || attr_not_none(knobs, s_jit_cache_hook) || attr_not_none(knobs, s_jit_post_compile_hook) ||
      attr_truthy(knobs, s_debug)) {
    return true;
  }
  PyObject* instrumentation = global_or_clear(s_instrumentation);
  return instrumentation == nullptr || attr_truthy(instrumentation, s_instrumentation_mode);
}

#if PY_VERSION_HEX >= 0x030C0000
// Python 3.12's dict and type watchers: the settings' answer is kept until something it was read
// from changes (_install's globals, the knobs objects' own attributes, their classes). Reading them
// costs a call about 0.3 us; the watched answer one load.
int g_dict_watcher = -1;
int g_type_watcher = -1;
bool g_settings_known = false;
bool g_settings_answer = false;

int on_settings_dict_event(PyDict_WatchEvent, PyObject*, PyObject*, PyObject*) {
  g_settings_known = false;
  return 0;
}

int on_settings_type_event(PyTypeObject*) {
  g_settings_known = false;
  return 0;
}

// Watches `object` for the attributes `names`: false where one is computed (a descriptor, a
// __getattr__), which no watcher sees change.
bool watch_attributes(PyObject* object, std::initializer_list<PyObject*> names) {
  PyTypeObject* type = Py_TYPE(object);
  if (type->tp_getattro != PyObject_GenericGetAttr) return false;
  for (PyObject* name : names) {
    PyObject* found = _PyType_Lookup(type, name);  // borrowed
    if (found != nullptr && Py_TYPE(found)->tp_descr_get != nullptr) return false;
  }
  nb::object dict = nb::steal(PyObject_GenericGetDict(object, nullptr));
  if (!dict.is_valid() || !PyDict_CheckExact(dict.ptr())) {
    PyErr_Clear();
    return false;
  }
  if (PyDict_Watch(g_dict_watcher, dict.ptr()) < 0 ||
      PyType_Watch(g_type_watcher, reinterpret_cast<PyObject*>(type)) < 0) {
    PyErr_Clear();
    return false;
  }
  return true;
}

// Watches what settings_fall_back reads; false where it cannot (read again at every call).
bool watch_settings() {
  if (g_dict_watcher < 0) g_dict_watcher = PyDict_AddWatcher(on_settings_dict_event);
  if (g_type_watcher < 0) g_type_watcher = PyType_AddWatcher(on_settings_type_event);
  if (g_dict_watcher < 0 || g_type_watcher < 0 || PyDict_Watch(g_dict_watcher, g_install_globals) < 0) {
    PyErr_Clear();
    return false;
  }
  PyObject* knobs = global_or_clear(s_knobs);
  PyObject* instrumentation = global_or_clear(s_instrumentation);
  return knobs != nullptr && instrumentation != nullptr &&
         watch_attributes(knobs, {s_jit_cache_hook, s_jit_post_compile_hook, s_debug}) &&
         watch_attributes(instrumentation, {s_instrumentation_mode});
}
#endif

bool settings_fall_back_watched() {
#if PY_VERSION_HEX >= 0x030C0000
  if (g_settings_known) return g_settings_answer;
  const bool answer = settings_fall_back();
  // Kept only where everything the read touched is watched: a computed attribute (whose read may
  // run code, and may answer differently next time) makes watch_settings refuse.
  g_settings_answer = answer;
  g_settings_known = watch_settings();
  return answer;
#else
  return settings_fall_back();
#endif
}

// Whether a call goes to Triton's own run for a reason of its function (pre-run hooks), of its
// context (an async compile mode) or of the process (settings_fall_back).
bool falls_back(PyObject* fn) {
  if (attr_truthy(fn, s_pre_run_hooks) || settings_fall_back_watched()) return true;
  PyObject* active = global_or_clear(s_async_active);
  if (active == nullptr) return true;
  PyObject* var = global_or_clear(s_async_var);
  if (active == global_or_clear(s_async_default) && var != nullptr && PyContextVar_CheckExact(var)) {
    // The checker install() set: Triton's async-compile mode, read without a Python call.
    PyObject* mode = nullptr;
    if (PyContextVar_Get(var, nullptr, &mode) < 0) {
      PyErr_Clear();
      return true;
    }
    if (mode == nullptr) return true;
    const bool on = mode != Py_None;
    Py_DECREF(mode);
    return on;
  }
  nb::object on = nb::steal(PyObject_CallNoArgs(active));
  if (!on.is_valid()) {
    PyErr_Clear();
    return true;
  }
  return truthy(on.ptr());
}

bool builtin_scalar(PyObject* o) {
  return o == Py_None || PyBool_Check(o) || PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyUnicode_CheckExact(o) ||
         PyBytes_CheckExact(o);
}

// `now != old` as Python computes it, where that needs no Python frame: builtin scalars, or
// Triton constexprs of them (kernels read constexpr globals: Liger's casting modes). In every
// supported Triton, constexpr.__ne__ is `constexpr(self.value != _unwrap_if_constexpr(other))`,
// Python code of about a microsecond, whose truth is that of the builtin `!=` of the two values.
// A new reference; nullptr without an error set: ask Python.
PyObject* scalar_ne(PyObject* now, PyObject* old) {
  PyTypeObject* constexpr_type = g_tl_constexpr.get();
  nb::object now_value, old_value;
  if (constexpr_type != nullptr && Py_TYPE(now) == constexpr_type) {
    if (Py_TYPE(old) != constexpr_type) return nullptr;
    now_value = nb::steal(PyObject_GetAttr(now, s_value));
    old_value = nb::steal(PyObject_GetAttr(old, s_value));
    if (!now_value.is_valid() || !old_value.is_valid()) {
      PyErr_Clear();
      return nullptr;
    }
    now = now_value.ptr();
    old = old_value.ptr();
  }
  if (!builtin_scalar(now) || !builtin_scalar(old)) return nullptr;
  PyObject* ne = PyObject_RichCompare(now, old, Py_NE);  // no identity shortcut: NaN != NaN
  if (ne == nullptr) PyErr_Clear();
  return ne;
}

// Triton's check of the globals the kernel read at its compile (JITFunction.used_global_vals):
// true when one has changed (the Python run raises Triton's error for it) or it cannot be read.
bool globals_changed(PyObject* fn) {
  nb::object used = nb::steal(PyObject_GetAttr(fn, s_used_global_vals));
  if (!used.is_valid()) {
    PyErr_Clear();
    return true;
  }
  if (!PyDict_Check(used.ptr())) return true;
  Py_ssize_t pos = 0;
  PyObject *key, *value;
  while (PyDict_Next(used.ptr(), &pos, &key, &value)) {
    if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) != 2 || !PyTuple_Check(value) || PyTuple_GET_SIZE(value) != 2 ||
        !PyDict_CheckExact(PyTuple_GET_ITEM(value, 1))) {
      return true;
    }
    PyObject* now = PyDict_GetItemWithError(PyTuple_GET_ITEM(value, 1), PyTuple_GET_ITEM(key, 0));
    if (now == nullptr) {
      PyErr_Clear();
      return true;
    }
    // Python's `!=`, which NaN and objects with their own __ne__ answer (no identity shortcut).
    PyObject* old = PyTuple_GET_ITEM(value, 0);
    nb::object ne = nb::steal(scalar_ne(now, old));
    if (!ne.is_valid()) ne = nb::steal(PyObject_RichCompare(now, old, Py_NE));
    if (!ne.is_valid()) {
      PyErr_Clear();
      return true;
    }
    if (truthy(ne.ptr())) return true;
  }
  return false;
}

// A launch that raised one of _install._LAUNCH_FALLBACK_ERRORS: _install._launch_failed decides
// (Triton's run for the call, or for good), inside the handling of that error as the Python run's
// `except` is. Returns its result, or nullptr with an error set.
PyObject* launch_failed(PyObject* fn, PyObject* entry, PyObject* call_args, PyObject* grid, PyObject* warmup,
                        PyObject* call_kwargs) {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  if (traceback != nullptr) PyException_SetTraceback(value, traceback);
  nb::object error = nb::steal(value);
  Py_XDECREF(type);
  Py_XDECREF(traceback);
  PyObject* handler = global(s_launch_failed);
  if (handler == nullptr) return nullptr;
  PyObject *saved_type, *saved_value, *saved_traceback;
  PyErr_GetExcInfo(&saved_type, &saved_value, &saved_traceback);
  PyErr_SetExcInfo(new_ref(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr()))), new_ref(error.ptr()),
                   PyException_GetTraceback(error.ptr()));
  PyObject* r = PyObject_CallFunctionObjArgs(handler, fn, entry, error.ptr(), call_args, grid, warmup, call_kwargs,
                                             nullptr);
  PyErr_SetExcInfo(saved_type, saved_value, saved_traceback);
  return r;
}

// A launch that threw (the C++ exception in flight), as the launcher handles it (kernel.cpp's
// launcher_call: the deferred hook first, for launches inside jax.jit), then as the Python run's
// `except` does. Returns true when the hook launched (a success), else false with *result set.
bool launch_threw(PyObject* fn, EntryObject* e, PyObject* grid, PyObject* warmup, PyObject* const* values,
                  Py_ssize_t nargs, PyObject* kwnames, uint64_t skip, PyObject** result) {
  *result = nullptr;
  nb::object call_args, call_kwargs;
  if (!call_of(values, kwnames, nargs, skip, call_args, call_kwargs)) return false;
  PyObject* hooked = call_deferred_hook(e->own_kernel_object, grid, call_args.ptr(), call_kwargs.ptr());
  if (hooked != nullptr) {
    const bool launched = hooked != Py_NotImplemented;
    Py_DECREF(hooked);
    if (launched) return true;
    set_python_error_from_current_exception();  // the launch's own error
  }                                             // else: the hook's error
  PyObject* classes = global(s_fallback_errors);
  if (classes != nullptr && PyErr_ExceptionMatches(classes)) {
    *result = launch_failed(fn, reinterpret_cast<PyObject*>(e), call_args.ptr(), grid, warmup, call_kwargs.ptr());
  }  // else: raised as the Python run raises it
  return false;
}

// Which of the run's own keywords `key` is: 0 grid, 1 warmup, 2 a deprecated launch option
// (stream=, device=, device_type=: Triton's run refuses them); -1 none. By identity first, as a
// keyword written in code is interned; an interned key that is none of the five interned names is
// no other, so only a key made at run time is compared by value (fla's calls have about thirty
// keywords, each looked at).
int run_keyword(PyObject* key) {
  PyObject* const names[] = {s_grid, s_warmup, s_stream, s_device, s_device_type};
  constexpr int kCount = sizeof(names) / sizeof(names[0]);
  int found = -1;
  for (int i = 0; i < kCount && found < 0; ++i) {
    if (key == names[i]) found = i;
  }
  for (int i = 0; i < kCount && found < 0 && !PyUnicode_CHECK_INTERNED(key); ++i) {
    if (is_name(key, names[i])) found = i;
  }
  return found < 2 ? found : 2;
}

// Where grid= and warmup= are among the call's keywords (-1: absent); false when a deprecated
// launch option is, which sends the call to Python.
bool find_run_keywords(PyObject* kwnames, Py_ssize_t* grid_at, Py_ssize_t* warmup_at) {
  *grid_at = *warmup_at = -1;
  const Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    switch (run_keyword(PyTuple_GET_ITEM(kwnames, k))) {
      case 0: *grid_at = k; break;
      case 1: *warmup_at = k; break;
      case 2: return false;
      default: break;
    }
  }
  return true;
}

// The launch of JITFunction `fn` over `grid` with the call's values (positional, then the values
// of the keywords `kwnames` names, those whose bit is set in `skip` left out), when the C++ run
// takes it: true with *result set (or nullptr with an error set); false: the Python run takes it.
// `instance_run_allowed` false: a `run` in fn's own __dict__ (which fn.run would call) sends the
// call to Python too.
bool launch_fast(PyObject* fn, PyObject* grid, PyObject* warmup, PyObject* const* values, Py_ssize_t nargs,
                 PyObject* kwnames, uint64_t skip, bool instance_run_allowed, PyObject** result) {
  nb::object dict = nb::steal(PyObject_GenericGetDict(fn, nullptr));
  if (!dict.is_valid() || !PyDict_Check(dict.ptr())) {
    PyErr_Clear();
    return false;
  }
  PyObject* found = PyDict_GetItemWithError(dict.ptr(), s_entry);
  if (found == nullptr || !Py_IS_TYPE(found, g_entry_type)) {
    PyErr_Clear();
    return false;
  }
  if (!instance_run_allowed && PyDict_Contains(dict.ptr(), s_run) != 0) {
    PyErr_Clear();
    return false;
  }
  nb::object entry = nb::borrow(found);  // another thread may replace it meanwhile
  auto* e = reinterpret_cast<EntryObject*>(found);
  if (e->own_kernel == nullptr || e->launch != e->own_launch) return false;
  if (falls_back(fn) || globals_changed(fn)) return false;

  try {
    PyObject* outputs = e->own_kernel->launch(nb::handle(grid), values, static_cast<size_t>(nargs), kwnames,
                                              PlaceholderUse::RefuseInstalled, skip);
    Py_XDECREF(outputs);  // none: a placeholder is refused under install()
  } catch (...) {
    if (!launch_threw(fn, e, grid, warmup, values, nargs, kwnames, skip, result)) return true;
  }
  e->launched = 1;

  const Py_ssize_t n = nargs + (kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0);
  auto* l = PyObject_GC_NewVar(LaunchedObject, g_launched_type, n);
  if (l == nullptr) {
    *result = nullptr;
    return true;
  }
  l->fn = new_ref(fn);
  Py_XINCREF(kwnames);
  l->kwnames = kwnames;
  l->nargs = nargs;
  l->skip = skip;
  l->compiled = nullptr;
  PyObject** held = values_of(l);
  for (Py_ssize_t i = 0; i < n; ++i) held[i] = new_ref(values[i]);
  PyObject_GC_Track(l);
  *result = reinterpret_cast<PyObject*>(l);
  return true;
}

// The call JITFunction.run(fn, *args, grid=..., warmup=..., **kwargs), when the C++ run takes it
// (see launch_fast).
bool run_fast(PyObject* const* args, size_t nargs, PyObject* kwnames, PyObject** result) {
  if (nargs < 1 || kwnames == nullptr || g_install_globals == nullptr) return false;
  Py_ssize_t grid_at, warmup_at;
  if (!find_run_keywords(kwnames, &grid_at, &warmup_at)) return false;
  if (grid_at < 0 || warmup_at < 0 || grid_at >= 64 || warmup_at >= 64) return false;
  PyObject* warmup = args[nargs + warmup_at];
  if (truthy(warmup)) return false;
  const uint64_t skip = (uint64_t{1} << grid_at) | (uint64_t{1} << warmup_at);
  return launch_fast(args[0], args[nargs + grid_at], warmup, args + 1, static_cast<Py_ssize_t>(nargs) - 1, kwnames,
                     skip, /*instance_run_allowed=*/true, result);
}

PyObject* run_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  PyObject* result = nullptr;
  if (run_fast(args, PyVectorcall_NARGS(nargsf), kwnames, &result)) return result;
  return PyObject_Vectorcall(reinterpret_cast<RunObject*>(self)->slow, args, nargsf, kwnames);
}

// As a Python function: JITFunction.run is the run itself, fn.run a bound method.
PyObject* run_descr_get(PyObject* self, PyObject* obj, PyObject*) {
  if (obj == nullptr || obj == Py_None) return new_ref(self);
  return PyMethod_New(self, obj);
}

void run_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  Py_XDECREF(reinterpret_cast<RunObject*>(self)->slow);
  PyObject_Free(self);
  Py_DECREF(type);
}

PyTypeObject* make_run_type(nb::module_& m, const char* name, const char* doc) {
  static PyMemberDef members[] = {
      {"__vectorcalloffset__", T_PYSSIZET, offsetof(RunObject, vectorcall), READONLY, nullptr},
      {"__wrapped__", T_OBJECT, offsetof(RunObject, slow), READONLY, nullptr},
      {nullptr, 0, 0, 0, nullptr}};
  // Not static: the two types differ in their doc (PyType_FromSpec copies the slots).
  PyType_Slot slots[] = {
      {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
      {Py_tp_descr_get, reinterpret_cast<void*>(run_descr_get)},
      {Py_tp_dealloc, reinterpret_cast<void*>(run_dealloc)},
      {Py_tp_members, members},
      {Py_tp_doc, const_cast<char*>(doc)},
      {0, nullptr}};
  PyType_Spec spec = {name, sizeof(RunObject), 0,
                      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR, slots};
  return add_type(m, &spec);
}

// ---- JITFunction.__getitem__ --------------------------------------------------------------------

// fn[grid]: Triton's KernelInterface.__getitem__ returns `lambda *args, **kwargs: self.run(grid=grid,
// warmup=False, *args, **kwargs)`. Installed, it returns this object instead, which calls the
// C++ run without that lambda's frame and keyword dict while the run fn.run resolves to is the
// installed one; otherwise (uninstalled since, a subclass's own run, grid=, warmup= or a
// deprecated launch option among the keywords) it calls _install._run_with_grid, the lambda's
// body.
struct GridCallObject {
  PyObject_HEAD vectorcallfunc vectorcall;
  PyObject* fn;
  PyObject* grid;
};

PyTypeObject* g_grid_call_type = nullptr;
PyObject* g_installed_run = nullptr;  // the run _installed_run made
PyObject* g_run_with_grid = nullptr;  // the Python call _installed_getitem was given

PyObject* grid_call_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* g = reinterpret_cast<GridCallObject*>(self);
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  Py_ssize_t grid_at, warmup_at;  // present: a second grid= or warmup=, Triton's TypeError
  if (g_install_globals != nullptr && g_installed_run != nullptr &&
      _PyType_Lookup(Py_TYPE(g->fn), s_run) == g_installed_run &&
      find_run_keywords(kwnames, &grid_at, &warmup_at) && grid_at < 0 && warmup_at < 0) {
    PyObject* result = nullptr;
    if (launch_fast(g->fn, g->grid, Py_False, args, nargs, kwnames, 0, /*instance_run_allowed=*/false, &result)) {
      return result;
    }
  }
  // _run_with_grid(fn, grid, *args, **kwargs): two values ahead of the call's own.
  const Py_ssize_t total = nargs + (kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0);
  std::vector<PyObject*> values(static_cast<size_t>(total) + 2);
  values[0] = g->fn;
  values[1] = g->grid;
  for (Py_ssize_t i = 0; i < total; ++i) values[static_cast<size_t>(i) + 2] = args[i];
  return PyObject_Vectorcall(g_run_with_grid, values.data(), static_cast<size_t>(nargs) + 2, kwnames);
}

PyObject* grid_call_repr(PyObject* self) {
  auto* g = reinterpret_cast<GridCallObject*>(self);
  return PyUnicode_FromFormat("<installed launch of %R over grid %R>", g->fn, g->grid);
}

int grid_call_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* g = reinterpret_cast<GridCallObject*>(self);
  Py_VISIT(g->fn);
  Py_VISIT(g->grid);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int grid_call_clear(PyObject* self) {
  auto* g = reinterpret_cast<GridCallObject*>(self);
  Py_CLEAR(g->fn);
  Py_CLEAR(g->grid);
  return 0;
}

void grid_call_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  grid_call_clear(self);
  PyObject_GC_Del(self);
  Py_DECREF(type);
}

PyTypeObject* make_grid_call_type(nb::module_& m) {
  static PyMemberDef members[] = {
      {"__vectorcalloffset__", T_PYSSIZET, offsetof(GridCallObject, vectorcall), READONLY, nullptr},
      {"fn", T_OBJECT, offsetof(GridCallObject, fn), READONLY, nullptr},
      {"grid", T_OBJECT, offsetof(GridCallObject, grid), READONLY, nullptr},
      {nullptr, 0, 0, 0, nullptr}};
  static PyType_Slot slots[] = {
      {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
      {Py_tp_repr, reinterpret_cast<void*>(grid_call_repr)},
      {Py_tp_dealloc, reinterpret_cast<void*>(grid_call_dealloc)},
      {Py_tp_traverse, reinterpret_cast<void*>(grid_call_traverse)},
      {Py_tp_clear, reinterpret_cast<void*>(grid_call_clear)},
      {Py_tp_members, members},
      {Py_tp_doc, const_cast<char*>("What fn[grid] returns while triton_jit.install() is in effect: calling it is "
                                    "fn.run(*args, grid=grid, warmup=False, **kwargs), as Triton's lambda is.")},
      {0, nullptr}};
  static PyType_Spec spec = {"triton_jit._C.InstalledGridCall", sizeof(GridCallObject), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC, slots};
  return add_type(m, &spec);
}

// JITFunction.__getitem__ while installed: (fn, grid) -> InstalledGridCall. A RunObject whose
// vectorcall is this one (no Python run behind it).
PyObject* getitem_vectorcall(PyObject*, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  if (PyVectorcall_NARGS(nargsf) != 2 || kwnames != nullptr) {
    PyErr_SetString(PyExc_TypeError, "JITFunction.__getitem__ takes the function and its grid");
    return nullptr;
  }
  auto* g = PyObject_GC_New(GridCallObject, g_grid_call_type);
  if (g == nullptr) return nullptr;
  g->vectorcall = grid_call_vectorcall;
  g->fn = new_ref(args[0]);
  g->grid = new_ref(args[1]);
  PyObject_GC_Track(g);
  return reinterpret_cast<PyObject*>(g);
}

// ---- ConstexprFunction.__call__ -----------------------------------------------------------------

// triton.cdiv and the other @triton.constexpr_function helpers, called from host code: a grid
// function's `triton.cdiv(n, meta["BLOCK"])`, a library's wrapper sizing its launch. Triton's
// __call__ imports two names, unwraps each argument's tl.constexpr into a new list and dict, calls
// the wrapped function and, without the compiler's _semantic, returns its result as it is: about a
// microsecond, ten times the function's own time (fla's grids call it twice a launch). Where every
// argument is a builtin scalar, which the unwrapping returns unchanged, and no _semantic is given,
// that is self.fn(*args, **kwargs), called so here. Any other call (a constexpr, a list, the
// compiler's) goes to Triton's __call__, the RunObject's `slow`. _install.install() replaces
// __call__ only where its source is one the bridge knows (versions.constexpr_function_type()).
PyObject* constexpr_call_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  bool plain = nargs >= 1;
  for (Py_ssize_t i = 1; plain && i < nargs + nkw; ++i) plain = builtin_scalar(args[i]);
  for (Py_ssize_t i = 0; plain && i < nkw; ++i) plain = !is_name(PyTuple_GET_ITEM(kwnames, i), s_semantic);
  if (!plain) return PyObject_Vectorcall(reinterpret_cast<RunObject*>(self)->slow, args, nargsf, kwnames);
  PyObject* fn = PyObject_GetAttr(args[0], s_fn);
  if (fn == nullptr) return nullptr;
  PyObject* result = PyObject_Vectorcall(fn, args + 1, static_cast<size_t>(nargs - 1), kwnames);
  Py_DECREF(fn);
  return result;
}

PyObject* intern(const char* s) {
  PyObject* o = PyUnicode_InternFromString(s);
  if (o == nullptr) throw nb::python_error();
  return o;
}

}  // namespace

void register_installed_run(nb::module_& m) {
  s_grid = intern("grid");
  s_warmup = intern("warmup");
  s_stream = intern("stream");
  s_device = intern("device");
  s_device_type = intern("device_type");
  s_entry = intern("_triton_jit_install_entry");
  s_version_ok = intern("_version_ok");
  s_knobs = intern("_knobs");
  s_instrumentation = intern("_instrumentation");
  s_async_active = intern("_async_active");
  s_async_default = intern("_async_default");
  s_async_var = intern("_async_var");
  s_pre_run_hooks = intern("pre_run_hooks");
  s_jit_cache_hook = intern("jit_cache_hook");
  s_jit_post_compile_hook = intern("jit_post_compile_hook");
  s_debug = intern("debug");
  s_instrumentation_mode = intern("instrumentation_mode");
  s_used_global_vals = intern("used_global_vals");
  s_fallback_errors = intern("_LAUNCH_FALLBACK_ERRORS");
  s_launch_failed = intern("_launch_failed");
  s_resolve_launched = intern("_resolve_launched");
  s_installed_launcher = intern("_installed_launcher");
  s_run = intern("run");
  s_value = intern("value");
  s_fn = intern("fn");
  s_semantic = intern("_semantic");
  g_entry_type = make_entry_type(m);
  g_launched_type = make_launched_type(m);
  g_run_type = make_run_type(m, "triton_jit._C.InstalledRun",
                             "JITFunction.run while triton_jit.install() is in effect (see triton_jit._install; "
                             "__wrapped__ is the Python run, which takes every call this one does not).");
  g_getitem_type = make_run_type(m, "triton_jit._C.InstalledGetitem",
                                 "JITFunction.__getitem__ while triton_jit.install() is in effect: fn[grid] is an "
                                 "InstalledGridCall (__wrapped__: the call it makes when the C++ run does not "
                                 "take it).");
  g_grid_call_type = make_grid_call_type(m);
  PyTypeObject* constexpr_call_type = make_run_type(
      m, "triton_jit._C.InstalledConstexprCall",
      "ConstexprFunction.__call__ while triton_jit.install() is in effect: a host call whose "
      "arguments are builtin scalars calls the wrapped function itself; any other goes to "
      "__wrapped__, Triton's __call__.");
  m.def(
      "_installed_run",
      [](nb::object slow, nb::dict install_globals) {
        Py_XDECREF(g_install_globals);
        g_install_globals = install_globals.inc_ref().ptr();
        auto* r = PyObject_New(RunObject, g_run_type);
        if (r == nullptr) throw nb::python_error();
        r->vectorcall = run_vectorcall;
        r->slow = slow.inc_ref().ptr();
        Py_XDECREF(g_installed_run);
        g_installed_run = new_ref(reinterpret_cast<PyObject*>(r));
        return nb::steal(g_installed_run);
      },
      "The C++ run over the Python run `slow`, reading the settings of triton_jit._install's module dict.");
  m.def(
      "_installed_getitem",
      [](nb::object run_with_grid) {
        auto* r = PyObject_New(RunObject, g_getitem_type);
        if (r == nullptr) throw nb::python_error();
        r->vectorcall = getitem_vectorcall;
        r->slow = run_with_grid.inc_ref().ptr();  // __wrapped__
        Py_XDECREF(g_run_with_grid);
        g_run_with_grid = run_with_grid.inc_ref().ptr();
        return nb::steal(reinterpret_cast<PyObject*>(r));
      },
      "JITFunction.__getitem__ while installed (fn[grid] -> InstalledGridCall); `run_with_grid` is Triton's "
      "lambda, as its __wrapped__.");
  m.def(
      "_installed_constexpr_call",
      [constexpr_call_type](nb::object triton_call) {
        auto* r = PyObject_New(RunObject, constexpr_call_type);
        if (r == nullptr) throw nb::python_error();
        r->vectorcall = constexpr_call_vectorcall;
        r->slow = triton_call.inc_ref().ptr();  // __wrapped__
        return nb::steal(reinterpret_cast<PyObject*>(r));
      },
      "ConstexprFunction.__call__ while installed, over Triton's own `triton_call` (its __wrapped__).");
}

}  // namespace triton_jit::python

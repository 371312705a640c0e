#pragma once

#include <nanobind/nanobind.h>

#include <cstring>
#include <string>

// Small helpers over Python's C API for the extension: attribute probing that raises nothing,
// framework types found once their module is imported (never importing it), names for messages.
namespace triton_jit::python {

// getattr that returns an empty object, without raising, for a missing attribute: probing
// objects for protocols must not pay for an AttributeError each time. A real error (a property
// that raises) is left set for the caller, which checks PyErr_Occurred.
inline nanobind::object optional_attr(PyObject* o, PyObject* name) {
  PyObject* result = nullptr;
#if PY_VERSION_HEX >= 0x030D0000
  PyObject_GetOptionalAttr(o, name, &result);
#else
  _PyObject_LookupAttr(o, name, &result);
#endif
  return nanobind::steal(result);
}

// A C type of the extension made from `spec` ("triton_jit._C.NAME") and set as the module's NAME;
// the module holds a reference, and so does the pointer returned (the type lives as long as the
// process).
inline PyTypeObject* add_type(nanobind::module_& m, PyType_Spec* spec) {
  PyObject* type = PyType_FromSpec(spec);
  if (type == nullptr) throw nanobind::python_error();
  const char* dot = std::strrchr(spec->name, '.');
  m.attr(dot != nullptr ? dot + 1 : spec->name) = nanobind::handle(type);
  return reinterpret_cast<PyTypeObject*>(type);
}

// A type found in an imported module (never imports it): resolved once the module is there.
struct LazyType {
  const char* module;
  const char* attr;
  PyTypeObject* type = nullptr;
  PyObject* key = nullptr;  // the module's name, interned

  PyTypeObject* get() {
    if (type != nullptr) return type;
    if (key == nullptr) key = PyUnicode_InternFromString(module);
    PyObject* modules = PyImport_GetModuleDict();  // borrowed
    PyObject* m = PyDict_GetItemWithError(modules, key);
    if (m == nullptr) return PyErr_Clear(), nullptr;
    PyObject* t = PyObject_GetAttrString(m, attr);
    if (t == nullptr) {
      PyErr_Clear();
      return nullptr;
    }
    if (!PyType_Check(t)) {
      Py_DECREF(t);
      return nullptr;
    }
    type = reinterpret_cast<PyTypeObject*>(t);  // kept: types of loaded modules live on
    return type;
  }
  bool is(PyObject* o) {
    PyTypeObject* t = get();
    return t != nullptr && PyObject_TypeCheck(o, t);
  }
};
inline LazyType g_torch_tensor{"torch", "Tensor"};
inline LazyType g_torch_dtype{"torch", "dtype"};
inline LazyType g_tl_dtype{"triton.language", "dtype"};
inline LazyType g_tl_constexpr{"triton.language", "constexpr"};
inline LazyType g_cupy_ndarray{"cupy", "ndarray"};

// "module.QualName" of the object's type, for messages ("builtins" left out).
inline std::string type_name(PyObject* o) {
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(o));
  std::string mod, qual = Py_TYPE(o)->tp_name;
  if (PyObject* m = PyObject_GetAttrString(type, "__module__")) {
    if (PyUnicode_Check(m)) mod = PyUnicode_AsUTF8(m);
    Py_DECREF(m);
  }
  if (PyObject* q = PyObject_GetAttrString(type, "__qualname__")) {
    if (PyUnicode_Check(q)) qual = PyUnicode_AsUTF8(q);
    Py_DECREF(q);
  }
  PyErr_Clear();
  return (mod.empty() || mod == "builtins") ? qual : mod + "." + qual;
}

// The text of PyObject_Repr or PyObject_Str of `o`, for messages: never fails.
inline std::string text_of(PyObject* o, PyObject* (*to_text)(PyObject*)) {
  PyObject* r = to_text(o);
  const char* s = r != nullptr ? PyUnicode_AsUTF8(r) : nullptr;
  std::string text = s != nullptr ? s : "<unprintable>";
  if (s == nullptr) PyErr_Clear();
  Py_XDECREF(r);
  return text;
}

inline std::string repr_of(PyObject* o) { return text_of(o, PyObject_Repr); }

inline std::string str_of(PyObject* o) { return text_of(o, PyObject_Str); }

}  // namespace triton_jit::python

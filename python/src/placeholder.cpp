#include "placeholder.h"

#include "pyutil.h"
#include "torch_native.h"
#include "triton_jit/errors.h"

namespace nb = nanobind;

namespace triton_jit::python {

PyTypeObject* g_placeholder_type = nullptr;

namespace {

struct PlaceholderObject {
  PyObject_HEAD PyObject* like;
  PyObject* dtype;  // nullptr: like's
  PyObject* shape;  // a tuple of ints; nullptr: like's (and its strides, as torch.empty_like keeps them)
};

PyObject* g_like_name;
PyObject* g_dtype_name;
PyObject* g_shape_name;
PyObject* g_new_empty_name;
PyObject* g_dtype_keyword;  // ("dtype",)
PyObject* g_zero;

PlaceholderObject* as_placeholder(PyObject* o) { return reinterpret_cast<PlaceholderObject*>(o); }

PyObject* new_ref(PyObject* o) {  // Py_NewRef, which Python 3.9 lacks
  Py_INCREF(o);
  return o;
}

// An attribute of the package's Python helper module (triton_jit/_placeholder.py), looked up once.
PyObject* helper(const char* name, PyObject** slot) {
  if (*slot == nullptr) {
    nb::object module = nb::module_::import_("triton_jit._placeholder");
    *slot = module.attr(name).inc_ref().ptr();
  }
  return *slot;
}

// torch.empty_like(like[, dtype=]) when no shape is given; like.new_empty(shape[, dtype=]) (torch.empty
// on like's device, layout and dtype) when one is. A plain torch.Tensor goes to libtorch from C++
// (triton_jit._torch_native) where that module is loaded and takes it; anything else (a subclass,
// whose __torch_function__ must run; a torch function mode) to torch's own functions, called from C:
// no Python frame of ours. *native says which of the two allocated.
PyObject* allocate_torch(PlaceholderObject* p, bool* native) {
  *native = false;
  const TorchNativeApi* native_api = nullptr;
  try {
    native_api = torch_native();
  } catch (nb::python_error& e) {
    e.restore();
    return nullptr;
  }
  if (native_api != nullptr && Py_TYPE(p->like) == g_torch_tensor.get()) {
    PyObject* out = nullptr;
    const int rc = native_api->empty_like(p->like, p->dtype, p->shape, &out);
    if (rc != 0) {
      *native = rc > 0;
      return out;  // nullptr with torch's error set for rc < 0
    }
  }
  static PyObject* empty_like = nullptr;
  if (empty_like == nullptr) {
    nb::object torch = nb::module_::import_("torch");  // loaded: like is a torch.Tensor
    empty_like = torch.attr("empty_like").inc_ref().ptr();
  }
  PyObject* kwnames = p->dtype != nullptr ? g_dtype_keyword : nullptr;
  if (p->shape == nullptr) {
    PyObject* argv[3] = {nullptr, p->like, p->dtype};
    return PyObject_Vectorcall(empty_like, argv + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, kwnames);
  }
  PyObject* argv[3] = {p->like, p->shape, p->dtype};
  return PyObject_VectorcallMethod(g_new_empty_name, argv, 2, kwnames);
}

// CuPy and JAX (and the error for anything else): triton_jit._placeholder.allocate.
PyObject* allocate_other(PlaceholderObject* p) {
  static PyObject* allocate = nullptr;
  PyObject* argv[4] = {nullptr, p->like, p->dtype != nullptr ? p->dtype : Py_None,
                       p->shape != nullptr ? p->shape : Py_None};
  return PyObject_Vectorcall(helper("allocate", &allocate), argv + 1, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
}

std::string describe(PlaceholderObject* p) {
  std::string s = "triton_jit.empty_like(" + type_name(p->like) + " object";
  if (p->dtype != nullptr) s += ", dtype=" + repr_of(p->dtype);
  if (p->shape != nullptr) s += ", shape=" + repr_of(p->shape);
  return s + ")";
}

// ---- the Python type ----

// shape= as a tuple of Python ints: an int is a 1-d shape. nullptr with TypeError set otherwise.
PyObject* shape_tuple(PyObject* shape) {
  if (PyLong_Check(shape)) return PyTuple_Pack(1, shape);
  nb::object seq = nb::steal(PySequence_Tuple(shape));
  if (!seq.is_valid() || PyUnicode_Check(shape) || PyBytes_Check(shape)) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "triton_jit.empty_like: shape must be an int or a sequence of ints, not %s",
                 Py_TYPE(shape)->tp_name);
    return nullptr;
  }
  const Py_ssize_t n = PyTuple_GET_SIZE(seq.ptr());
  PyObject* out = PyTuple_New(n);
  if (out == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* d = PyNumber_Index(PyTuple_GET_ITEM(seq.ptr(), i));
    if (d == nullptr) {
      Py_DECREF(out);
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "triton_jit.empty_like: shape holds ints, not %s",
                   Py_TYPE(PyTuple_GET_ITEM(seq.ptr(), i))->tp_name);
      return nullptr;
    }
    PyTuple_SET_ITEM(out, i, d);
    if (PyObject_RichCompareBool(d, g_zero, Py_LT) == 1) {
      Py_DECREF(out);
      PyErr_Format(PyExc_ValueError, "triton_jit.empty_like: shape %R has a negative dimension", seq.ptr());
      return nullptr;
    }
  }
  return out;
}

// empty_like(like, dtype=None, shape=None), in vectorcall form: a launch's extra cost of an output
// is this object (three pointers) and its allocation at the launch.
PyObject* empty_like(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* given[3] = {nullptr, nullptr, nullptr};  // like, dtype, shape
  if (nargs > 3) {
    PyErr_Format(PyExc_TypeError, "triton_jit.empty_like takes at most 3 arguments (like, dtype, shape), %zd given",
                 nargs);
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) given[i] = args[i];
  const Py_ssize_t num_keywords = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < num_keywords; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    int slot = -1;
    PyObject* names[3] = {g_like_name, g_dtype_name, g_shape_name};
    for (int j = 0; j < 3; ++j) {
      if (key == names[j] || PyUnicode_Compare(key, names[j]) == 0) slot = j;
    }
    if (slot < 0) {
      PyErr_Format(PyExc_TypeError, "triton_jit.empty_like got an unexpected keyword argument '%U'", key);
      return nullptr;
    }
    if (given[slot] != nullptr) {
      PyErr_Format(PyExc_TypeError, "triton_jit.empty_like got multiple values for argument '%U'", key);
      return nullptr;
    }
    given[slot] = args[nargs + k];
  }
  if (given[0] == nullptr) {
    PyErr_SetString(PyExc_TypeError, "triton_jit.empty_like needs the array to allocate like (like=)");
    return nullptr;
  }
  if (is_placeholder(given[0])) {
    PyErr_SetString(PyExc_TypeError,
                    "triton_jit.empty_like: like= is itself a placeholder; pass the array it is like (its .like)");
    return nullptr;
  }
  PyObject* shape = nullptr;
  if (given[2] != nullptr && given[2] != Py_None) {
    shape = shape_tuple(given[2]);
    if (shape == nullptr) return nullptr;
  }
  auto* p = PyObject_New(PlaceholderObject, g_placeholder_type);
  if (p == nullptr) {
    Py_XDECREF(shape);
    return nullptr;
  }
  p->like = new_ref(given[0]);
  p->dtype = given[1] != nullptr && given[1] != Py_None ? new_ref(given[1]) : nullptr;
  p->shape = shape;
  return reinterpret_cast<PyObject*>(p);
}

void placeholder_dealloc(PyObject* self) {
  PlaceholderObject* p = as_placeholder(self);
  Py_XDECREF(p->like);
  Py_XDECREF(p->dtype);
  Py_XDECREF(p->shape);
  PyTypeObject* type = Py_TYPE(self);
  PyObject_Free(self);
  Py_DECREF(type);  // a heap type: each instance holds a reference
}

PyObject* placeholder_repr(PyObject* self) {
  const std::string s = "<" + describe(as_placeholder(self)) + ": allocated by the launch it is passed to>";
  return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
}

PyObject* get_like(PyObject* self, void*) { return new_ref(as_placeholder(self)->like); }

PyObject* get_dtype(PyObject* self, void*) {
  PlaceholderObject* p = as_placeholder(self);
  return p->dtype != nullptr ? new_ref(p->dtype) : PyObject_GetAttr(p->like, g_dtype_name);
}

PyObject* get_shape(PyObject* self, void*) {
  PlaceholderObject* p = as_placeholder(self);
  if (p->shape != nullptr) return new_ref(p->shape);
  nb::object s = nb::steal(PyObject_GetAttr(p->like, g_shape_name));
  return s.is_valid() ? PySequence_Tuple(s.ptr()) : nullptr;
}

// Triton's own binder reads a pointer argument through data_ptr(): a placeholder that reached it
// was passed to a launch that allocates nothing. Raises the error saying so (_placeholder.py).
PyObject* placeholder_data_ptr(PyObject* self, PyObject*) {
  static PyObject* foreign = nullptr;
  PyObject* argv[2] = {nullptr, self};
  return PyObject_Vectorcall(helper("foreign_launch", &foreign), argv + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
}

}  // namespace

namespace {

// allocate_placeholder, saying in *native whether libtorch allocated from C++ (triton_jit._torch_native).
PyObject* allocate_placeholder_traced(PyObject* o, const std::string& function, const std::string& param,
                                      bool* native) {
  PlaceholderObject* p = as_placeholder(o);
  *native = false;
  PyObject* out = g_torch_tensor.is(p->like) ? allocate_torch(p, native) : allocate_other(p);
  if (out != nullptr) return out;
  if (PyErr_ExceptionMatches(PyExc_TypeError) || PyErr_ExceptionMatches(PyExc_ValueError)) {
    nb::python_error e;  // takes the pending error; its message without the traceback
    fail_placeholder(o, function, param, "could not be allocated: " + str_of(e.value().ptr()));
  }
  throw nb::python_error();  // the allocator's own error (out of memory): as the framework raised it
}

}  // namespace

PyObject* allocate_placeholder(PyObject* o, const std::string& function, const std::string& param) {
  bool native = false;
  return allocate_placeholder_traced(o, function, param, &native);
}

void fail_placeholder(PyObject* o, const std::string& function, const std::string& param, const std::string& why) {
  throw ArgumentError("argument '" + param + "' of " + function + ": " + describe(as_placeholder(o)) + " " + why,
                      function, param);
}

void register_placeholder(nb::module_& m) {
  g_like_name = PyUnicode_InternFromString("like");
  g_dtype_name = PyUnicode_InternFromString("dtype");
  g_shape_name = PyUnicode_InternFromString("shape");
  g_new_empty_name = PyUnicode_InternFromString("new_empty");
  g_dtype_keyword = PyTuple_Pack(1, g_dtype_name);
  g_zero = PyLong_FromLong(0);

  static PyGetSetDef getset[] = {
      {"like", get_like, nullptr, const_cast<char*>("The array whose framework and device the output gets."), nullptr},
      {"dtype", get_dtype, nullptr, const_cast<char*>("The output's dtype (like's unless given)."), nullptr},
      {"shape", get_shape, nullptr, const_cast<char*>("The output's shape (like's unless given)."), nullptr},
      {nullptr, nullptr, nullptr, nullptr, nullptr}};
  static PyMethodDef methods[] = {{"data_ptr", placeholder_data_ptr, METH_NOARGS,
                                   "Raises: a placeholder has no memory until a triton_jit launch allocates it."},
                                  {nullptr, nullptr, 0, nullptr}};
  static PyType_Slot slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(placeholder_dealloc)},
      {Py_tp_repr, reinterpret_cast<void*>(placeholder_repr)},
      {Py_tp_getset, getset},
      {Py_tp_methods, methods},
      {Py_tp_doc, const_cast<char*>("An output that a triton_jit launch allocates (triton_jit.empty_like).")},
      {0, nullptr}};
  static PyType_Spec spec = {"triton_jit._C.Placeholder", sizeof(PlaceholderObject), 0, Py_TPFLAGS_DEFAULT, slots};
  g_placeholder_type = add_type(m, &spec);

  static PyMethodDef def = {
      "empty_like", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(empty_like)),
      METH_FASTCALL | METH_KEYWORDS,
      "empty_like(like, dtype=None, shape=None)\n--\n\n"
      "An output the launch it is passed to allocates, in the framework and on the device of `like` "
      "(torch.empty_like(like, dtype=dtype), or like.new_empty(shape, dtype=dtype) with a shape; CuPy and JAX "
      "arrays likewise). Pass it for a pointer argument of triton_jit.jit(kernel)[grid](...): the call "
      "returns the allocated array (a tuple of them, in parameter order, for several placeholders)."};
  PyObject* fn = PyCFunction_NewEx(&def, nullptr, nullptr);
  if (fn == nullptr) throw nb::python_error();
  m.attr("empty_like") = nb::steal(fn);

  // Test hook (tests/python/test_torch_native.py): the allocation a launch makes for
  // empty_like(like, dtype, shape), on any device, with the path that made it.
  m.def(
      "_placeholder_allocate_for_test",
      [fn](nb::handle like, nb::handle dtype, nb::handle shape) {
        PyObject* argv[4] = {nullptr, like.ptr(), dtype.ptr(), shape.ptr()};
        nb::object placeholder =
            nb::steal(PyObject_Vectorcall(fn, argv + 1, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr));
        if (!placeholder.is_valid()) throw nb::python_error();
        bool native = false;
        nb::object array =
            nb::steal(allocate_placeholder_traced(placeholder.ptr(), "_placeholder_allocate_for_test", "out", &native));
        return nb::make_tuple(array, native ? "c++" : "python");
      },
      nb::arg("like"), nb::arg("dtype").none() = nb::none(), nb::arg("shape").none() = nb::none());
}

}  // namespace triton_jit::python

#include "dtypes.h"

#include "pyutil.h"

namespace nb = nanobind;

namespace triton_jit::python {
namespace {

struct Names {
  PyObject *name, *str;
};
const Names& names() {
  static const Names n{PyUnicode_InternFromString("name"), PyUnicode_InternFromString("str")};
  return n;
}

struct DLType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

// dtype objects seen before, by identity: a call maps its tensors' dtypes without formatting.
struct DTypeEntry {
  PyObject* object;  // strong reference
  DType dtype;
  bool torch_spelling;
};
constexpr int kDTypeCache = 48;
DTypeEntry g_dtypes[kDTypeCache];
int g_num_dtypes = 0;

// A typestr ("<f4", "|b1") as the array interfaces write it.
bool typestr_dtype(std::string_view s, DType* out) {
  if (s.size() < 3 || (s[0] != '<' && s[0] != '|' && s[0] != '=')) return false;
  const char kind = s[1];
  const std::string_view size = s.substr(2);
  auto is = [&](const char* v) { return size == v; };
  switch (kind) {
    case 'b': return is("1") && (*out = DType::u1, true);
    case 'i':
      if (is("1")) return *out = DType::i8, true;
      if (is("2")) return *out = DType::i16, true;
      if (is("4")) return *out = DType::i32, true;
      if (is("8")) return *out = DType::i64, true;
      return false;
    case 'u':
      if (is("1")) return *out = DType::u8, true;
      if (is("2")) return *out = DType::u16, true;
      if (is("4")) return *out = DType::u32, true;
      if (is("8")) return *out = DType::u64, true;
      return false;
    case 'f':
      if (is("2")) return *out = DType::fp16, true;
      if (is("4")) return *out = DType::fp32, true;
      if (is("8")) return *out = DType::fp64, true;
      return false;
    default: return false;
  }
}

bool dtype_of_dlpack_type(DLType t, DType* out) {
  if (t.lanes != 1) return false;
  switch (t.code) {
    case 0:  // int
      if (t.bits == 8) return *out = DType::i8, true;
      if (t.bits == 16) return *out = DType::i16, true;
      if (t.bits == 32) return *out = DType::i32, true;
      if (t.bits == 64) return *out = DType::i64, true;
      return false;
    case 1:  // uint
      if (t.bits == 8) return *out = DType::u8, true;
      if (t.bits == 16) return *out = DType::u16, true;
      if (t.bits == 32) return *out = DType::u32, true;
      if (t.bits == 64) return *out = DType::u64, true;
      return false;
    case 2:  // float
      if (t.bits == 16) return *out = DType::fp16, true;
      if (t.bits == 32) return *out = DType::fp32, true;
      if (t.bits == 64) return *out = DType::fp64, true;
      return false;
    case 4: return t.bits == 16 && (*out = DType::bf16, true);      // bfloat
    case 6: return t.bits == 8 && (*out = DType::u1, true);         // bool
    case 10: return t.bits == 8 && (*out = DType::fp8e4nv, true);   // float8_e4m3fn
    case 11: return t.bits == 8 && (*out = DType::fp8e4b8, true);   // float8_e4m3fnuz
    case 12: return t.bits == 8 && (*out = DType::fp8e5, true);     // float8_e5m2
    case 13: return t.bits == 8 && (*out = DType::fp8e5b16, true);  // float8_e5m2fnuz
    default: return false;
  }
}

// The dtype a dtype object names, read from the object (cold: the result is cached by identity).
bool dtype_of_object(PyObject* o, DType* out, bool* torch_spelling) {
  *torch_spelling = false;
  if (PyUnicode_Check(o)) {
    std::string_view s = PyUnicode_AsUTF8(o);
    if (s.rfind("torch.", 0) == 0) {
      *torch_spelling = true;
      return parse_dtype(s.substr(6), out);
    }
    if (s.rfind("triton.language.", 0) == 0) s.remove_prefix(16);
    return parse_dtype(s, out) || typestr_dtype(s, out);
  }
  if (g_torch_dtype.is(o)) {
    *torch_spelling = true;
    PyObject* s = PyObject_Str(o);  // "torch.float16"
    if (s == nullptr) return PyErr_Clear(), false;
    std::string_view text = PyUnicode_AsUTF8(s);
    const bool ok = text.rfind("torch.", 0) == 0 && parse_dtype(text.substr(6), out);
    Py_DECREF(s);
    return ok;
  }
  if (g_tl_dtype.is(o)) {
    PyObject* name = PyObject_GetAttr(o, names().name);  // "fp16"
    if (name == nullptr) return PyErr_Clear(), false;
    const bool ok = PyUnicode_Check(name) && parse_dtype(PyUnicode_AsUTF8(name), out);
    Py_DECREF(name);
    return ok;
  }
  // numpy's dtype (and objects like it): its typestr, then its name (bfloat16 of ml_dtypes).
  for (PyObject* attr : {names().str, names().name}) {
    PyObject* s = PyObject_GetAttr(o, attr);
    if (s == nullptr) {
      PyErr_Clear();
      continue;
    }
    bool ok = false;
    if (PyUnicode_Check(s)) {
      std::string_view text = PyUnicode_AsUTF8(s);
      ok = typestr_dtype(text, out) || (attr == names().name && parse_dtype(text, out));
    }
    Py_DECREF(s);
    if (ok) return true;
  }
  return false;
}

}  // namespace

bool dtype_of_typestr(std::string_view typestr, DType* out) { return typestr_dtype(typestr, out); }

bool dtype_of_dlpack(uint8_t code, uint8_t bits, uint16_t lanes, DType* out) {
  return dtype_of_dlpack_type(DLType{code, bits, lanes}, out);
}

bool dtype_of(PyObject* dtype, DType* out, bool* torch_spelling) {
  for (int i = 0; i < g_num_dtypes; ++i) {
    if (g_dtypes[i].object == dtype) {
      *out = g_dtypes[i].dtype;
      *torch_spelling = g_dtypes[i].torch_spelling;
      return true;
    }
  }
  if (!dtype_of_object(dtype, out, torch_spelling)) return false;
  // Only long-lived dtype objects are worth remembering (strings could be anything).
  if (g_num_dtypes < kDTypeCache && !PyUnicode_Check(dtype)) {
    Py_INCREF(dtype);
    g_dtypes[g_num_dtypes++] = DTypeEntry{dtype, *out, *torch_spelling};
  }
  return true;
}

}  // namespace triton_jit::python

#include "bridge/bridge.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdio>
#include <deque>

#include "bridge/compile_codec.h"
#include "bridge/hook_descriptors.h"
#include "bridge/interpreter.h"
#include "key/repr.h"
#include "settings/settings.h"
#include "triton_jit/errors.h"

namespace py = pybind11;

namespace triton_jit::bridge {
namespace {

DefaultValue to_default(const py::dict& d) {
  DefaultValue v;
  std::string kind = d["kind"].cast<std::string>();
  v.repr = d["repr"].cast<std::string>();
  v.representable = d["representable"].cast<bool>();
  if (kind == "bool") {
    v.kind = ArgValue::Kind::Bool;
    v.bool_value = d["value"].cast<bool>();
  } else if (kind == "int") {
    py::int_ value = d["value"];
    if (value < py::int_(0)) {
      v.kind = ArgValue::Kind::Int;
      v.int_value = value.cast<int64_t>();
    } else {
      uint64_t u = value.cast<uint64_t>();
      ArgValue a = ArgValue::unsigned_integer(u);
      v.kind = a.kind();
      v.int_value = a.as_int();
      v.uint_value = u;
    }
  } else if (kind == "float") {
    v.kind = ArgValue::Kind::Float;
    v.float_value = d["value"].cast<double>();
  } else if (kind == "string") {
    v.kind = ArgValue::Kind::String;
    v.string_value = d["value"].cast<std::string>();
  } else if (kind == "dtype") {
    // A tl.dtype or torch.dtype: representable when its repr names one of the runtime's dtypes.
    v.representable = detail::parse_python_dtype(v.repr, &v.dtype_value, &v.torch_dtype);
    if (v.representable) v.kind = ArgValue::Kind::DType;
  }
  return v;
}

CompileOptions::Value to_option_value(const py::handle& v) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>();
  if (py::isinstance<py::int_>(v)) return v.cast<int64_t>();
  if (py::isinstance<py::float_>(v)) return v.cast<double>();
  return v.cast<std::string>();
}

AutotuneConfigInfo to_config(const py::dict& c) {
  AutotuneConfigInfo config;
  for (auto item : c["kwargs"].cast<py::list>()) {
    py::tuple kv = item.cast<py::tuple>();
    config.kwargs.emplace_back(kv[0].cast<int>(), to_default(kv[1].cast<py::dict>()));
  }
  for (auto [name, value] : c["options"].cast<py::dict>())
    config.options.set(name.cast<std::string>(), to_option_value(value));
  if (c.contains("num_warps")) config.num_warps = c["num_warps"].cast<int>();
  // triton.Config states num_stages (3 unless given), on AMD too; num_stages=None, which
  // all_kwargs drops, leaves it to the target as a launch without it does.
  config.num_stages = c.contains("num_stages") ? c["num_stages"].cast<int>() : kTargetDefaultNumStages;
  if (c.contains("num_ctas")) config.num_ctas = c["num_ctas"].cast<int>();
  config.has_pre_hook = c["pre_hook"].cast<bool>();
  config.repr = c["repr"].cast<std::string>();
  return config;
}

// A LibTuner layer's own fields (triton_jit_bridge/libtuner.py, describe_libtuner).
void to_libtuner(const py::dict& d, DecoratorLayer* layer) {
  layer->kind = DecoratorLayer::Kind::LibTuner;
  LibTunerInfo& t = layer->libtuner;
  t.strategies = d["strategies"].cast<std::vector<std::string>>();
  t.policy = d["policy"].cast<std::string>();
  t.config_table = d["config_table"].cast<std::string>();
  t.tables = d["tables"].cast<std::vector<std::string>>();
  for (auto config : d["config_columns"].cast<py::list>()) {
    t.config_columns.emplace_back();
    for (auto item : config.cast<py::list>()) {
      py::dict c = item.cast<py::dict>();
      const std::string type = c["type"].cast<std::string>();
      DefaultValue v;
      if (type == "bool") {
        v.kind = ArgValue::Kind::Bool;
        v.bool_value = c["value"].cast<bool>();
      } else if (type == "int") {
        v.kind = ArgValue::Kind::Int;
        v.int_value = c["value"].cast<int64_t>();
      } else if (type == "float") {
        v.kind = ArgValue::Kind::Float;
        v.float_value = c["value"].cast<double>();
      } else {
        v.kind = ArgValue::Kind::String;
        v.string_value = c["value"].cast<std::string>();
      }
      v.repr = py::repr(c["value"]).cast<std::string>();
      t.config_columns.back().emplace_back(c["name"].cast<std::string>(), std::move(v));
    }
  }
  t.triton_major = d["triton_major"].cast<int>();
  t.triton_minor = d["triton_minor"].cast<int>();
  t.vendor = d["vendor"].cast<std::string>();
  t.benchmark_tables = d["benchmark_tables"].cast<std::vector<std::vector<std::string>>>();
  t.benchmark_table_of_config = d["benchmark_table_of_config"].cast<std::vector<uint32_t>>();
}

DecoratorLayer to_layer(const py::dict& d) {
  DecoratorLayer layer;
  if (d["kind"].cast<std::string>() == "python") {
    layer.kind = DecoratorLayer::Kind::Python;
    layer.python.class_name = d["class"].cast<std::string>();
    layer.python.reason = d["reason"].cast<std::string>();
    layer.python.sets = d["sets"].cast<std::vector<int>>();
    return layer;
  }
  if (d["kind"].cast<std::string>() == "heuristics") {
    layer.kind = DecoratorLayer::Kind::Heuristics;
    for (auto item : d["values"].cast<py::list>()) {
      py::dict v = item.cast<py::dict>();
      HeuristicInfo h;
      h.name = v["name"].cast<std::string>();
      h.param = v["param"].cast<int>();
      if (h.param < 0) h.option = heuristic_option_named(h.name);  // a launch option (loading.py)
      h.program = v["program"].cast<std::string>();
      h.not_translated_reason = v["reason"].cast<std::string>();
      h.source = v["source"].cast<std::string>();
      layer.heuristics.push_back(std::move(h));
    }
    return layer;
  }
  if (d["kind"].cast<std::string>() == "libentry") {
    layer.kind = DecoratorLayer::Kind::LibEntry;
    layer.lib_entry.divisibility = d["divisibility"].cast<int>();
    return layer;
  }
  layer.kind = DecoratorLayer::Kind::Autotune;
  AutotuneInfo& a = layer.autotune;
  a.key = d["key"].cast<std::vector<int>>();
  for (auto item : d["configs"].cast<py::list>()) a.configs.push_back(to_config(item.cast<py::dict>()));
  a.reset_to_zero = d["reset_to_zero"].cast<std::vector<int>>();
  a.restore_value = d["restore_value"].cast<std::vector<int>>();
  a.has_pre_hook = d["pre_hook"].cast<bool>();
  a.has_post_hook = d["post_hook"].cast<bool>();
  a.has_perf_model = d["perf_model"].cast<bool>();
  a.has_early_config_prune = d["early_config_prune"].cast<bool>();
  a.top_k = d["top_k"].cast<double>();
  a.warmup_ms = d["warmup"].cast<double>();
  a.rep_ms = d["rep"].cast<double>();
  a.cache_results = d["cache_results"].cast<bool>();
  a.fla_cache_gate = d.contains("fla_cache_gate") && d["fla_cache_gate"].cast<bool>();
  if (d["kind"].cast<std::string>() == "libtuner") to_libtuner(d, &layer);
  return layer;
}

StaticSignature to_signature(const py::dict& s) {
  StaticSignature sig;
  sig.function = s["function"].cast<std::string>();
  sig.file = s["file"].cast<std::string>();
  sig.first_line = s["first_line"].cast<int>();
  for (auto item : s["params"].cast<py::list>()) {
    py::dict p = item.cast<py::dict>();
    ParamInfo info;
    info.name = p["name"].cast<std::string>();
    info.index = p["index"].cast<int>();
    info.is_constexpr = p["is_constexpr"].cast<bool>();
    info.is_const = p["is_const"].cast<bool>();
    info.do_not_specialize = p["do_not_specialize"].cast<bool>();
    info.do_not_specialize_on_alignment = p["do_not_specialize_on_alignment"].cast<bool>();
    info.annotation = p["annotation"].cast<std::string>();
    info.annotation_type = p["annotation_type"].cast<std::string>();
    if (!p["default"].is_none()) info.default_value = to_default(p["default"].cast<py::dict>());
    sig.params.push_back(std::move(info));
  }
  for (auto item : s["decorators"].cast<py::list>()) sig.decorators.push_back(to_layer(item.cast<py::dict>()));
  return sig;
}

// The literal Python reads back as the hint (None, '', 'D', 1) or the constexpr value.
std::string hint_literal(const ParamSpecialization& p) {
  if (p.type == "constexpr") return p.value_repr;
  switch (p.hint) {
    case ParamSpecialization::Hint::NotAligned: return p.pointer_range ? "'S'" : "''";
    case ParamSpecialization::Hint::Divisible16: return p.pointer_range ? "'DS'" : "'D'";
    case ParamSpecialization::Hint::EqualsOne: return "1";
    default: return "None";
  }
}

py::object option_value(const CompileOptions::Value& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return py::int_(*i);
  if (auto* b = std::get_if<bool>(&v)) return py::bool_(*b);
  if (auto* d = std::get_if<double>(&v)) return py::float_(*d);
  return py::str(std::get<std::string>(v));
}

}  // namespace

void pass_preloads(py::module_& b) {
  py::list modules;
  for (const std::string& m : detail::preload_list()) modules.append(m);
  b.attr("set_preload")(modules);
}

namespace {

// The KernelLookupFailure (or any other exception) `e` as the runtime's error about `name` in
// `source`.
[[noreturn]] void throw_lookup_error(py::module_& b, py::error_already_set& e, const std::string& source,
                                     const std::string& name) {
  const std::string what = "cannot get Triton function '" + name + "'";
  if (e.matches(b.attr("KernelLookupFailure"))) {
    py::object value = e.value();
    std::string kind = value.attr("kind").cast<std::string>();
    std::string tb = value.attr("tb").cast<std::string>();
    std::string message = py::str(value).cast<std::string>();
    if (kind == "import_failed" || kind == "preload_failed") message += "\n" + tb;
    if (kind == "bad_decorator") throw ArgumentError(message, name, "");
    if (kind == "preload_failed") {
      throw PreloadError(what + ": " + message, value.attr("module").cast<std::string>(), source, name, tb);
    }
    throw KernelLookupError(what + ": " + message, source, name, tb);
  }
  PythonFailure f = describe(e);
  throw KernelLookupError(what + " from " + source + ": " + f.type + ": " + f.message, source, name, f.traceback);
}

// A file name of bytes that are not UTF-8 (another encoding's) is refused with those bytes shown
// escaped: Python would reject it as the str argument with a bare UnicodeDecodeError.
void require_utf8_path(const std::string& source, const std::string& name) {
  PyObject* text = PyUnicode_DecodeUTF8(source.data(), static_cast<Py_ssize_t>(source.size()), "strict");
  if (text != nullptr) {
    Py_DECREF(text);
    return;
  }
  PyErr_Clear();
  std::string shown;
  for (unsigned char c : source) {
    if (c >= 0x20 && c < 0x7f) {
      shown += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      shown += hex;
    }
  }
  throw KernelLookupError("cannot get Triton function '" + name + "': its file name " + shown +
                              " is not UTF-8 text, which the runtime cannot pass to Python; rename the file "
                              "(its non-ASCII bytes are shown as \\xNN)",
                          shown, name);
}

}  // namespace

LoadedFunction load_function(const std::string& source, const std::string& name) {
  GilGuard gil;
  require_utf8_path(source, name);
  py::module_& b = bridge();
  try {
    pass_preloads(b);
    py::tuple result = b.attr("load_function")(source, name);
    LoadedFunction loaded;
    loaded.function.object = py::object(result[0]).release().ptr();  // owned for the process's life
    loaded.signature = to_signature(result[1].cast<py::dict>());
    py::dict described = result[1].cast<py::dict>();
    if (described.contains("wrapper_files")) {
      loaded.wrapper_files = described["wrapper_files"].cast<std::vector<std::string>>();
    }
    loaded.wrapper.object = py::object(result[2]).release().ptr();
    return loaded;
  } catch (py::error_already_set& e) {
    throw_lookup_error(b, e, source, name);
  }
}

std::string module_file(const std::string& module, const std::string& function) {
  GilGuard gil;
  py::module_& b = bridge();
  try {
    pass_preloads(b);
    return b.attr("module_file")(module).cast<std::string>();
  } catch (py::error_already_set& e) {
    throw_lookup_error(b, e, module_source(module), function);
  }
}

py::list specialization_items(const Specialization& spec) {
  py::list params;
  for (const ParamSpecialization& p : spec.params) params.append(py::make_tuple(p.type, hint_literal(p)));
  return params;
}

py::dict options_dict(const Specialization& spec, const CompileOptions* options) {
  py::dict opts;
  opts["num_warps"] = spec.num_warps;
  opts["num_stages"] = spec.num_stages;
  opts["num_ctas"] = spec.num_ctas;
  if (options != nullptr) {
    for (const auto& [name, value] : options->items()) opts[py::str(name)] = option_value(value);
  }
  return opts;
}

namespace {

// Reading the fields of TRITON_JIT_KERNEL_FIELDS from the bridge's result dict, one per kind.
void take(const py::handle& v, std::string& out) { out = v.cast<std::string>(); }
void take(const py::handle& v, int& out) { out = v.cast<int>(); }
void take(const py::handle& v, int64_t& out) { out = v.cast<int64_t>(); }
void take(const py::handle& v, bool& out) { out = v.cast<bool>(); }
void take(const py::handle& v, int (&out)[3]) {
  const auto dims = v.cast<std::vector<int>>();
  for (size_t i = 0; i < 3; ++i) out[i] = i < dims.size() ? dims[i] : 1;
}
void take(const py::handle& v, std::vector<std::string>& out) { out = v.cast<std::vector<std::string>>(); }
void take(const py::handle& v, std::vector<detail::DescriptorMeta>& out) {
  for (auto item : v.cast<py::list>()) {
    py::dict d = item.cast<py::dict>();
    detail::DescriptorMeta m;
    m.swizzle = d["swizzle"].cast<int>();
    m.elem_size = d["elem_size"].cast<int>();
    m.elem_type = d["elem_type"].cast<int>();
    m.block_size = d["block_size"].cast<std::vector<int>>();
    m.fp4_padded = d["fp4_padded"].cast<bool>();
    out.push_back(std::move(m));
  }
}
void take(const py::handle& v, Target& out) {
  py::sequence t = v.cast<py::sequence>();
  out.backend = t[0].cast<std::string>();
  out.arch = t[1].cast<int>();
  out.warp_size = t[2].cast<int>();
}

}  // namespace

CompileResult to_compiled(const py::dict& r, const StaticSignature& /*signature*/, const std::string& /*spec_text*/,
                          const std::string& /*key*/) {
  CompileResult c;
  detail::CompiledKernel& k = c.kernel;
#define TRITON_JIT_TAKE_FIELD(P, field, kind)                                                                  \
  if (!r.contains(#field)) {                                                                                   \
    throw PythonError(std::string("the bridge's compile result has no field '") + #field +                     \
                          "' (src/kernel/kernel_fields.h lists the fields triton_jit_bridge.compile returns)", \
                      "");                                                                                     \
  }                                                                                                            \
  take(r[#field], TRITON_JIT_KERNEL_PART(k, P).field);
  TRITON_JIT_KERNEL_FIELDS(TRITON_JIT_TAKE_FIELD)
#undef TRITON_JIT_TAKE_FIELD
  c.dependency_files = r["dependencies"].cast<std::vector<std::string>>();
  c.triton_file = r["triton_file"].cast<std::string>();
  return c;
}

CompileError to_compile_error(const py::tuple& d, const StaticSignature& signature, const std::string& spec_text,
                              const std::string& key, const Target& target) {
  std::string type = d[0].cast<std::string>();
  std::string message = d[1].cast<std::string>();
  std::string file = d[2].cast<std::string>();
  int line = d[3].cast<int>();
  std::string tb = d[4].cast<std::string>();
  return CompileError("compiling " + signature.function + " [" + spec_text + "] for " + target.str() + " failed at " +
                          file + ":" + std::to_string(line) + ": " + type + ": " + message,
                      signature.function, spec_text, key, file, line, type, tb);
}

CompileResult compile(PyHandle function, const StaticSignature& signature, const Specialization& spec,
                      const std::string& key, const CompileOptions* options, const Target& target) {
  GilGuard gil;
  py::module_& b = bridge();
  py::object fn = py::reinterpret_borrow<py::object>(static_cast<PyObject*>(function.object));
  const std::string spec_text = spec.signature();
  try {
    py::dict r = b.attr("compile")(fn, b.attr("specialization")(specialization_items(spec)),
                                   options_dict(spec, options),
                                   py::make_tuple(target.backend, target.arch, target.warp_size));
    return to_compiled(r, signature, spec_text, key);
  } catch (py::error_already_set& e) {
    throw to_compile_error(b.attr("describe_exception")(e.value(), fn), signature, spec_text, key, target);
  }
}

void check_compile_request(const std::string& function, const CompileOptions* options, const Target& target) {
  GilGuard gil;
  py::module_& b = bridge();
  py::dict opts;
  if (options != nullptr) {
    for (const auto& [name, value] : options->items()) opts[py::str(name)] = option_value(value);
  }
  py::object problem;
  try {
    problem = b.attr("check_compile_request")(opts, py::make_tuple(target.backend, target.arch, target.warp_size));
  } catch (py::error_already_set& e) {
    // The check only asks Triton what it supports; a failure here is left to the compile to report.
    return;
  }
  if (problem.is_none()) return;
  py::tuple t = problem.cast<py::tuple>();
  throw ArgumentError(function + ": " + t[1].cast<std::string>(), function, t[0].cast<std::string>());
}

bool hip_buffer_ops(const Target& target) {
  GilGuard gil;
  py::module_& b = bridge();
  py::tuple rules;
  try {
    rules = b.attr("hip_target_rules")(py::make_tuple(target.backend, target.arch, target.warp_size));
  } catch (py::error_already_set& e) {
    throw Error("asking the installed Triton about " + target.str() + " failed: " + std::string(e.what()));
  }
  if (!rules[0].is_none()) throw ArgumentError(rules[0].cast<std::string>(), "", "target");
  return rules[1].cast<bool>();
}

int target_default_num_stages(const Target& target) {
  GilGuard gil;
  try {
    return bridge()
        .attr("target_default_num_stages")(py::make_tuple(target.backend, target.arch, target.warp_size))
        .cast<int>();
  } catch (py::error_already_set& e) {
    throw Error("asking the installed Triton for " + target.str() +
                "'s default num_stages failed: " + std::string(e.what()));
  }
}

ScopedGilRelease::ScopedGilRelease() {
  if (Py_IsInitialized() && PyGILState_Check()) saved_ = PyEval_SaveThread();
}

ScopedGilRelease::~ScopedGilRelease() {
  if (saved_ != nullptr) PyEval_RestoreThread(static_cast<PyThreadState*>(saved_));
}

std::string triton_version() {
  GilGuard gil;
  try {
    return bridge().attr("triton_version")().cast<std::string>();
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw PythonError("reading triton's version failed: " + f.message, f.traceback);
  }
}

PyHandle decorator_callable(PyHandle wrapper, size_t layer, const std::string& name) {
  GilGuard gil;
  py::object f = bridge().attr("decorator_callable")(py::handle(static_cast<PyObject*>(wrapper.object)), layer, name);
  return PyHandle{f.release().ptr()};  // owned for the process's life, as the wrapper is
}

std::optional<std::string> translate_heuristic(PyHandle func, const StaticSignature& sig, std::string* reason) {
  GilGuard gil;
  py::module_& b = bridge();
  py::object fn = py::reinterpret_borrow<py::object>(static_cast<PyObject*>(func.object));
  py::list names;
  for (const ParamInfo& p : sig.params) names.append(p.name);
  try {
    py::tuple r = b.attr("translate_heuristic")(fn, names);
    if (r[0].is_none()) {
      if (reason != nullptr) *reason = r[1].cast<std::string>();
      return std::nullopt;
    }
    if (reason != nullptr) reason->clear();
    return r[0].cast<std::string>();
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    if (reason != nullptr) *reason = "the translator failed: " + f.type + ": " + f.message;
    return std::nullopt;
  }
}

// An argument as a heuristic sees it in Python (and a launch hook, from C++).
py::object heuristic_arg(py::module_& b, const ArgValue& a) {
  using K = ArgValue::Kind;
  switch (a.kind()) {
    case K::None: return py::none();
    case K::Bool: return py::bool_(a.as_bool());
    case K::Int: return py::int_(a.as_int());
    case K::UInt: return py::int_(a.as_uint());
    case K::Float: return py::float_(a.as_float());
    case K::String: {
      const std::string_view s = a.as_string();
      PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
      if (o == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(o);
    }
    case K::DType: {
      const std::string repr = detail::python_dtype_repr(a.dtype(), a.is_torch_dtype());
      return b.attr("_constexpr_value")(repr.empty() ? std::string(dtype_name(a.dtype())) : repr);
    }
    case K::Pointer: return b.attr("TensorArg")(py::int_(a.address()), std::string(dtype_name(a.dtype())));
    default: return b.attr("OpaqueArg")("tensor descriptor of " + std::string(dtype_name(a.dtype())));
  }
}

HeuristicCall call_heuristic(PyHandle func, const StaticSignature& sig, std::string_view heuristic_name,
                             const ArgValue* args, size_t n) {
  GilGuard gil;
  py::module_& b = bridge();
  py::object fn = py::reinterpret_borrow<py::object>(static_cast<PyObject*>(func.object));
  const std::string name(heuristic_name);
  const std::string what = "heuristic '" + name + "' of " + sig.function;
  py::list names, values;
  py::tuple r;
  try {
    for (size_t i = 0; i < n && i < sig.params.size(); ++i) {
      names.append(sig.params[i].name);
      values.append(heuristic_arg(b, args[i]));
    }
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw ArgumentError(what + ": its arguments cannot be made Python values: " + f.type + ": " + f.message,
                        sig.function, name);
  }
  try {
    r = b.attr("call_heuristic")(fn, names, values);
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw ArgumentError(what + " raised " + f.type + ": " + f.message + "\n" + f.traceback, sig.function, name);
  }
  HeuristicCall call;
  py::dict d;
  try {
    d = b.attr("heuristic_result_description")(r[0]);
    call.result = to_default(d);
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw ArgumentError(what + ": reading its result failed: " + f.type + ": " + f.message, sig.function, name);
  }
  if (!call.result.representable) {
    throw ArgumentError(what + " returned " + d["type"].cast<std::string>() + " " + call.result.repr +
                            ", which cannot be a constexpr: a heuristic must return an int (-2**63 to 2**64 - 1), "
                            "float, bool, None, str or dtype",
                        sig.function, name);
  }
  for (auto item : r[1]) {
    const int index = sig.find(item.cast<std::string>());
    if (index >= 0) call.params_read.push_back(static_cast<uint32_t>(index));
  }
  std::sort(call.params_read.begin(), call.params_read.end());
  return call;
}

std::optional<size_t> autotune_cache_lookup(PyHandle wrapper, size_t layer, const std::string& key_repr,
                                            const Target& target) {
  GilGuard gil;
  try {
    py::object r = bridge().attr("autotune_cache_lookup")(
        py::handle(static_cast<PyObject*>(wrapper.object)), layer, key_repr,
        py::make_tuple(target.backend, target.arch, target.warp_size));
    if (r.is_none()) return std::nullopt;
    return r.cast<size_t>();
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw PythonError("reading Triton's autotuning cache failed: " + f.type + ": " + f.message, f.traceback);
  }
}

void autotune_cache_store(PyHandle wrapper, size_t layer, const std::string& key_repr, const Target& target,
                          const std::vector<std::array<double, 3>>& timings) {
  GilGuard gil;
  py::list rows;
  for (const auto& t : timings) rows.append(py::make_tuple(t[0], t[1], t[2]));
  try {
    bridge().attr("autotune_cache_store")(py::handle(static_cast<PyObject*>(wrapper.object)), layer, key_repr,
                                          py::make_tuple(target.backend, target.arch, target.warp_size), rows);
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw PythonError("writing Triton's autotuning cache failed: " + f.type + ": " + f.message, f.traceback);
  }
}

std::vector<size_t> prune_autotune_configs(PyHandle wrapper, size_t layer, const StaticSignature& sig,
                                           const ArgValue* args, size_t num_args) {
  GilGuard gil;
  py::module_& b = bridge();
  py::list names, values;
  try {
    for (size_t i = 0; i < num_args && i < sig.params.size(); ++i) {
      names.append(sig.params[i].name);
      values.append(heuristic_arg(b, args[i]));
    }
    py::object kept = b.attr("prune_autotune_configs")(py::handle(static_cast<PyObject*>(wrapper.object)), layer, names,
                                                       values);
    return kept.cast<std::vector<size_t>>();
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw ArgumentError(
        sig.function + ": autotune's prune_configs_by raised " + f.type + ": " + f.message + "\n" + f.traceback,
        sig.function, "");
  }
}

namespace {

// The names and values of `params` as autotune's hooks (and a LibTuner policy) see them: pointers
// as torch tensors over their memory where torch has CUDA (hook_tensor), the rest as heuristics do.
void hook_values(py::module_& b, const StaticSignature& sig, const ArgValue* args, const std::vector<uint32_t>& params,
                 py::list* names, py::list* values) {
  for (uint32_t p : params) {
    const ArgValue& a = args[p];
    names->append(sig.params[p].name);
    if (a.kind() == ArgValue::Kind::Pointer) {
      values->append(b.attr("hook_tensor")(py::int_(a.address()), std::string(dtype_name(a.dtype())),
                                           py::int_(a.extent()), sig.params[p].name));
    } else if (a.kind() == ArgValue::Kind::TensorDesc) {
      values->append(hook_descriptor(b, *a.as_tensor_descriptor(), sig.params[p].name));
    } else {
      values->append(heuristic_arg(b, a));
    }
  }
}

}  // namespace

PyHandle autotune_hook_args(PyHandle wrapper, size_t layer, size_t config, const StaticSignature& sig,
                            const ArgValue* args, const std::vector<uint32_t>& params, size_t num_passed,
                            const Grid& grid) {
  GilGuard gil;
  py::module_& b = bridge();
  try {
    py::list names, values;
    hook_values(b, sig, args, params, &names, &values);
    py::object d = b.attr("autotune_hook_args")(py::handle(static_cast<PyObject*>(wrapper.object)), layer, config,
                                                names, values, num_passed, py::make_tuple(grid.x, grid.y, grid.z));
    return PyHandle{d.release().ptr()};
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw ArgumentError(sig.function + ": the arguments of autotune's hooks cannot be made Python values: " + f.type +
                            ": " + f.message + "\n" + f.traceback,
                        sig.function, "");
  }
}

void call_autotune_hook(PyHandle wrapper, size_t layer, size_t config, AutotuneHook hook, PyHandle hook_args,
                        const StaticSignature& sig, void* stream, bool reset_only, const std::string* exception) {
  GilGuard gil;
  const char* which = hook == AutotuneHook::ConfigPreHook ? "config_pre_hook"
                      : hook == AutotuneHook::PreHook     ? "pre_hook"
                                                          : "post_hook";
  try {
    bridge().attr("call_autotune_hook")(
        py::handle(static_cast<PyObject*>(wrapper.object)), layer, config, which,
        py::handle(static_cast<PyObject*>(hook_args.object)), py::int_(reinterpret_cast<uintptr_t>(stream)), reset_only,
        exception != nullptr ? py::object(py::str(*exception)) : py::object(py::none()));
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    const std::string name = hook_name(hook);
    const std::string whose = hook == AutotuneHook::ConfigPreHook
                                  ? "the pre_hook of autotune config [" + std::to_string(config) + "]"
                                  : "autotune's " + name;
    throw ArgumentError(sig.function + ": " + whose + " raised " + f.type + ": " + f.message + "\n" + f.traceback,
                        sig.function, name);
  }
}

uint32_t run_libtuner_policy(PyHandle wrapper, size_t layer, const StaticSignature& sig, const ArgValue* args,
                             const std::vector<uint32_t>& params, size_t num_passed, const std::vector<size_t>& kept,
                             const std::function<std::array<double, 3>(uint32_t)>& bench) {
  GilGuard gil;
  py::module_& b = bridge();
  // What the runtime's timing throws crosses Python as an exception and is thrown again here, as
  // itself: a CudaError stays a CudaError.
  std::exception_ptr bench_error;
  try {
    py::list names, values;
    hook_values(b, sig, args, params, &names, &values);
    py::cpp_function bench_fn([&](uint32_t config) -> py::tuple {
      std::array<double, 3> t{};
      try {
        py::gil_scoped_release release;  // timing may run Python hooks, which take the GIL again
        t = bench(config);
      } catch (...) {
        bench_error = std::current_exception();
        throw py::value_error("the runtime's timing of config [" + std::to_string(config) + "] failed");
      }
      return py::make_tuple(t[0], t[1], t[2]);
    });
    py::object chosen = b.attr("run_libtuner_policy")(py::handle(static_cast<PyObject*>(wrapper.object)), layer,
                                                      names, values, num_passed, py::cast(kept), bench_fn);
    return chosen.cast<uint32_t>();
  } catch (py::error_already_set& e) {
    if (bench_error) std::rethrow_exception(bench_error);
    PythonFailure f = describe(e);
    throw ArgumentError(sig.function + ": the LibTuner policy raised " + f.type + ": " + f.message + "\n" + f.traceback,
                        sig.function, "policy");
  }
}

namespace {

// A value Triton's `meta` dict gives a grid function back as the runtime's argument: what the
// wrapper set (constexprs, launch options) or the caller's own (kept: a tensor stays its pointer).
bool from_python_meta(const py::handle& v, ArgValue* out, std::deque<std::string>* strings) {
  if (v.is_none()) {
    *out = ArgValue::none();
  } else if (py::isinstance<py::bool_>(v)) {
    *out = ArgValue::boolean(v.cast<bool>());
  } else if (py::isinstance<py::int_>(v)) {
    py::int_ i = py::reinterpret_borrow<py::int_>(v);
    *out = i < py::int_(0) ? ArgValue::integer(i.cast<int64_t>()) : ArgValue::unsigned_integer(i.cast<uint64_t>());
  } else if (py::isinstance<py::float_>(v)) {
    *out = ArgValue::floating(v.cast<double>());
  } else if (py::isinstance<py::str>(v)) {
    strings->push_back(v.cast<std::string>());
    *out = ArgValue::string(strings->back());
  } else {
    return false;
  }
  return true;
}

// config.grid_fn as the callable Triton's JITFunction.run calls with its dict of the call's
// arguments: the C++ function sees a GridMeta of the caller's arguments with what the dict holds
// for each parameter (the wrapper's constexprs) and its launch options.
py::object python_grid_fn(const StaticSignature& sig, const std::vector<uint32_t>& params, const ArgValue* args,
                          size_t num_args, const LaunchConfig& config) {
  std::vector<ArgValue> given(sig.params.size(), ArgValue::none());
  for (size_t i = 0; i < num_args && i < params.size(); ++i) given[params[i]] = args[i];
  auto grid_fn = config.grid_fn;
  const StaticSignature* signature = &sig;
  return py::cpp_function([signature, given, grid_fn](py::dict meta) {
    std::vector<ArgValue> full = given;
    std::deque<std::string> strings;
    for (size_t p = 0; p < full.size(); ++p) {
      const char* name = signature->params[p].name.c_str();
      if (meta.contains(name)) from_python_meta(meta[name], &full[p], &strings);
    }
    const auto option = [&](const char* name, int fallback) {
      return meta.contains(name) && py::isinstance<py::int_>(meta[name]) ? meta[name].cast<int>() : fallback;
    };
    // A meta without num_stages leaves it to the target: the caller's grid_fn resolves it
    // (decorators/python_wrapper.cpp).
    const Grid g = grid_fn(GridMeta(*signature, full.data(), option("num_warps", kDefaultNumWarps),
                                    option("num_stages", kTargetDefaultNumStages),
                                    option("num_ctas", kDefaultNumCtas)));
    return py::make_tuple(g.x, g.y, g.z);
  });
}

}  // namespace

void run_python_wrapper(PyHandle wrapper, const StaticSignature& sig, const std::vector<uint32_t>& params,
                        const ArgValue* args, size_t num_args, const LaunchConfig& config) {
  GilGuard gil;
  py::module_& b = bridge();
  const std::string what = sig.function + ": its wrapper's own run";
  py::list names, values;
  py::dict options;
  py::object grid;
  size_t num_positional = 0;
  try {
    for (size_t i = 0; i < num_args && i < params.size(); ++i) {
      const uint32_t p = params[i];
      const ArgValue& a = args[i];
      names.append(sig.params[p].name);
      if (a.kind() == ArgValue::Kind::Pointer) {
        values.append(b.attr("wrapper_argument")(py::int_(a.address()), std::string(dtype_name(a.dtype())),
                                                 py::int_(a.extent()), sig.params[p].name));
      } else {
        values.append(heuristic_arg(b, a));
      }
      if (num_positional == i && p == i) ++num_positional;
    }
    // Only what the caller changed: a wrapper that sets them itself (an autotuner's config) would
    // get them twice, as Triton's kernel[grid](..., num_warps=...) on an autotuned kernel does.
    if (config.num_warps != kDefaultNumWarps) options["num_warps"] = config.num_warps;
    if (config.num_stages != kTargetDefaultNumStages) options["num_stages"] = config.num_stages;
    if (config.num_ctas != kDefaultNumCtas) options["num_ctas"] = config.num_ctas;
    if (config.options != nullptr) {
      for (const auto& [name, value] : config.options->items()) options[py::str(name)] = option_value(value);
    }
    grid = config.grid_fn ? python_grid_fn(sig, params, args, num_args, config)
                          : py::object(py::make_tuple(config.grid.x, config.grid.y, config.grid.z));
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw ArgumentError(what + ": its arguments cannot be made Python values: " + f.type + ": " + f.message,
                        sig.function, "");
  }
  try {
    b.attr("run_wrapper")(py::handle(static_cast<PyObject*>(wrapper.object)), names, values, num_positional, grid,
                          options, py::int_(reinterpret_cast<uintptr_t>(config.stream)));
  } catch (py::error_already_set& e) {
    PythonFailure f = describe(e);
    throw ArgumentError(what + " raised " + f.type + ": " + f.message + "\n" + f.traceback, sig.function, "");
  }
}

void release(PyHandle object) noexcept {
  if (object.object == nullptr) return;
  GilGuard gil;
  Py_DECREF(static_cast<PyObject*>(object.object));
}

}  // namespace triton_jit::bridge

#include "kernel.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <structmember.h>

#include <array>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "convert.h"
#include "deferred_launch.h"
#include "errors.h"
#include "placeholder.h"
#include "pyutil.h"
#include "triton_jit/errors.h"
#include "triton_jit/launch_hooks.h"
#include "triton_jit/settings.h"
#include "types.h"

namespace nb = nanobind;

namespace triton_jit::python {

// A set of extra compile options seen before, kept with the Python values it was built from: a
// call with the same options reuses it (a launch only reads its precomputed hash).
struct OptionsEntry {
  std::vector<std::pair<nb::object, nb::object>> items;  // (name, value), in the call's order
  CompileOptions options;
};

namespace {

constexpr size_t kInlineArgs = 64;  // more parameters than this use the heap

PyObject* g_num_warps;
PyObject* g_num_stages;
PyObject* g_num_ctas;
PyObject* g_stream;
PyObject* g_cuda_stream;
PyObject* g_ptr;

bool same_name(PyObject* a, PyObject* b) {
  return a == b || (PyUnicode_Check(a) && PyUnicode_Check(b) && PyUnicode_Compare(a, b) == 0);
}

[[noreturn]] void fail_call(const Kernel& k, const std::string& parameter, const std::string& message) {
  throw ArgumentError(k.name() + ": " + message, k.name(), parameter);
}

// `value` as a long long, or nullopt when it is outside that range (no Python error left set).
std::optional<long long> as_long_long(PyObject* value) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow != 0) return std::nullopt;
  if (v == -1 && PyErr_Occurred()) throw nb::python_error();
  return v;
}

// num_warps, num_stages or num_ctas. Values that fit an int are checked with the others when the
// call is specialized; larger ones would wrap (2**32 + 4 was 4 warps), so they stop here.
int as_int_option(const Kernel& k, PyObject* name, PyObject* value) {
  if (!PyLong_Check(value) || PyBool_Check(value)) {
    const std::string option = PyUnicode_AsUTF8(name);
    fail_call(k, option, option + " must be an int, not " + Py_TYPE(value)->tp_name);
  }
  const std::optional<long long> v = as_long_long(value);
  // A negative num_stages would read as the runtime's kTargetDefaultNumStages: None says that.
  const long long least = same_name(name, g_num_stages) ? 0 : std::numeric_limits<int>::min();
  if (!v || *v < least || *v > std::numeric_limits<int>::max()) {
    const std::string option = PyUnicode_AsUTF8(name);
    const char* range = same_name(name, g_num_warps)    ? "a power of two in 1..64"
                        : same_name(name, g_num_stages) ? "in 0..255 (None: the target's default)"
                                                        : "in 1..16";
    fail_call(k, option, option + "=" + repr_of(value) + " is out of range: " + option + " must be " + range);
  }
  return static_cast<int>(*v);
}

CompileOptions::Value option_value(const Kernel& k, PyObject* name, PyObject* value) {
  if (PyBool_Check(value)) return value == Py_True;
  if (PyLong_Check(value)) {
    const std::optional<long long> v = as_long_long(value);
    if (!v) {
      const std::string option = PyUnicode_AsUTF8(name);
      fail_call(k, option,
                "the compile option " + option + "=" + repr_of(value) +
                    " is out of range: an int option holds a 64-bit signed integer");
    }
    return static_cast<int64_t>(*v);
  }
  if (PyFloat_Check(value)) return PyFloat_AS_DOUBLE(value);
  if (PyUnicode_Check(value)) return std::string(PyUnicode_AsUTF8(value));
  fail_call(k, "",
            "the compile option " + std::string(PyUnicode_AsUTF8(name)) + " must be a bool, int, float or str, not " +
                Py_TYPE(value)->tp_name);
}

// A stream given as `stream=`: a raw handle (int), or a framework's stream object (torch's
// .cuda_stream, CuPy's .ptr, or the __cuda_stream__ protocol).
uint64_t stream_handle(const Kernel& k, PyObject* s) {
  // A handle is a pointer: one outside 0..2**64-1 is refused, not left as a pending OverflowError.
  auto handle = [&](PyObject* v) -> uint64_t {
    const unsigned long long h = PyLong_AsUnsignedLongLong(v);
    if (h == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      fail_call(k, "stream",
                "stream= handle " + repr_of(v) + " is out of range: a CUDA stream handle is in 0..2**64-1");
    }
    return h;
  };
  if (PyLong_Check(s)) return handle(s);
  for (PyObject* attr : {g_cuda_stream, g_ptr}) {
    nb::object v = nb::steal(PyObject_GetAttr(s, attr));
    if (v.is_valid() && PyLong_Check(v.ptr())) return handle(v.ptr());
    PyErr_Clear();
  }
  nb::object proto = nb::steal(PyObject_GetAttrString(s, "__cuda_stream__"));
  if (proto.is_valid()) {
    nb::object r = proto();
    if (PyTuple_Check(r.ptr()) && PyTuple_GET_SIZE(r.ptr()) == 2 && PyLong_Check(PyTuple_GET_ITEM(r.ptr(), 1))) {
      return handle(PyTuple_GET_ITEM(r.ptr(), 1));
    }
  }
  PyErr_Clear();
  fail_call(k, "",
            std::string("stream= must be a stream handle (int) or a stream object (torch.cuda.Stream, ") +
                "cupy.cuda.Stream, or one with __cuda_stream__), not " + Py_TYPE(s)->tp_name);
}

Grid grid_of(const Kernel& k, PyObject* g) {
  auto dim = [&](PyObject* v, const char* axis) -> int64_t {
    const long long x = PyLong_AsLongLong(v);
    if (x != -1 || !PyErr_Occurred()) return x;
    PyErr_Clear();
    nb::object index = nb::steal(PyNumber_Index(v));
    if (!index.is_valid()) {
      PyErr_Clear();
      fail_call(k, "", std::string("a grid holds ints, not ") + Py_TYPE(v)->tp_name);
    }
    const std::optional<long long> i = as_long_long(index.ptr());
    if (!i) {
      // The device's own limits are checked at launch; this is only what no grid can be.
      throw LaunchConfigError(k.name() + ": grid dimension " + axis + " = " + repr_of(index.ptr()) +
                              " is out of range: CUDA launches at most 2147483647 (2**31-1) blocks in x and 65535 "
                              "in y and z, none negative");
    }
    return *i;
  };
  if (PyTuple_Check(g) || PyList_Check(g)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(g);
    if (n < 1 || n > 3) fail_call(k, "", "a grid has 1 to 3 dimensions, not " + std::to_string(n));
    PyObject** items = PySequence_Fast_ITEMS(g);
    Grid grid;
    grid.x = dim(items[0], "x");
    if (n > 1) grid.y = dim(items[1], "y");
    if (n > 2) grid.z = dim(items[2], "z");
    return grid;
  }
  if (PyLong_Check(g)) {
    Grid grid;
    grid.x = dim(g, "x");
    return grid;
  }
  fail_call(k, "",
            std::string("the grid must be a tuple of up to three ints or a callable returning one, not ") +
                Py_TYPE(g)->tp_name);
}

// One Kernel per function, as the runtime keeps one function per (file, name): jit(f) is jit(f),
// and its option cache is shared. Functions live as long as the process; so do their Kernels.
std::unordered_map<const TritonJitFunction*, nb::object>& kernel_registry() {
  static auto* kernels = new std::unordered_map<const TritonJitFunction*, nb::object>();
  return *kernels;
}

}  // namespace

// One call's arguments and options, on the stack.
struct Kernel::Call {
  // Left uninitialized: only the first `count` are written, then read.
  union Values {
    Values() {}
    ArgValue v[kInlineArgs];
  } inline_values;
  PyObject* inline_objects[kInlineArgs];  // borrowed: the caller's
  std::vector<ArgValue> heap_values;
  std::vector<PyObject*> heap_objects;
  ArgValue* values = nullptr;
  PyObject** objects = nullptr;
  size_t count = 0;  // arguments given, up to the last one passed
  LaunchConfig config;
  PyObject* stream = nullptr;
  // Extra compile options, borrowed from kwargs.
  std::array<std::pair<PyObject*, PyObject*>, 8> extra;
  size_t num_extra = 0;
  std::optional<CompileOptions> own_options;  // when the cache is full
  ConvertContext ctx;
  PyObject* grid_callable = nullptr;
  // With Triton's launch hooks set: the list [objects by parameter name, grid as given or as the
  // grid callable returned it] that a kernel's launch_metadata sees (launch_hooked).
  PyObject* hook_call = nullptr;
  // triton_jit.empty_like placeholders: allocated where the call allows it, refused where its
  // caller could never get the output back.
  PlaceholderUse placeholders = PlaceholderUse::Allocate;
  // The arrays allocated for placeholders, in parameter order (new references; empty, and never
  // allocated, for a call without placeholders): the call's result, else released with it.
  std::vector<std::pair<PyObject*, PyObject*>> outputs;  // (placeholder, array)

  Call() = default;
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;
  ~Call() {
    for (const auto& [placeholder, array] : outputs) Py_DECREF(array);
  }
  // What the launch returns: nullptr (None) without placeholders, the array for one, a tuple for
  // several. A new reference; the call keeps none.
  PyObject* take_outputs() {
    if (outputs.empty()) return nullptr;
    PyObject* result;
    if (outputs.size() == 1) {
      result = outputs[0].second;
    } else {
      result = PyTuple_New(static_cast<Py_ssize_t>(outputs.size()));
      if (result == nullptr) throw nb::python_error();
      for (size_t i = 0; i < outputs.size(); ++i) {
        PyTuple_SET_ITEM(result, static_cast<Py_ssize_t>(i), outputs[i].second);
      }
    }
    outputs.clear();  // the references moved to the result
    return result;
  }
};

PyObject* Kernel::bind_placeholder(Call& c, size_t i, PyObject* placeholder) {
  const std::string& param = *names_[i];
  if (c.placeholders == PlaceholderUse::RefuseDeferred) {
    fail_placeholder(placeholder, name(), param,
                     "was passed to a launch inside jax.jit, which allocates no output: declare it with "
                     "triton_jit.empty(shape, like=x) and read out.value after the launch");
  }
  if (c.placeholders == PlaceholderUse::RefuseInstalled) {
    // A TypeError, not an ArgumentError: install()'s run would hand an ArgumentError to Triton's
    // run, whose binder fails on the placeholder without naming the kernel.
    const std::string message = "argument '" + param + "' of " + name() + ": " + repr_of(placeholder) +
                                " was passed to Triton's own launch (kernel[grid](...) under triton_jit.install()), "
                                "which returns no output: launch with triton_jit.jit(kernel)[grid](...) to get it, "
                                "or pass an array allocated beforehand";
    PyErr_SetString(PyExc_TypeError, message.c_str());
    throw nb::python_error();
  }
  if (fn_->signature().params[binder_->caller_params()[i]].is_constexpr) {
    fail_placeholder(placeholder, name(), param,
                     "was passed for a tl.constexpr parameter: a placeholder stands for an output array, passed for a "
                     "pointer parameter; pass the constexpr's value");
  }
  // The same placeholder for two parameters is one array.
  for (const auto& [seen, array] : c.outputs) {
    if (seen == placeholder) return array;
  }
  PyObject* array = allocate_placeholder(placeholder, name(), param);
  c.outputs.emplace_back(placeholder, array);
  return array;
}

Kernel::Kernel(TritonJitFunction& fn) { init(fn); }

Kernel::Kernel(nb::object triton_object, nb::object resolve)
    : triton_object_(std::move(triton_object)), resolve_(std::move(resolve)) {}

void Kernel::resolve() {
  nb::tuple where = nb::cast<nb::tuple>(resolve_(triton_object_));
  init(TritonJitFunction::get(nb::cast<std::string>(where[0]), nb::cast<std::string>(where[1])));
  resolve_ = nb::object();
  // Later jit() and kernel() calls for this function return this object.
  nb::handle self = nb::find(this);
  if (self.is_valid()) kernel_registry().emplace(fn_, nb::borrow(self));
}

void Kernel::init(TritonJitFunction& fn) {
  fn_ = &fn;
  binder_ = &fn.binder();
  decorated_ = binder_->decorated();
  for (const DecoratorLayer& layer : fn.signature().decorators) {
    if (layer.kind == DecoratorLayer::Kind::Python) {
      need_bytes_ = true;  // the wrapper's own run gets tensors over the caller's buffers
    } else if (layer.tunes()) {
      if (!layer.autotune.reset_to_zero.empty() || !layer.autotune.restore_value.empty()) need_bytes_ = true;
      if (layer.autotune.fla_cache_gate) need_bytes_ = true;  // may run through Python (FLA_CACHE_MODE)
    }
  }
  for (uint32_t p : binder_->caller_params()) {
    const std::string& name = fn.signature().params[p].name;
    names_.push_back(&name);
    py_names_.push_back(nb::steal(PyUnicode_InternFromString(name.c_str())));
    const ArgValue* d = binder_->caller_default(names_.size() - 1);
    py_defaults_.push_back(d != nullptr ? nb::steal(arg_to_python(*d)) : nb::object());
  }
}

std::vector<std::string> Kernel::arg_names() {
  const Binder& b = fn().binder();
  std::vector<std::string> names;
  for (uint32_t p : b.caller_params()) names.push_back(b.signature().params[p].name);
  return names;
}

Kernel::~Kernel() = default;

void Kernel::prepare(Call& c, PyObject* const* args, size_t nargs, PyObject* kwnames, bool launching,
                     uint64_t skip_keywords) {
  if (fn_ == nullptr) resolve();
  const Binder& b = *binder_;
  const size_t n = py_names_.size();
  if (nargs > n) b.fail_too_many_positional(name(), nargs);
  if (n <= kInlineArgs) {
    c.values = c.inline_values.v;
    c.objects = c.inline_objects;
  } else {
    c.heap_values.resize(n);
    c.heap_objects.resize(n);
    c.values = c.heap_values.data();
    c.objects = c.heap_objects.data();
  }
  for (size_t i = 0; i < nargs; ++i) c.objects[i] = args[i];
  for (size_t i = nargs; i < n; ++i) c.objects[i] = nullptr;
  c.count = nargs;

  const Py_ssize_t num_keywords = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  size_t next = nargs;  // where the search for the next keyword starts: callers name them in order
  for (Py_ssize_t kw = 0; kw < num_keywords; ++kw) {
    if (kw < 64 && ((skip_keywords >> kw) & 1) != 0) continue;
    PyObject* key = PyTuple_GET_ITEM(kwnames, kw);
    PyObject* value = args[nargs + static_cast<size_t>(kw)];
    // By identity of the interned name (a keyword written in the call is interned), else by value
    // through the binder.
    size_t found = n;
    for (size_t j = 0; j < n; ++j) {
      const size_t i = next + j < n ? next + j : next + j - n;
      if (py_names_[i].ptr() == key) {
        found = i;
        next = i + 1;
        break;
      }
    }
    // A launch option spelled by its interned name is no parameter (a parameter of that name would
    // have been found above, by the same object): no lookup by value for it.
    const bool option = found == n &&
                        (key == g_num_warps || key == g_num_stages || key == g_num_ctas || key == g_stream);
    if (found == n && !option && PyUnicode_Check(key)) {
      Py_ssize_t size = 0;
      const char* utf8 = PyUnicode_AsUTF8AndSize(key, &size);
      if (utf8 == nullptr) throw nb::python_error();
      const int position = b.position(std::string_view(utf8, static_cast<size_t>(size)));
      if (position >= 0) found = static_cast<size_t>(position);
    }
    if (found < n) {
      if (c.objects[found] != nullptr) b.fail_duplicate(name(), found);
      c.objects[found] = value;
      if (found + 1 > c.count) c.count = found + 1;
    } else if (same_name(key, g_num_warps)) {
      c.config.num_warps = as_int_option(*this, key, value);
    } else if (same_name(key, g_num_stages)) {
      // None, as Triton's parse_options drops it: the target's default, as when not given.
      c.config.num_stages = value == Py_None ? kTargetDefaultNumStages : as_int_option(*this, key, value);
    } else if (same_name(key, g_num_ctas)) {
      c.config.num_ctas = as_int_option(*this, key, value);
    } else if (same_name(key, g_stream)) {
      c.stream = value == Py_None ? nullptr : value;
    } else {
      const std::string_view option = PyUnicode_AsUTF8(key);
      if (b.set_by_decorator(option)) b.fail_set_by_decorator(name(), option);
      if (c.num_extra == c.extra.size()) fail_call(*this, "", "more than 8 extra compile options");
      c.extra[c.num_extra++] = {key, value};
    }
  }

  c.ctx.function = &name();
  c.ctx.need_bytes = need_bytes_;
  // HIP's 'S' flag needs each buffer's size: read where the call's target is an AMD GPU's (an
  // explicit hip: target, or a launch through the HIP runtime), as Triton's HIP binder reads it; a
  // call for an NVIDIA GPU never pays for it.
  c.ctx.hip = launch_target_is_hip();
  c.ctx.need_storage = c.ctx.hip;
  c.ctx.launching = launching;
  if (c.stream != nullptr) {
    const uint64_t handle = stream_handle(*this, c.stream);
    c.config.stream = reinterpret_cast<CUstream_st*>(static_cast<uintptr_t>(handle));
  }
  nb::object dlpack_stream;
  if (c.stream != nullptr) {
    // __dlpack__'s spelling of the stream the kernel runs on: the default stream is 1 (CUDA's
    // legacy default stream) on CUDA, 0 on ROCm, where 1 and 2 mean nothing (the array API's
    // __dlpack__).
    const uintptr_t h = reinterpret_cast<uintptr_t>(c.config.stream);
    dlpack_stream = nb::steal(PyLong_FromUnsignedLongLong(h != 0 ? h : c.ctx.hip ? 0 : 1));
    c.ctx.dlpack_stream = dlpack_stream.ptr();
  }
  for (size_t i = 0; i < c.count; ++i) {
    PyObject* o = c.objects[i];
    if (o != nullptr) {
      // The array takes the placeholder's place for the rest of the call: the grid function and
      // launch hooks see it, as they would see an array the caller allocated.
      if (__builtin_expect(is_placeholder(o), 0)) o = c.objects[i] = bind_placeholder(c, i, o);
      c.values[i] = convert_arg(o, *names_[i], c.ctx);
    } else if (const ArgValue* d = b.caller_default(i)) {
      c.values[i] = *d;
    } else {
      b.fail_missing(name(), i);
    }
  }
  c.ctx.dlpack_stream = nullptr;
  if (launching) {
    check_current_device(c.ctx);
    if (c.stream == nullptr) {
      c.config.stream = reinterpret_cast<CUstream_st*>(static_cast<uintptr_t>(framework_stream(c.ctx)));
    }
  }
  c.config.options = options_for(c);
}

const CompileOptions* Kernel::options_for(Call& c) {
  if (c.num_extra == 0) return nullptr;
  for (const auto& entry : options_cache_) {
    if (entry->items.size() != c.num_extra) continue;
    bool same = true;
    for (size_t i = 0; i < c.num_extra && same; ++i) {
      const auto& [name, value] = entry->items[i];
      PyObject* v = c.extra[i].second;
      same = same_name(name.ptr(), c.extra[i].first) && Py_TYPE(value.ptr()) == Py_TYPE(v) &&
             PyObject_RichCompareBool(value.ptr(), v, Py_EQ) == 1;
    }
    if (same) return &entry->options;
  }
  CompileOptions options;
  for (size_t i = 0; i < c.num_extra; ++i) {
    options.set(PyUnicode_AsUTF8(c.extra[i].first), option_value(*this, c.extra[i].first, c.extra[i].second));
  }
  if (options_cache_.size() < 16) {
    auto entry = std::make_unique<OptionsEntry>();
    for (size_t i = 0; i < c.num_extra; ++i) {
      entry->items.emplace_back(nb::borrow(c.extra[i].first), nb::borrow(c.extra[i].second));
    }
    entry->options = std::move(options);
    options_cache_.push_back(std::move(entry));
    return &options_cache_.back()->options;
  }
  c.own_options = std::move(options);
  return &*c.own_options;
}

void Kernel::set_grid(Call& c, nb::handle grid) {
  if (!PyCallable_Check(grid.ptr())) {
    c.config.grid = grid_of(*this, grid.ptr());
    return;
  }
  if (!decorated_) {
    // Triton's meta: every argument by name, defaults included, and the launch options. Built
    // with the interned names and the defaults' objects made once: a grid function is called on
    // every launch of fla's and Liger's kernels.
    nb::dict meta;
    for (size_t i = 0; i < py_names_.size(); ++i) {
      PyObject* value = i < c.count && c.objects[i] != nullptr ? c.objects[i] : py_defaults_[i].ptr();
      if (value != nullptr && PyDict_SetItem(meta.ptr(), py_names_[i].ptr(), value) != 0) throw nb::python_error();
    }
    const int options[3] = {c.config.num_warps,
                            launch_num_stages(c.config.num_stages),  // the target's default resolved
                            c.config.num_ctas};
    PyObject* option_names[3] = {g_num_warps, g_num_stages, g_num_ctas};
    for (int i = 0; i < 3; ++i) {
      nb::object value = nb::steal(PyLong_FromLong(options[i]));
      if (!value.is_valid() || PyDict_SetItem(meta.ptr(), option_names[i], value.ptr()) != 0) {
        throw nb::python_error();
      }
    }
    nb::object g = grid(meta);
    c.config.grid = grid_of(*this, g.ptr());
    if (c.hook_call != nullptr) PyList_SetItem(c.hook_call, 1, g.inc_ref().ptr());
    return;
  }
  // A decorated function's grid sees what the autotuner and heuristics chose: computed by the
  // runtime from the completed call (GridMeta), the caller's own objects where it passed them.
  // Two pointers: small enough for std::function to keep without allocating.
  c.grid_callable = grid.ptr();
  const Call* call = &c;
  c.config.grid_fn = [this, call](const GridMeta& gm) -> Grid {
    nb::dict meta;
    const StaticSignature& sig = fn_->signature();
    size_t caller = 0;
    for (const ParamInfo& p : sig.params) {
      const std::vector<uint32_t>& callers = binder_->caller_params();
      const bool passed_by_caller = caller < callers.size() && callers[caller] == static_cast<uint32_t>(p.index);
      if (passed_by_caller && caller < call->count && call->objects[caller] != nullptr) {
        meta[p.name.c_str()] = nb::borrow(call->objects[caller]);
      } else {
        meta[p.name.c_str()] = nb::steal(arg_to_python(gm.arg(p.name)));
      }
      if (passed_by_caller) ++caller;
    }
    meta["num_warps"] = gm.num_warps;
    meta["num_stages"] = gm.num_stages;
    meta["num_ctas"] = gm.num_ctas;
    nb::object g = nb::borrow(call->grid_callable)(meta);
    if (call->hook_call != nullptr) PyList_SetItem(call->hook_call, 1, g.inc_ref().ptr());
    return grid_of(*this, g.ptr());
  };
}

PyObject* Kernel::launch(nb::handle grid, PyObject* const* args, size_t nargs, PyObject* kwnames,
                         PlaceholderUse placeholders, uint64_t skip_keywords) {
  Call c;
  c.placeholders = placeholders;
  prepare(c, args, nargs, kwnames, /*launching=*/true, skip_keywords);
  // Triton's launch hooks: one relaxed load when none is set.
  if (__builtin_expect((detail::launch_hook_bits() & detail::kPythonLaunchHooks) != 0, 0)) {
    launch_hooked(c, grid);
    return c.take_outputs();
  }
  set_grid(c, grid);
  fn_->launch(c.config, ArgSpan{c.values, c.count});
  return c.take_outputs();
}

void Kernel::launch_hooked(Call& c, nb::handle grid) {
  // The runtime calls the hooks (src/launch/hooked_launch.cpp); what they get of the call is the
  // caller's own objects, as Triton's launch gives them, in place of the runtime's stand-ins.
  nb::dict objects;
  for (size_t i = 0; i < c.count; ++i) {
    if (c.objects[i] != nullptr) objects[py_names_[i]] = nb::borrow(c.objects[i]);
  }
  nb::list hook_call;
  hook_call.append(objects);
  hook_call.append(PyCallable_Check(grid.ptr()) ? nb::none() : nb::borrow(grid));
  c.hook_call = hook_call.ptr();
  set_grid(c, grid);
  // Loaded: the bridge is what set the bit.
  nb::module_ bridge = nb::module_::import_("triton_jit_bridge");
  nb::object previous = bridge.attr("begin_host_call")(hook_call);
  try {
    fn_->launch(c.config, ArgSpan{c.values, c.count});
  } catch (...) {
    // A hook that raised: its own exception, as Triton's launch raises it.
    nb::object error = bridge.attr("end_host_call")(previous);
    if (!error.is_none()) {
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
      throw nb::python_error();
    }
    throw;
  }
  bridge.attr("end_host_call")(previous);
}

void Kernel::bind(PyObject* const* args, size_t nargs, PyObject* kwnames) {
  Call c;
  prepare(c, args, nargs, kwnames, /*launching=*/true);
}

void Kernel::prepare_deferred(nb::handle grid, PyObject* const* args, size_t nargs, PyObject* kwnames,
                              DeferredLaunch& d) {
  Call c;
  c.placeholders = PlaceholderUse::RefuseDeferred;
  prepare(c, args, nargs, kwnames, /*launching=*/false);
  if (decorated_ && PyCallable_Check(grid.ptr())) {
    // Its grid would be computed from what the tuner chose, in Python, inside XLA's launch.
    fail_call(*this, "",
              "a kernel under @triton.autotune or @triton.heuristics takes a tuple grid inside jax.jit, not a "
              "callable");
  }
  set_grid(c, grid);
  d.fn = fn_;
  d.config = c.config;
  if (c.own_options) {
    d.own_options = std::move(c.own_options);
    d.config.options = &*d.own_options;
  }
  d.values.assign(c.values, c.values + c.count);
  d.descriptors = std::move(c.ctx.descriptors);  // the values point into it: it moves, they stay valid
  // String arguments are views of the caller's objects: kept alive with the launch.
  for (size_t i = 0; i < c.count; ++i) {
    if (c.objects[i] != nullptr) d.keep.push_back(nb::borrow(c.objects[i]));
  }
  fn_->specialize(d.config, ArgSpan{d.values.data(), d.values.size()});
}

Specialization Kernel::specialize(PyObject* const* args, size_t nargs, PyObject* kwnames) {
  Call c;
  prepare(c, args, nargs, kwnames, /*launching=*/false);
  return fn_->specialize(c.config, ArgSpan{c.values, c.count});
}

const KernelInfo& Kernel::compile(PyObject* const* args, size_t nargs, PyObject* kwnames) {
  Call c;
  prepare(c, args, nargs, kwnames, /*launching=*/false);
  return fn_->compile(c.config, ArgSpan{c.values, c.count});
}

namespace {

// k[grid]: the grid bound, called with the arguments. A type of the raw C API, called through
// vectorcall: a launch builds no argument tuple and no keyword dict.
struct LauncherObject {
  PyObject_HEAD vectorcallfunc vectorcall;
  Kernel* kernel;
  PyObject* owner;  // the Kernel's Python object, kept alive
  PyObject* grid;
  bool bind_only;  // kernel._bind(grid): everything but the launch, for benchmarks
  PlaceholderUse placeholders;
};

PyTypeObject* g_launcher_type = nullptr;
PyObject* g_deferred_hook = nullptr;  // hook(kernel, grid, args, kwargs): None, or NotImplemented

// Called with a C++ exception in flight: returns a new reference, or nullptr with an error set.
PyObject* call_deferred_hook(LauncherObject* l, PyObject* const* args, size_t nargs, PyObject* kwnames) {
  nb::tuple positional = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(nargs)));
  if (!positional.is_valid()) return nullptr;
  for (size_t i = 0; i < nargs; ++i) {
    Py_INCREF(args[i]);
    PyTuple_SET_ITEM(positional.ptr(), static_cast<Py_ssize_t>(i), args[i]);
  }
  nb::dict keywords;
  const Py_ssize_t num_keywords = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < num_keywords; ++k) {
    if (PyDict_SetItem(keywords.ptr(), PyTuple_GET_ITEM(kwnames, k), args[nargs + static_cast<size_t>(k)]) != 0) {
      return nullptr;
    }
  }
  return PyObject_CallFunctionObjArgs(g_deferred_hook, l->owner, l->grid, positional.ptr(), keywords.ptr(), nullptr);
}

PyObject* launcher_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  try {
    const size_t nargs = PyVectorcall_NARGS(nargsf);
    if (l->bind_only) {
      l->kernel->bind(args, nargs, kwnames);
    } else if (PyObject* outputs = l->kernel->launch(nb::handle(l->grid), args, nargs, kwnames, l->placeholders)) {
      return outputs;
    }
  } catch (...) {
    // A launch on JAX values under a trace (tracers, outputs not yet computed) fails to convert:
    // the Python side turns it into an XLA custom call (triton_jit/_jax.py). Only failures pay.
    if (!l->bind_only && g_deferred_hook != nullptr) {
      PyObject* r = call_deferred_hook(l, args, PyVectorcall_NARGS(nargsf), kwnames);
      if (r != Py_NotImplemented) return r;  // None, or nullptr with the hook's error set
      Py_DECREF(r);
    }
    set_python_error_from_current_exception();
    return nullptr;
  }
  Py_RETURN_NONE;
}

void launcher_dealloc(PyObject* self) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  Py_XDECREF(l->owner);
  Py_XDECREF(l->grid);
  PyObject_Free(self);
}

PyObject* make_launcher(nb::handle kernel_object, nb::handle grid, bool bind_only,
                        PlaceholderUse placeholders = PlaceholderUse::Allocate) {
  auto* l = PyObject_New(LauncherObject, g_launcher_type);
  if (l == nullptr) throw nb::python_error();
  l->vectorcall = launcher_call;
  l->kernel = nb::inst_ptr<Kernel>(kernel_object);
  l->owner = kernel_object.inc_ref().ptr();
  l->grid = grid.inc_ref().ptr();
  l->bind_only = bind_only;
  l->placeholders = placeholders;
  return reinterpret_cast<PyObject*>(l);
}

PyTypeObject* make_launcher_type(nb::module_& m) {
  static PyMemberDef members[] = {
      {"__vectorcalloffset__", T_PYSSIZET, offsetof(LauncherObject, vectorcall), READONLY, nullptr},
      {nullptr, 0, 0, 0, nullptr}};
  static PyType_Slot slots[] = {
      {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
      {Py_tp_dealloc, reinterpret_cast<void*>(launcher_dealloc)},
      {Py_tp_members, members},
      {Py_tp_doc, const_cast<char*>("A kernel with its grid (kernel[grid]): call it with the kernel's arguments, "
                                    "plus num_warps, num_stages, num_ctas, stream and compile options by keyword.")},
      {0, nullptr}};
  static PyType_Spec spec = {"triton_jit._C.Launcher", sizeof(LauncherObject), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL, slots};
  return add_type(m, &spec);
}

// A call from a nanobind method (*args, **kwargs) in vectorcall form: positional arguments, then
// the keyword values, with their names in a tuple.
struct VectorArgs {
  std::vector<PyObject*> items;
  nb::object kwnames;
  size_t nargs = 0;

  VectorArgs(const nb::args& args, const nb::kwargs& kwargs, const char* skip = nullptr) {
    nargs = args.size();
    items.reserve(nargs + kwargs.size());
    for (size_t i = 0; i < nargs; ++i) items.push_back(PyTuple_GET_ITEM(args.ptr(), static_cast<Py_ssize_t>(i)));
    nb::list names;
    for (auto [k, v] : kwargs) {
      if (skip != nullptr && PyUnicode_Check(k.ptr()) && PyUnicode_CompareWithASCIIString(k.ptr(), skip) == 0) {
        continue;
      }
      names.append(k);
      items.push_back(v.ptr());
    }
    if (names.size() > 0) kwnames = nb::steal(PyList_AsTuple(names.ptr()));
  }
  PyObject* const* data() const { return items.data(); }
  PyObject* names() const { return kwnames.is_valid() ? kwnames.ptr() : nullptr; }
};

}  // namespace

PyObject* call_deferred_hook(PyObject* kernel, PyObject* grid, PyObject* args, PyObject* kwargs) {
  if (g_deferred_hook == nullptr) {
    Py_INCREF(Py_NotImplemented);
    return Py_NotImplemented;
  }
  return PyObject_CallFunctionObjArgs(g_deferred_hook, kernel, grid, args, kwargs, nullptr);
}

namespace {

nb::object make_kernel(TritonJitFunction& fn) {
  auto& kernels = kernel_registry();
  auto it = kernels.find(&fn);
  if (it != kernels.end()) return it->second;
  nb::object k = nb::cast(new Kernel(fn), nb::rv_policy::take_ownership);
  kernels.emplace(&fn, k);
  return k;
}

}  // namespace

void register_kernel(nb::module_& m) {
  init_convert();
  register_placeholder(m);
  g_num_warps = PyUnicode_InternFromString("num_warps");
  g_num_stages = PyUnicode_InternFromString("num_stages");
  g_num_ctas = PyUnicode_InternFromString("num_ctas");
  g_stream = PyUnicode_InternFromString("stream");
  g_cuda_stream = PyUnicode_InternFromString("cuda_stream");
  g_ptr = PyUnicode_InternFromString("ptr");

  g_launcher_type = make_launcher_type(m);

  nb::class_<Kernel>(m, "Kernel", "A @triton.jit function launched through libtriton_jit.")
      .def("__getitem__", [](nb::handle self, nb::handle grid) { return nb::steal(make_launcher(self, grid, false)); })
      .def(
          "_installed_launcher",
          [](nb::handle self, nb::handle grid) {
            return nb::steal(make_launcher(self, grid, false, PlaceholderUse::RefuseInstalled));
          },
          "kernel[grid] as triton_jit.install()'s JITFunction.run launches it: a triton_jit.empty_like placeholder "
          "is a TypeError (that run returns Triton's CompiledKernel, never an output).")
      .def(
          "_bind", [](nb::handle self, nb::handle grid) { return nb::steal(make_launcher(self, grid, true)); },
          "kernel._bind(grid)(*args, **kwargs) does a launch's work in Python and the extension (arguments, "
          "options, stream) without launching: for benchmarks that split a launch's host time.")
      .def(
          "run",
          [](Kernel& k, nb::args args, nb::kwargs kwargs) {
            k.fn();  // a pending kernel is found first: its name is in the message
            if (!kwargs.contains("grid")) throw ArgumentError(k.name() + ": run() needs grid=", k.name(), "");
            nb::object grid = kwargs["grid"];
            VectorArgs v(args, kwargs, "grid");
            PyObject* outputs = k.launch(grid, v.data(), v.nargs, v.names());
            return outputs != nullptr ? nb::steal(outputs) : nb::none();
          },
          "k.run(*args, grid=grid, **kwargs): the same as k[grid](*args, **kwargs).")
      .def(
          "specialize",
          [](Kernel& k, nb::args args, nb::kwargs kwargs) {
            VectorArgs v(args, kwargs);
            return k.specialize(v.data(), v.nargs, v.names());
          },
          "The specialization a launch with these arguments uses (Triton's key); no compile, no GPU.")
      .def(
          "compile",
          [](Kernel& k, nb::args args, nb::kwargs kwargs) -> nb::object {
            if (args.size() == 1 && kwargs.size() == 0 && nb::isinstance<CompileRequest>(args[0])) {
              return nb::cast(k.fn().compile(nb::cast<const CompileRequest&>(args[0])));
            }
            VectorArgs v(args, kwargs);
            const KernelInfo& info = k.compile(v.data(), v.nargs, v.names());
            return nb::cast(&info, nb::rv_policy::reference);
          },
          "Compiles (or finds) the kernel a launch with these arguments uses, without launching; or, given "
          "a CompileRequest, compiles that specialization ahead of time.")
      .def(
          "warmup",
          [](Kernel& k, nb::args args, nb::kwargs kwargs) {
            VectorArgs v(args, kwargs, "grid");
            const KernelInfo& info = k.compile(v.data(), v.nargs, v.names());
            return nb::cast(&info, nb::rv_policy::reference);
          },
          "As Triton's warmup(*args, grid=..., **kwargs): compiles without launching.")
      .def_prop_ro(
          "name", [](Kernel& k) { return k.fn().signature().function; },
          "The @triton.jit function's name (its __qualname__).")
      .def_prop_ro("path", [](Kernel& k) { return k.fn().path(); })
      .def_prop_ro("module", [](Kernel& k) { return k.fn().module(); })
      .def_prop_ro(
          "fn", [](const Kernel& k) { return k.triton_object(); },
          "The Triton object a decorator was given (None for a kernel got by path or module).")
      .def_prop_ro(
          "arg_names", [](Kernel& k) { return k.arg_names(); },
          "The parameters a call passes, in order (those no decorator sets).")
      .def_prop_ro("signature", [](Kernel& k) { return k.fn().signature().to_string(); })
      .def(
          "stats", [](Kernel& k) { return stats_dict(k.fn().stats()); },
          "This function's counters: hits, misses, compiles, loads, index_hits, pack_hits, tunings.")
      .def("__repr__", [](Kernel& k) {
        if (!k.resolved()) return std::string("<triton_jit.Kernel, found at first use>");
        return "<triton_jit.Kernel " + k.name() + " of " + k.fn().path() + ">";
      });

  m.def(
      "_set_deferred_hook",
      [](nb::object hook) {
        Py_XDECREF(g_deferred_hook);
        g_deferred_hook = hook.is_none() ? nullptr : hook.inc_ref().ptr();
      },
      "hook(kernel, grid, args, kwargs), called when a launch's arguments fail to convert: returns "
      "NotImplemented when it has nothing to do (the launch's error is raised), else does the launch.");
  m.def(
      "_prepare_deferred",
      [](nb::handle kernel, nb::handle grid, nb::args args, nb::kwargs kwargs) {
        VectorArgs v(args, kwargs);
        auto d = std::make_unique<DeferredLaunch>();
        nb::inst_ptr<Kernel>(kernel)->prepare_deferred(grid, v.data(), v.nargs, v.names(), *d);
        return register_deferred(std::move(d));
      },
      "Prepares k[grid](*args, **kwargs) for XLA to launch later: buffers are stand-ins from "
      "_deferred_buffer_address(i), i their index among the custom call's operands then results. "
      "Returns the launch's id, the custom call's `launch` attribute.");
  m.def(
      "_deferred_buffers",
      [](int64_t id) {
        const DeferredLaunch* d = find_deferred(id);
        if (d == nullptr) throw nb::key_error(("no prepared launch has id " + std::to_string(id)).c_str());
        nb::list slots;
        for (const DeferredLaunch::Slot& s : d->buffers) {
          slots.append(nb::make_tuple(s.value, s.buffer));
        }
        return slots;
      },
      "(argument index among the kernel's arg_names, buffer index) of each buffer of the prepared launch `id`, "
      "for tests.");
  m.def(
      "_xla_ffi_host_test_handler",
      []() -> nb::object {
        void* handler = xla_ffi_host_test_handler();
        if (handler == nullptr) return nb::none();
        return nb::capsule(handler);
      },
      "The handler for XLA's CPU platform (no stream; launches fail without a GPU): for tests.");
  m.def(
      "_set_xla_host_test_emulator", [](nb::handle emulator) { set_xla_host_test_emulator(emulator); },
      nb::arg("emulator").none(),
      "emulator(id, [(argument index, buffer index, address, bytes)]) called by the CPU test handler "
      "instead of a launch (None: launch again): for tests without a GPU.");
  m.def(
      "_deferred_buffer_address", [](uint32_t index) { return deferred_buffer_address(index); },
      "The stand-in address of buffer `index` in a deferred launch.");
  m.def(
      "_xla_ffi_handler",
      []() -> nb::object {
        void* handler = xla_ffi_handler();
        if (handler == nullptr) return nb::none();
        return nb::capsule(handler);
      },
      "The XLA FFI handler (a PyCapsule) of deferred launches; None when built without jax's FFI headers.");
  m.def(
      "get",
      [](const std::string& path, const std::string& name) { return make_kernel(TritonJitFunction::get(path, name)); },
      nb::arg("path"), nb::arg("name"), "The Kernel for function `name` of the file `path`.");
  m.def(
      "_lazy_kernel",
      [](nb::object triton_object, nb::object resolve) {
        return nb::cast(new Kernel(std::move(triton_object), std::move(resolve)), nb::rv_policy::take_ownership);
      },
      "A Kernel whose function is found at first use (triton_jit.jit under a decorator).");
  m.def(
      "get_module",
      [](const std::string& module, const std::string& name) {
        return make_kernel(TritonJitFunction::get_module(module, name));
      },
      nb::arg("module"), nb::arg("name"), "The Kernel for function `name` of the module `module`.");
}

}  // namespace triton_jit::python

#include "types.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <limits>

#include "pyutil.h"
#include "triton_jit/device.h"
#include "triton_jit/errors.h"
#include "triton_jit/jit_function.h"
#include "triton_jit/pack.h"
#include "triton_jit/settings.h"
#include "triton_jit/stats.h"

namespace nb = nanobind;

namespace triton_jit::python {
namespace {

// Triton's hint of one argument, as its specialization tuple holds it: 'D', '', None or 1; with
// HIP's range flag 'DS' or 'S'.
nb::object hint_of(const ParamSpecialization& p) {
  switch (p.hint) {
    case ParamSpecialization::Hint::Divisible16: return nb::str(p.pointer_range ? "DS" : "D");
    case ParamSpecialization::Hint::NotAligned: return nb::str(p.pointer_range ? "S" : "");
    case ParamSpecialization::Hint::EqualsOne: return nb::int_(1);
    default: return nb::none();
  }
}

[[noreturn]] void fail_request(const std::string& parameter, const std::string& message) {
  throw ArgumentError("CompileRequest: " + message, "", parameter);
}

// num_warps, num_stages or num_ctas of a CompileRequest: an int (its range is checked with the
// compile; one past an int's would wrap, so it stops here).
int request_int(const char* name, nb::handle v, const char* range, long long least = std::numeric_limits<int>::min()) {
  if (!PyLong_Check(v.ptr()) || PyBool_Check(v.ptr())) {
    fail_request(name, std::string(name) + " must be an int, not " + Py_TYPE(v.ptr())->tp_name);
  }
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (x == -1 && PyErr_Occurred()) throw nb::python_error();
  if (overflow != 0 || x < least || x > std::numeric_limits<int>::max()) {
    fail_request(name, std::string(name) + "=" + repr_of(v.ptr()) + " is out of range: " + name + " must be " + range);
  }
  return static_cast<int>(x);
}

CompileOptions to_options(const nb::dict& d) {
  CompileOptions options;
  for (auto [k, v] : d) {
    if (!PyUnicode_Check(k.ptr())) {
      fail_request("options", std::string("option names are str, not ") + Py_TYPE(k.ptr())->tp_name);
    }
    std::string name = nb::cast<std::string>(k);
    if (PyBool_Check(v.ptr())) {
      options.set(name, nb::cast<bool>(v));
    } else if (PyLong_Check(v.ptr())) {
      int overflow = 0;
      const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
      if (x == -1 && PyErr_Occurred()) throw nb::python_error();
      if (overflow != 0) {
        fail_request(name, "the compile option " + name + "=" + repr_of(v.ptr()) +
                               " is out of range: an int option holds a 64-bit signed integer");
      }
      options.set(name, static_cast<int64_t>(x));
    } else if (PyFloat_Check(v.ptr())) {
      options.set(name, nb::cast<double>(v));
    } else if (PyUnicode_Check(v.ptr())) {
      options.set(name, nb::cast<std::string>(v));
    } else {
      fail_request(
          name, "the compile option " + name + " must be a bool, int, float or str, not " + Py_TYPE(v.ptr())->tp_name);
    }
  }
  return options;
}

}  // namespace

nb::dict stats_dict(const Stats& s) {
  nb::dict d;
  d["hits"] = s.hits;
  d["misses"] = s.misses;
  d["compiles"] = s.compiles;
  d["loads"] = s.loads;
  d["index_hits"] = s.index_hits;
  d["pack_hits"] = s.pack_hits;
  d["tunings"] = s.tunings;
  d["heuristic_python_calls"] = s.heuristic_python_calls;
  d["python_wrapper_calls"] = s.python_wrapper_calls;
  return d;
}

void register_types(nb::module_& m) {
  nb::class_<Specialization>(m, "Specialization", "Triton's specialization of one call: its kernel key.")
      .def("signature", &Specialization::signature, "Triton's signature syntax: '*fp16:16,i32,1024'.")
      .def("triton_repr", &Specialization::triton_repr,
           "Python's repr of Triton's specialization list: \"[('*fp16', 'D'), ('i32', '')]\".")
      .def_prop_ro(
          "params",
          [](const Specialization& s) {
            nb::list out;
            for (const auto& p : s.params) {
              out.append(nb::make_tuple(p.type, hint_of(p), p.value_repr));
            }
            return out;
          },
          "One (type, hint, value repr) per parameter.")
      .def_ro("num_warps", &Specialization::num_warps)
      .def_ro("num_stages", &Specialization::num_stages)
      .def_ro("num_ctas", &Specialization::num_ctas)
      .def_ro("target", &Specialization::target)
      .def("__repr__", [](const Specialization& s) { return "<Specialization " + s.signature() + ">"; });

  nb::class_<KernelInfo>(m, "KernelInfo", "A compiled kernel.")
      .def_ro("name", &KernelInfo::name)
      .def_prop_ro("target", [](const KernelInfo& k) { return k.target.str(); })
      .def_prop_ro("cubin", [](const KernelInfo& k) { return nb::bytes(k.cubin.data(), k.cubin.size()); })
      .def_ro("num_warps", &KernelInfo::num_warps)
      .def_ro("num_ctas", &KernelInfo::num_ctas)
      .def_ro("shared", &KernelInfo::shared)
      .def_ro("hash", &KernelInfo::hash)
      .def_ro("triton_version", &KernelInfo::triton_version)
      .def("to_json", &KernelInfo::to_json, "Every field of the compile as one JSON object.")
      .def("__repr__", [](const KernelInfo& k) { return "<KernelInfo " + k.name + " for " + k.target.str() + ">"; });

  nb::class_<CompileRequest>(m, "CompileRequest",
                             "One specialization to compile ahead of time, in Triton's signature syntax.")
      .def(
          "__init__",
          [](CompileRequest* r, std::string signature, nb::handle num_warps, nb::handle num_stages, nb::handle num_ctas,
             std::optional<std::string> target, nb::dict options) {
            new (r) CompileRequest{std::move(signature),
                                   request_int("num_warps", num_warps, "a power of two in 1..64"),
                                   num_stages.is_none() ? kTargetDefaultNumStages
                                                        : request_int("num_stages", num_stages,
                                                                      "in 0..255 (None: the target's default)", 0),
                                   request_int("num_ctas", num_ctas, "in 1..16"),
                                   to_options(options),
                                   target ? std::optional<Target>(Target::parse(*target)) : std::nullopt};
          },
          nb::arg("signature"), nb::arg("num_warps") = kDefaultNumWarps, nb::arg("num_stages") = nb::none(),
          nb::arg("num_ctas") = kDefaultNumCtas, nb::arg("target") = nb::none(), nb::arg("options") = nb::dict())
      .def_ro("signature", &CompileRequest::signature)
      .def_ro("num_warps", &CompileRequest::num_warps)
      // None where left to the target (kTargetDefaultNumStages), as given.
      .def_prop_ro("num_stages",
                   [](const CompileRequest& r) -> nb::object {
                     if (r.num_stages == kTargetDefaultNumStages) return nb::none();
                     return nb::int_(r.num_stages);
                   })
      .def_ro("num_ctas", &CompileRequest::num_ctas);
}

void register_settings(nb::module_& m) {
  m.def(
      "set_target",
      [](std::optional<std::string> target) {
        set_target(target ? std::optional<Target>(Target::parse(*target)) : std::nullopt);
      },
      nb::arg("target").none(), "Compile for an explicit target ('cuda:90'); None: the current device's.");
  m.def(
      "explicit_target",
      []() -> std::optional<std::string> {
        auto t = explicit_target();
        return t ? std::optional<std::string>(t->str()) : std::nullopt;
      },
      "The explicit target, if one is set (set_target or TRITON_JIT_TARGET).");
  m.def("set_offline", &set_offline, nb::arg("offline"), "Offline mode: kernels only from packs and the index.");
  m.def("offline", &offline);
  m.def("preload_modules", &preload_modules, nb::arg("modules"),
        "Modules to import before any kernel is imported through Python.");
  m.def("python_used", &python_used);
  m.def(
      "synchronize",
      [](nb::handle stream) {
        const unsigned long long handle = PyLong_Check(stream.ptr()) ? PyLong_AsUnsignedLongLong(stream.ptr()) : 0;
        if (!PyLong_Check(stream.ptr()) || (handle == static_cast<unsigned long long>(-1) && PyErr_Occurred())) {
          PyErr_Clear();
          throw ArgumentError(
              "synchronize: stream " + repr_of(stream.ptr()) + " is not a CUDA stream handle (an int in 0..2**64-1)",
              "", "stream");
        }
        nb::gil_scoped_release release;
        synchronize(reinterpret_cast<CUstream_st*>(static_cast<uintptr_t>(handle)));
      },
      nb::arg("stream") = 0, "Waits for the work queued on `stream` (a handle; 0: the legacy default stream).");
  m.def(
      "build_pack",
      [](const std::string& manifest, const std::string& out) {
        // In this process, one after another and with the GIL held, as Kernel.compile's misses:
        // kernels whose module the host handed over (triton_jit.jit of a live function, a
        // generated module not in sys.modules) compile with the globals that module holds.
        PrepareOptions options;
        options.jobs = 1;
        options.progress = Progress::Never;
        const PackInfo info = build_pack(manifest, out, options);
        return nb::make_tuple(info.kernels, info.functions);
      },
      nb::arg("manifest"), nb::arg("out"),
      "Compiles the kernels a pack manifest lists into the pack `out`, as triton-jit pack does, but in this "
      "process, so that kernels that exist only here are captured; returns (kernels, functions).");
  m.def("device_name", &device_name, "The current device's name.");
  m.def("triton_version", &triton_version, "The version of the Triton package kernels compile with.");
  m.def(
      "global_stats", []() { return stats_dict(global_stats()); }, "The counters of every function together.");
}

}  // namespace triton_jit::python

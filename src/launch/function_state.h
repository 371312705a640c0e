#pragma once
// The state behind a TritonJitFunction, and the key building every call shares (bind). The
// launch path (jit_function.cpp) reads it; the miss path (resolve/resolver.cpp) is the only
// other place that touches it.

#include <atomic>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "bridge/bridge.h"
#include "decorators/decorated_call.h"
#include "key/repr.h"
#include "key/spec_key.h"
#include "launch/hit_counters.h"
#include "launch/kernel_table.h"
#include "launch/launcher.h"
#include "triton_jit/errors.h"
#include "triton_jit/jit_function.h"

namespace triton_jit::detail {

// Python's name of an argument's kind, for messages.
inline const char* kind_name(ArgValue::Kind kind) {
  constexpr const char* kNames[] = {
      "None", "bool", "int", "int", "float", "pointer", "string", "dtype", "TensorDescriptor"};
  return kNames[static_cast<int>(kind)];
}

struct FunctionState {
  const TritonJitFunction* self = nullptr;  // the public object this state belongs to
  std::string path;                         // canonical file; "module:NAME" for a module found only in a pack
  std::string name;                         // as given to get(): a function, or an attribute path ("kernel.fn")
  std::string module;                       // the module it was got by (get_module); empty when got by file path
  std::string source_sha256;                // of the file when get() read it; empty when the file is absent
  // The hash loaded packs know it by: source_sha256, or, with the file absent, that of the packed
  // function get() took its signature from (so no other function whose file has the same name
  // ever serves it: PackRegistry::find_function).
  std::string pack_sha256;
  StaticSignature signature;
  // What the bridge imports it from: the module when got by one (its packages initialised, and
  // importable in a compile worker with another working directory), else the file.
  std::string source() const { return module.empty() ? path : bridge::module_source(module); }
  std::mutex python_mutex;  // guards py_function and py_wrapper, imported on the first compile
  bridge::PyHandle py_function;
  bridge::PyHandle py_wrapper;  // the object the name holds: the outermost decorator, or py_function
  // The @triton.heuristics and @triton.autotune layers' runtime; null for a plain function.
  std::unique_ptr<DecoratedCall> decorated;
  // set_heuristics_through_python: every heuristic runs through Python, none is memoized.
  std::atomic<bool> heuristics_through_python{false};
  std::vector<ParamRule> rules;
  std::vector<ArgValue> defaults;    // views into signature's default values
  std::vector<bool> default_usable;  // a default C++ can pass exists
  KernelTable table;

  // The miss path's state (resolve/resolver.cpp).
  std::mutex compile_mutex;  // guards table inserts and `pending`; never taken by a hit
  struct Pending {
    std::promise<const KernelEntry*> promise;
    std::shared_future<const KernelEntry*> future = promise.get_future().share();
  };
  std::unordered_map<std::string, std::shared_ptr<Pending>> pending;

  const int hit_slot = allocate_counter_slot();
  mutable std::atomic<uint64_t> hits{0};  // used when hit_slot is -1
  mutable std::atomic<uint64_t> misses{0}, compiles{0}, loads{0}, index_hits{0}, pack_hits{0};
  mutable std::atomic<uint64_t> tunings{0}, heuristic_python_calls{0};

  // The Python object the name holds (the outermost decorator), imported on first need.
  bridge::PyHandle python_wrapper() {
    std::lock_guard<std::mutex> lock(python_mutex);
    if (py_wrapper.object == nullptr) {
      bridge::LoadedFunction loaded = bridge::load_function(source(), name);
      py_function = loaded.function;
      py_wrapper = loaded.wrapper;
    }
    return py_wrapper;
  }

  // ---- cold error paths: messages are built only when something is wrong ----

  [[noreturn, gnu::cold, gnu::noinline]] void fail_count(size_t given, size_t missing_index) const {
    std::string names;
    for (const ParamInfo& p : signature.params) names += (names.empty() ? "" : ", ") + p.name;
    if (given > rules.size()) {
      throw ArgumentError(signature.function + " takes " + std::to_string(rules.size()) + " arguments (" + names +
                              ") but " + std::to_string(given) + " were given",
                          signature.function, "");
    }
    const ParamInfo& missing = signature.params[missing_index];
    std::string why = missing.default_value && !missing.default_value->representable
                          ? " (its default " + missing.default_value->repr + " has no C++ form: pass it explicitly)"
                          : " and it has no default";
    throw ArgumentError(signature.function + " takes " + std::to_string(rules.size()) + " arguments (" + names +
                            ") but " + std::to_string(given) + " were given: parameter '" + missing.name +
                            "' is missing" + why,
                        signature.function, missing.name);
  }

  // A decorated function called with too many or too few arguments: says which parameters the
  // caller passes and which a decorator sets.
  [[noreturn, gnu::cold, gnu::noinline]] void fail_decorated_count(size_t given, const std::vector<uint32_t>& caller,
                                                                   const std::vector<int>& set_by_layer) const {
    std::string names, set;
    for (uint32_t p : caller) names += (names.empty() ? "" : ", ") + signature.params[p].name;
    for (size_t p = 0; p < set_by_layer.size(); ++p) {
      if (set_by_layer[p] < 0) continue;
      const bool heuristic = signature.decorators[static_cast<size_t>(set_by_layer[p])].kind ==
                             DecoratorLayer::Kind::Heuristics;
      set += (set.empty() ? "" : ", ") + signature.params[p].name + " (by " +
             (heuristic ? "@triton.heuristics" : "@triton.autotune") + ")";
    }
    std::string why = given > caller.size() ? " were given; the caller must not pass the parameters a decorator sets: "
                                            : " were given (a parameter without a usable default is missing); a "
                                              "decorator sets ";
    throw ArgumentError(signature.function + " takes " + std::to_string(caller.size()) + " arguments (" + names +
                            ") but " + std::to_string(given) + why + set,
                        signature.function, "");
  }

  // A value the annotated type cannot hold. Triton's binder takes the annotation's type whatever
  // the value, so it accepts such calls: the runtime refuses them where Triton's launcher would
  // fail or pass something else than meant (docs/DESIGN.md, "Where the runtime is deliberately
  // stricter than Triton"). Says what Triton would do and how to pass the value.
  [[gnu::cold, gnu::noinline]] static std::string annotation_mismatch(const ParamInfo& p, ArgValue::Kind given,
                                                                      const char* kind) {
    using K = ArgValue::Kind;
    const std::string head = "is annotated '" + p.annotation + "' and cannot take " +
                             (given == K::Int || given == K::UInt ? "an " : "a ") + kind + ": ";
    const bool pointer_annotation = !p.annotation.empty() && p.annotation[0] == '*';
    if (given == K::TensorDesc) {
      return head + "Triton ignores the annotation for a tensor descriptor (it keys it tensordesc<...>); remove the "
                    "annotation to pass one";
    }
    if (pointer_annotation) {
      return head + "Triton takes an integer there as the device address; pass the address as a pointer "
                    "(TypedPtr{reinterpret_cast<void*>(address), DType::...}, or a typed pointer)";
    }
    if (given == K::Pointer) {
      return head + "Triton keys a tensor there as " + p.annotation +
             " but its launcher then passes only a one-element tensor's value (anything else raises TypeError); pass "
             "the value itself, or the address as an integer "
             "(static_cast<int64_t>(reinterpret_cast<uintptr_t>(ptr)))";
    }
    if (given == K::Float) {
      return head + "Triton keys it as " + p.annotation +
             " but its launcher then raises TypeError ('float' object cannot be interpreted as an integer); convert "
             "it first (static_cast<int64_t>(x)), or remove the annotation to pass a float (fp32)";
    }
    return head + "pass a value of the annotated type";
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_arg(int index, ArgProblem problem, const ArgValue& arg) const {
    const ParamInfo& p = signature.params[static_cast<size_t>(index)];
    const char* kind = kind_name(arg.kind());
    std::string what;
    switch (problem) {
      case ArgProblem::PointerForConstexpr:
        what = "is a tl.constexpr and needs a compile-time value (int, bool, float, None, string or dtype), but a "
               "device pointer (a runtime value) was given";
        break;
      case ArgProblem::DTypeForRuntime:
        what = "is a runtime parameter; a dtype (here " + python_dtype_repr(arg.dtype(), arg.is_torch_dtype()) +
               ") can only be passed to a tl.constexpr parameter";
        break;
      case ArgProblem::NoSuchDType:
        what = static_cast<int>(arg.dtype()) < kNumDTypes
                   ? "was given torch's spelling of " + std::string(dtype_name(arg.dtype())) +
                         ", which torch has no dtype for; pass DType::" + std::string(dtype_name(arg.dtype())) + " (" +
                         python_dtype_repr(arg.dtype(), false) + ") instead"
                   : "was given an unknown dtype (" + std::to_string(static_cast<int>(arg.dtype())) + ")";
        break;
      case ArgProblem::DescriptorForConstexpr:
        what =
            "is a tl.constexpr and needs a compile-time value (int, bool, float, None, string or dtype), but a tensor "
            "descriptor (a runtime value) was given";
        break;
      case ArgProblem::StringForRuntime:
        what = "is a runtime parameter; a string can only be passed to a tl.constexpr parameter";
        break;
      case ArgProblem::KindForAnnotation: what = annotation_mismatch(p, arg.kind(), kind); break;
      case ArgProblem::None: what = "was rejected"; break;
    }
    throw ArgumentError(signature.function + ": parameter '" + p.name + "' (#" + std::to_string(index) + ") " + what,
                        signature.function, p.name);
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_config(const LaunchConfig& c) const {
    throw ArgumentError(signature.function + ": invalid launch options num_warps=" + std::to_string(c.num_warps) +
                            ", num_stages=" + std::to_string(c.num_stages) +
                            ", num_ctas=" + std::to_string(c.num_ctas) +
                            " (num_warps must be a power of two in 1..64, num_stages in 0..255, num_ctas in 1..16)",
                        signature.function, "");
  }

  void check_config(const LaunchConfig& c) const {
    const unsigned warps = static_cast<unsigned>(c.num_warps);
    if (warps == 0 || warps > 64 || (warps & (warps - 1)) != 0 || c.num_stages < 0 || c.num_stages > 255 ||
        c.num_ctas < 1 || c.num_ctas > 16) {
      fail_config(c);
    }
  }

  // ---- key building, shared by launch, specialize and compile ----

  [[noreturn, gnu::cold, gnu::noinline]] void fail_none_scalar(uint32_t index, const ParamCode& code) const {
    const ParamInfo& p = signature.params[index];
    throw ArgumentError(signature.function + ": parameter '" + p.name + "' (#" + std::to_string(index) + ") has type " +
                            type_string(code) + " and cannot be None; pass a value",
                        signature.function, p.name);
  }

  // The general path of one parameter (annotations, and the errors): kept out of the loop so the
  // common path stays in registers.
  struct SlowResult {
    ParamCode code;
    uint64_t slot = 0;
  };
  [[noreturn, gnu::cold, gnu::noinline]] void fail_descriptor(uint32_t i, const std::string& why) const {
    const ParamInfo& p = signature.params[i];
    throw ArgumentError(
        signature.function + ": parameter '" + p.name + "' (#" + std::to_string(i) + "): the tensor descriptor " + why,
        signature.function, p.name);
  }

  [[gnu::noinline]] SlowResult slow_specialize(uint32_t i, const ArgValue& arg, bool pack) const {
    SlowResult r;
    if (arg.kind() == ArgValue::Kind::TensorDesc) {
      if (std::string why = descriptor_problem(*arg.as_tensor_descriptor()); !why.empty()) fail_descriptor(i, why);
    }
    ArgProblem problem = ArgProblem::None;
    if (!specialize_param(rules[i], arg, &r.code, &problem)) fail_arg(static_cast<int>(i), problem, arg);
    if (pack && r.code.kind() != TypeKind::Constexpr && !pack_value(r.code, arg, &r.slot)) {
      fail_none_scalar(i, r.code);
    }
    return r;
  }

  // Completes `args` with defaults (into `storage` when needed) and builds the key; with kPack,
  // also packs the runtime arguments into `packed` in the same pass. Returns the argument array
  // to use from here on.
  template <bool kPack>
  const ArgValue* bind(const LaunchConfig& c, ArgSpan args, int arch, int warp_size, SpecKey* key, ArgValue* storage,
                       PackedParams* packed) const {
    const uint32_t n = static_cast<uint32_t>(rules.size());
    const ArgValue* full = args.data;
    if (args.size != n) {
      if (args.size > n) fail_count(args.size, 0);
      for (size_t i = args.size; i < n; ++i) {
        if (!default_usable[i]) fail_count(args.size, i);
      }
      std::memcpy(static_cast<void*>(storage), args.data, args.size * sizeof(ArgValue));
      std::memcpy(static_cast<void*>(storage + args.size), defaults.data() + args.size,
                  (n - args.size) * sizeof(ArgValue));
      full = storage;
    }
    check_config(c);
    uint64_t* words = key->words;
    words[0] = make_header(c.num_warps, c.num_stages, c.num_ctas, arch, warp_size);
    words[1] = c.options ? c.options->hash() : 0;
    const uint32_t code_words = SpecKey::code_words(n);
    uint32_t next = 2 + code_words;  // payload words follow the codes
    int num_packed = 0;
    uint64_t codes = 0;  // four 16-bit codes a word, built in a register and stored once
    const ParamRule* rule = rules.data();
    uint64_t* slots = kPack ? packed->storage : nullptr;
    void** pointers = kPack ? packed->pointers : nullptr;
    for (uint32_t i = 0; i < n; ++i) {
      uint16_t code;
      uint64_t payload = 0;
      uint64_t slot = 0;
      if (!fast_specialize(rule[i], full[i], &code, &payload, &slot)) {
        const SlowResult r = slow_specialize(i, full[i], kPack);
        code = r.code.code;
        payload = r.code.payload;
        slot = r.slot;
        // A descriptor is a runtime argument (packed below) with a payload (its block shape).
        if (r.code.kind() == TypeKind::TensorDesc) words[next++] = payload;
      }
      codes |= static_cast<uint64_t>(code) << (16 * (i % 4));
      if (i % 4 == 3) {
        words[2 + i / 4] = codes;
        codes = 0;
      }
      if ((code & 3) == static_cast<uint16_t>(TypeKind::Constexpr)) {
        words[next++] = payload;
      } else if constexpr (kPack) {
        slots[num_packed] = slot;
        pointers[num_packed] = &slots[num_packed];
        ++num_packed;
      }
    }
    if (n % 4 != 0) words[2 + n / 4] = codes;
    if constexpr (kPack) packed->count = num_packed;
    key->num_params = n;
    key->num_words = next;
    key->hash = hash_words(words, next);
    return full;
  }

  Specialization describe(const SpecKey& key, const ArgValue* args, const LaunchConfig& c, const Target& t) const {
    Specialization s;
    s.num_warps = c.num_warps;
    s.num_stages = c.num_stages;
    s.num_ctas = c.num_ctas;
    s.target = t.str();
    for (uint32_t i = 0; i < key.num_params; ++i) s.params.push_back(detail::describe(key.param(i), args[i]));
    return s;
  }
};

// Room for a call's arguments with defaults filled in, left uninitialized: a launch writes only
// the slots it uses, and only when defaults are needed.
struct ArgStorage {
  alignas(ArgValue) unsigned char bytes[sizeof(ArgValue) * kMaxParams];
  ArgValue* data() { return reinterpret_cast<ArgValue*>(bytes); }
};
static_assert(std::is_trivially_copyable_v<ArgValue>);

}  // namespace triton_jit::detail

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
#include "key/repr.h"
#include "key/spec_key.h"
#include "launch/hit_counters.h"
#include "launch/launcher.h"
#include "launch/pointer_ranges.h"
#include "launch/table.h"
#include "launch/target_stages.h"
#include "triton_jit/binder.h"
#include "triton_jit/errors.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/signature.h"
#include "triton_jit/specialization.h"

namespace triton_jit {
class TritonJitFunction;
}

namespace triton_jit::detail {

class DecoratedCall;
struct DecoratedCallDeleter {
  void operator()(DecoratedCall* call) const noexcept;
};

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
  // The @triton.heuristics and @triton.autotune layers' runtime; null for a plain function. The
  // decorators' layer (above this one) defines it and its deleter.
  std::unique_ptr<DecoratedCall, DecoratedCallDeleter> decorated;
  // set_heuristics_through_python: every heuristic runs through Python, none is memoized.
  std::atomic<bool> heuristics_through_python{false};
  std::vector<ParamRule> rules;
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
  // Calls run through a wrapper's own run in Python (decorators/python_wrapper.h), and whether the
  // log said so yet.
  mutable std::atomic<uint64_t> python_wrapper_calls{0};
  std::atomic<bool> python_wrapper_said{false};

  // How a call's arguments meet the parameters (defaults, what the caller passes), made once from
  // `signature` after it is set; the Python extension binds through the same one. Last, so the
  // members a launch reads keep their places.
  std::optional<Binder> binder;

  // The @triton.jit function, for compiles, imported on first need (with the wrapper).
  bridge::PyHandle python_function();
  // The Python object the name holds (the outermost decorator), imported on first need.
  bridge::PyHandle python_wrapper();
  // python_wrapper() for what only Python runs (autotune hooks, a wrapper's own run): null where
  // Python cannot run here (offline, no source file, no interpreter), with *why saying so.
  bridge::PyHandle python_wrapper_or_why(std::string* why);

  // ---- cold error paths: messages are built only when something is wrong ----

  // A value the annotated type cannot hold. Triton's binder takes the annotation's type whatever
  // the value, so it accepts such calls: the runtime refuses them where Triton's launcher would
  // fail or pass something else than meant (docs/DESIGN.md, "Where the runtime is deliberately
  // stricter than Triton"). Says what Triton would do and how to pass the value.
  [[gnu::cold, gnu::noinline]] static std::string annotation_mismatch(const ParamInfo& p, ArgValue::Kind given,
                                                                      const char* kind);

  [[noreturn, gnu::cold, gnu::noinline]] void fail_arg(int index, ArgProblem problem, const ArgValue& arg) const;

  [[noreturn, gnu::cold, gnu::noinline]] void fail_config(const LaunchConfig& c) const;

  void check_config(const LaunchConfig& c) const {
    const unsigned warps = static_cast<unsigned>(c.num_warps);
    if (warps == 0 || warps > 64 || (warps & (warps - 1)) != 0 ||
        (c.num_stages < 0 && c.num_stages != kTargetDefaultNumStages) || c.num_stages > 255 || c.num_ctas < 1 ||
        c.num_ctas > 16) {
      fail_config(c);
    }
  }

  // ---- key building, shared by launch, specialize and compile ----

  [[noreturn, gnu::cold, gnu::noinline]] void fail_none_scalar(uint32_t index, const ParamCode& code) const;

  // The general path of one parameter (annotations, and the errors): kept out of the loop so the
  // common path stays in registers.
  struct SlowResult {
    ParamCode code;
    uint64_t slot = 0;
  };
  [[noreturn, gnu::cold, gnu::noinline]] void fail_descriptor(uint32_t i, const std::string& why) const;

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

  // Completes `args` with defaults (the binder, into `storage` when needed) and builds the key for
  // the target (arch, warp_size; hip: an AMD one, whose default num_stages is HIP's); with kPack,
  // also packs the runtime arguments into `packed` in the same pass. Returns the argument array
  // to use from here on.
  template <bool kPack>
  const ArgValue* bind(const LaunchConfig& c, ArgSpan args, int arch, int warp_size, bool hip, SpecKey* key,
                       ArgValue* storage, PackedParams* packed) const {
    const uint32_t n = static_cast<uint32_t>(rules.size());
    const ArgValue* full = args.data;
    if (args.size != n) {
      binder->complete(args, storage);
      full = storage;
    }
    check_config(c);
    uint64_t* words = key->words;
    // The key holds the number the kernel compiles with, never kTargetDefaultNumStages.
    const int stages = key_num_stages(c.num_stages, hip, arch, warp_size);
    words[0] = make_header(c.num_warps, stages, c.num_ctas, arch, warp_size);
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

  // bind for an explicit target, with Triton's HIP 'S' flags where the target has them. Never on
  // a CUDA cached launch (launch_call binds for the device itself).
  template <bool kPack>
  const ArgValue* bind_for(const LaunchConfig& c, ArgSpan args, const Target& target, SpecKey* key, ArgValue* storage,
                           PackedParams* packed) const {
    const bool hip = target.backend == "hip";
    const ArgValue* full = bind<kPack>(c, args, target.arch, target.warp_size, hip, key, storage, packed);
    if (target.backend != "cuda" && pointer_ranges_for(target, signature.function)) {
      mark_pointer_ranges(rules.data(), full, key);
    }
    return full;
  }

  // The call keyed as `key`: its num_stages is the key's, the target's default resolved.
  Specialization describe(const SpecKey& key, const ArgValue* args, const LaunchConfig& c, const Target& t) const {
    Specialization s;
    s.num_warps = c.num_warps;
    s.num_stages = header_num_stages(key.words[0]);
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

#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "triton_jit/jit_function.h"

// triton_jit.Kernel: one @triton.jit function behind Triton's calling convention,
// `k[grid](*args, num_warps=..., stream=..., **constexprs)`, over the runtime's non-template
// launch. What a call needs to know of the function (which parameters the caller passes, their
// names and defaults, whether decorators set others: the function's Binder) is made once, with the
// function; the Kernel adds the names as interned Python strings.
namespace triton_jit::python {

struct OptionsEntry;
struct DeferredLaunch;

// What a call does with triton_jit.empty_like placeholders (placeholder.h).
enum class PlaceholderUse : uint8_t {
  Allocate,         // allocates them; the launch returns the arrays
  RefuseDeferred,   // a launch inside jax.jit: XLA's buffers, declared with triton_jit.empty
  RefuseInstalled,  // JITFunction.run under triton_jit.install(): returns no output (TypeError)
};

class Kernel {
 public:
  explicit Kernel(TritonJitFunction& fn);
  // A kernel whose function is found at first use: `triton_object` (the @triton.jit function or
  // its wrapper) is not yet held by a module-level name, as under a decorator
  // (`@triton_jit.jit` above `@triton.jit`). `resolve(triton_object)` returns (path, name).
  Kernel(nanobind::object triton_object, nanobind::object resolve);
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // The function; resolves a pending kernel first (may raise KernelLookupError).
  TritonJitFunction& fn() {
    if (fn_ == nullptr) resolve();
    return *fn_;
  }
  const std::string& name() const noexcept { return fn_->name(); }  // after fn()
  bool resolved() const noexcept { return fn_ != nullptr; }
  // The Triton object a decorator was given (None for a kernel got by path or module): module
  // globals holding a Kernel lead the runtime to the function through it, as `.fn` of Triton's
  // own wrappers does.
  const nanobind::object& triton_object() const noexcept { return triton_object_; }

  // The parameters the caller passes (those no decorator sets), in order.
  std::vector<std::string> arg_names();

  // Calls take Python's vectorcall form: `nargs` positional arguments, then one value per name of
  // the tuple `kwnames` (nullptr: none), all in `args`.
  //
  // The call k[grid](*args, **kwargs); `grid` is a tuple of up to three ints, an int, or a
  // callable taking the call's arguments by name (Triton's `meta`). Returns the arrays allocated
  // for triton_jit.empty_like placeholders (a new reference: the array for one, a tuple in
  // parameter order for several), nullptr when the call passed none.
  //
  // `skip_keywords`: bit i set, keyword i of `kwnames` is not the kernel's (triton_jit.install()'s
  // run is called with grid= and warmup= among the kernel's keywords) and is ignored.
  PyObject* launch(nanobind::handle grid, PyObject* const* args, size_t nargs, PyObject* kwnames,
                   PlaceholderUse placeholders = PlaceholderUse::Allocate, uint64_t skip_keywords = 0);
  // The same call's specialization, or compiled kernel, without launching (no GPU needed).
  Specialization specialize(PyObject* const* args, size_t nargs, PyObject* kwnames);
  const KernelInfo& compile(PyObject* const* args, size_t nargs, PyObject* kwnames);
  // A launch's work in Python and the extension without the launch: arguments converted, options,
  // stream. For benchmarks that split a launch's host time (bench/python/launch_bench.py).
  void bind(PyObject* const* args, size_t nargs, PyObject* kwnames);
  // A launch to be made later by XLA (xla_ffi.h): the call's arguments converted, with stand-ins
  // for the buffers XLA will hand over, its grid computed and its specialization checked now (no
  // GPU), so that errors show where the call was written.
  void prepare_deferred(nanobind::handle grid, PyObject* const* args, size_t nargs, PyObject* kwnames,
                        DeferredLaunch& out);

 private:
  struct Call;
  void prepare(Call& call, PyObject* const* args, size_t nargs, PyObject* kwnames, bool launching,
               uint64_t skip_keywords = 0);
  // The array for placeholder argument `i` (allocated once per call and placeholder; the call owns
  // it), or the error where the call allows no placeholder. Cold.
  [[gnu::cold, gnu::noinline]] PyObject* bind_placeholder(Call& call, size_t i, PyObject* placeholder);
  const CompileOptions* options_for(Call& call);
  void set_grid(Call& call, nanobind::handle grid);
  // The launch when Triton's launch hooks are set (cold).
  [[gnu::cold, gnu::noinline]] void launch_hooked(Call& call, nanobind::handle grid);

  void init(TritonJitFunction& fn);
  void resolve();

  TritonJitFunction* fn_ = nullptr;
  nanobind::object triton_object_;
  nanobind::object resolve_;
  // Binds the call's arguments: the function's own binder (every call of the function goes through
  // it), which holds which parameters the caller passes, their defaults and names.
  const Binder* binder_ = nullptr;
  // Per caller position, the parameter's name (the signature's, for conversion messages) and the
  // same interned: keywords are found by identity first.
  std::vector<const std::string*> names_;
  std::vector<nanobind::object> py_names_;
  // Per caller position, the default's Python value for a grid function's meta (null: none).
  std::vector<nanobind::object> py_defaults_;
  bool decorated_ = false;
  bool need_bytes_ = false;
  std::vector<std::unique_ptr<OptionsEntry>> options_cache_;
};

void register_kernel(nanobind::module_& m);

}  // namespace triton_jit::python

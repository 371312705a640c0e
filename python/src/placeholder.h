#pragma once

#include <nanobind/nanobind.h>

#include <string>

// triton_jit.empty_like(like, dtype=None, shape=None): an output a launch allocates. The object
// only records what to allocate (no memory yet); a launch through the front end that is passed one
// for a pointer argument allocates it inside the C++ call with the framework of `like` (torch:
// torch.empty_like / Tensor.new_empty called from C, no Python frame; CuPy and JAX through
// triton_jit/_placeholder.py), binds the new array as that argument (its key is a real array's)
// and returns it. One Python call then does what torch.add does: allocate and launch.
namespace triton_jit::python {

extern PyTypeObject* g_placeholder_type;

inline bool is_placeholder(PyObject* o) noexcept { return Py_TYPE(o) == g_placeholder_type; }

// The array placeholder `p` stands for, allocated now: a new reference. Throws ArgumentError
// naming `function` and `param` when `like` is no array of a framework the launcher allocates in,
// or the framework refuses the dtype or shape; other failures of the allocator (out of memory)
// propagate as the framework raised them.
PyObject* allocate_placeholder(PyObject* p, const std::string& function, const std::string& param);

// The error for a placeholder passed where the launcher allocates none (a constexpr parameter, a
// launch inside jax.jit, Triton's own launch under triton_jit.install()).
[[noreturn]] void fail_placeholder(PyObject* p, const std::string& function, const std::string& param,
                                   const std::string& why);

void register_placeholder(nanobind::module_& m);

}  // namespace triton_jit::python

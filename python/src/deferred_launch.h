#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "triton_jit/jit_function.h"
#include "triton_jit/tensor_descriptor.h"

// Launches prepared in Python and made later by XLA: a kernel launch inside jax.jit becomes an
// XLA FFI custom call (xla_ffi.cpp) whose `launch` attribute names one of these. Preparing one
// converts the call's arguments as a launch does, with stand-in addresses for the buffers XLA
// will hand over (its operands, then its results); the handler puts the real addresses in their
// place and launches on XLA's stream.
namespace triton_jit::python {

struct DeferredLaunch {
  TritonJitFunction* fn = nullptr;
  LaunchConfig config;                        // grid and options; the stream is XLA's
  std::optional<CompileOptions> own_options;  // when the kernel's option cache could not hold them
  std::vector<ArgValue> values;               // the call's arguments, buffers as stand-ins
  std::vector<nanobind::object> keep;         // the objects string arguments view
  std::unique_ptr<TensorDescriptor[]> descriptors;  // what descriptor arguments point at
  // Which values are buffers, and which of the custom call's buffers each one is.
  struct Slot {
    uint32_t value;
    uint32_t buffer;
  };
  std::vector<Slot> buffers;
};

// The stand-in address of the custom call's buffer `index`: aligned as XLA's buffers are (so the
// specialization checked when preparing is the one launched), and tagged so no real pointer is
// taken for one.
uint64_t deferred_buffer_address(uint32_t index);

// Finds the stand-ins among `d`'s values and keeps the launch for the process's lifetime; its id.
// Ids are read without a lock by the handler.
int64_t register_deferred(std::unique_ptr<DeferredLaunch> d);

// The launch named `id`; nullptr when there is none.
const DeferredLaunch* find_deferred(int64_t id) noexcept;

// The XLA FFI handler (an XLA_FFI_Handler*); nullptr when built without jax's FFI headers.
void* xla_ffi_handler() noexcept;
// The same for XLA's CPU platform, launching on the default stream: for tests without a GPU.
void* xla_ffi_host_test_handler() noexcept;
// For tests without a GPU: the host handler calls emulator(id, [(argument index, buffer index,
// address, bytes) of each buffer]) instead of launching; None to launch again.
void set_xla_host_test_emulator(nanobind::handle emulator);

}  // namespace triton_jit::python

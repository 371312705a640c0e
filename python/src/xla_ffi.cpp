// The XLA FFI handler of kernel launches inside jax.jit (built when jax's FFI headers are found,
// TRITON_JIT_XLA_FFI). XLA calls it with its CUDA stream, the custom call's operands and results
// (device buffers) and the `launch` attribute naming a DeferredLaunch; the launch goes through the
// runtime as any other (its cache, its specialization), on XLA's stream. JAX on ROCm calls the same
// handler (registered for both platforms, triton_jit/_jax.py) with a hipStream_t: the runtime,
// launching through the HIP runtime there, takes it where a CUstream goes, and each buffer's size
// gives Triton's HIP 'S' flag as a tensor's storage does. StreamContext is CUDA's alone (HIP has
// no context to switch: XLA's thread has its device current).
#include <dlfcn.h>
#include <xla/ffi/api/ffi.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "deferred_launch.h"

namespace ffi = xla::ffi;

namespace triton_jit::python {
namespace {

constexpr size_t kInlineArgs = 64;

// The runtime launches on the calling thread's current context (device 0's primary one when there
// is none); XLA's thread may have none, or another device's. The handler makes the stream's own
// context current for the launch, through the driver XLA has already loaded.
struct CUctx_st;
using GetCtx = int (*)(CUstream_st*, CUctx_st**);
using CtxGet = int (*)(CUctx_st**);
using CtxSet = int (*)(CUctx_st*);

struct Driver {
  GetCtx stream_get_ctx = nullptr;
  CtxGet ctx_get_current = nullptr;
  CtxSet ctx_set_current = nullptr;
  Driver() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (lib == nullptr) return;
    stream_get_ctx = reinterpret_cast<GetCtx>(dlsym(lib, "cuStreamGetCtx"));
    ctx_get_current = reinterpret_cast<CtxGet>(dlsym(lib, "cuCtxGetCurrent"));
    ctx_set_current = reinterpret_cast<CtxSet>(dlsym(lib, "cuCtxSetCurrent"));
    if (stream_get_ctx == nullptr || ctx_get_current == nullptr || ctx_set_current == nullptr) {
      stream_get_ctx = nullptr;
    }
  }
};

// The stream's context current while it lives; the thread's previous one restored after.
class StreamContext {
 public:
  explicit StreamContext(CUstream_st* stream) {
    static const Driver driver;
    if (driver.stream_get_ctx == nullptr) return;
    CUctx_st* wanted = nullptr;
    if (driver.stream_get_ctx(stream, &wanted) != 0 || wanted == nullptr) return;
    if (driver.ctx_get_current(&previous_) != 0 || previous_ == wanted) return;
    if (driver.ctx_set_current(wanted) == 0) set_ = driver.ctx_set_current;
  }
  ~StreamContext() {
    if (set_ != nullptr) set_(previous_);
  }
  StreamContext(const StreamContext&) = delete;
  StreamContext& operator=(const StreamContext&) = delete;

 private:
  CUctx_st* previous_ = nullptr;
  CtxSet set_ = nullptr;
};

// The emulator of the host test handler (a Python callable, owned), set under the GIL; read by
// XLA's threads, which hold a reference of their own while they call it.
std::atomic<PyObject*> g_host_test_emulator{nullptr};

// Calls the emulator with the launch's id and the buffers it was given, under the GIL (XLA runs
// the call with the GIL released, as it does jax.pure_callback's).
ffi::Error emulate(int64_t id, const DeferredLaunch& d, const ArgValue* values) {
  nanobind::gil_scoped_acquire gil;
  try {
    nanobind::list buffers;
    for (const DeferredLaunch::Slot& s : d.buffers) {
      buffers.append(nanobind::make_tuple(s.value, s.buffer, values[s.value].address(), values[s.value].extent()));
    }
    nanobind::object emulator = nanobind::borrow(g_host_test_emulator.load());
    if (!emulator.is_valid()) return ffi::Error::Internal("triton_jit: the host test emulator was unset");
    emulator(id, buffers);
  } catch (const std::exception& e) {
    return ffi::Error::Internal(std::string("triton_jit: the host test emulator failed: ") + e.what());
  }
  return ffi::Error::Success();
}

ffi::Error run(CUstream_st* stream, int64_t id, ffi::RemainingArgs operands, ffi::RemainingRets results,
               bool host_test) {
  const DeferredLaunch* d = find_deferred(id);
  if (d == nullptr) {
    return ffi::Error::InvalidArgument("triton_jit: no traced kernel launch has id " + std::to_string(id));
  }
  ArgValue inline_values[kInlineArgs];
  std::vector<ArgValue> heap_values;
  ArgValue* values = inline_values;
  if (d->values.size() > kInlineArgs) {
    heap_values.resize(d->values.size());
    values = heap_values.data();
  }
  std::copy(d->values.begin(), d->values.end(), values);
  const size_t num_operands = operands.size();
  for (const DeferredLaunch::Slot& s : d->buffers) {
    void* address = nullptr;
    size_t bytes = 0;
    if (s.buffer < num_operands) {
      auto buffer = operands.get<ffi::AnyBuffer>(s.buffer);
      if (buffer.has_error()) return buffer.error();
      address = buffer->untyped_data();
      bytes = buffer->size_bytes();
    } else {
      auto buffer = results.get<ffi::AnyBuffer>(s.buffer - num_operands);
      if (buffer.has_error()) return buffer.error();
      address = (*buffer)->untyped_data();
      bytes = (*buffer)->size_bytes();
    }
    // The size too: an autotuner's reset_to_zero and restore_value write the buffer.
    values[s.value] = ArgValue::pointer(address, values[s.value].dtype(), bytes);
  }
  if (host_test && g_host_test_emulator.load() != nullptr) return emulate(id, *d, values);
  LaunchConfig config = d->config;
  config.stream = stream;
  std::optional<StreamContext> context;
  if (stream != nullptr) context.emplace(stream);
  try {
    d->fn->launch(config, ArgSpan{values, d->values.size()});
  } catch (const std::exception& e) {
    return ffi::Error::Internal(std::string("triton_jit: ") + e.what());
  }
  return ffi::Error::Success();
}

ffi::Error launch(CUstream_st* stream, int64_t id, ffi::RemainingArgs operands, ffi::RemainingRets results) {
  return run(stream, id, operands, results, false);
}

XLA_FFI_DEFINE_HANDLER(
    g_launch_handler, launch,
    ffi::Ffi::Bind().Ctx<ffi::PlatformStream<CUstream_st*>>().Attr<int64_t>("launch").RemainingArgs().RemainingRets());

// The same handler for XLA's CPU platform, which has no stream: the launch goes to the default
// stream. Only for tests without a GPU, which see the custom call decoded, the launch found and
// the runtime's error (no device) come back as XLA's error; or, with an emulator set, the
// buffers each launch was given, handed to it instead of a launch.
ffi::Error launch_without_stream(int64_t id, ffi::RemainingArgs operands, ffi::RemainingRets results) {
  return run(nullptr, id, operands, results, true);
}

XLA_FFI_DEFINE_HANDLER(g_host_test_handler, launch_without_stream,
                       ffi::Ffi::Bind().Attr<int64_t>("launch").RemainingArgs().RemainingRets());

}  // namespace

void* xla_ffi_handler() noexcept { return reinterpret_cast<void*>(g_launch_handler); }
void* xla_ffi_host_test_handler() noexcept { return reinterpret_cast<void*>(g_host_test_handler); }

void set_xla_host_test_emulator(nanobind::handle emulator) {
  PyObject* previous = g_host_test_emulator.exchange(emulator.is_none() ? nullptr : emulator.inc_ref().ptr());
  Py_XDECREF(previous);
}

}  // namespace triton_jit::python

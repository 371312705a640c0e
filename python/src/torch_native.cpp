// The lookup of triton_jit._torch_native's table (torch_native.h) by the extension, and the test
// hooks that exercise the table without a GPU.
#include "torch_native.h"

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace triton_jit::python {
namespace {

enum class State { Unknown, Loaded, Absent };
State g_state = State::Unknown;
const TorchNativeApi* g_api = nullptr;

// Forgets the lookup, for tests that change what it finds.
void reset_torch_native() {
  g_state = State::Unknown;
  g_api = nullptr;
}

}  // namespace

const TorchNativeApi* torch_native() {
  if (g_state != State::Unknown) return g_api;
  // The package's helper imports the module and compares the torch it was built against with the
  // imported one, saying at debug level why it is left aside.
  nb::object capsule = nb::module_::import_("triton_jit._frameworks").attr("torch_native")();
  const TorchNativeApi* api = nullptr;
  if (!capsule.is_none()) {
    api = static_cast<const TorchNativeApi*>(PyCapsule_GetPointer(capsule.ptr(), kTorchNativeCapsuleName));
    if (api == nullptr) throw nb::python_error();
    // The table's layout is this version's: another (a module left from an older build) is not read.
    if (api->version != kTorchNativeApiVersion) api = nullptr;
  }
  g_api = api;
  g_state = api != nullptr ? State::Loaded : State::Absent;
  return g_api;
}

void register_torch_native(nb::module_& m) {
  // tests/python/test_torch_native.py: the reads a launch makes of a tensor, on any device (a
  // launch refuses host tensors, so without a GPU no launch shows them), and a fresh lookup of the
  // module.
  m.def(
      "_read_torch_tensor_for_test",
      [](nb::handle tensor, bool want_nbytes) -> nb::object {
        const TorchNativeApi* api = torch_native();
        if (api == nullptr) return nb::str("no module");
        TorchTensorFacts facts;
        const int rc = api->read_tensor(tensor.ptr(), want_nbytes, &facts);
        if (rc < 0) throw nb::python_error();
        if (rc == 0) return nb::none();
        nb::dict d;
        d["data_ptr"] = facts.address;
        d["dtype"] = nb::borrow(facts.dtype);
        d["is_cuda"] = facts.is_cuda;
        d["get_device"] = facts.device;
        if (want_nbytes) d["nbytes"] = facts.nbytes;
        return d;
      },
      nb::arg("tensor"), nb::arg("want_nbytes") = true,
      "What a launch reads of `tensor` through triton_jit._torch_native: a dict, None where the module declines "
      "the tensor (Python reads it), 'no module' where the module is not loaded.");
  m.def(
      "_torch_current_stream_for_test",
      [](int device) -> nb::object {
        const TorchNativeApi* api = torch_native();
        uint64_t handle = 0;
        if (api == nullptr || api->current_stream(device, &handle) == 0) return nb::none();
        return nb::int_(handle);
      },
      nb::arg("device"),
      "torch's current stream on CUDA device `device` as a launch asks it through triton_jit._torch_native; None "
      "where the module is not loaded or declines.");
  m.def("_torch_native_reset_for_test", &reset_torch_native,
        "Looks triton_jit._torch_native up again at the next torch tensor or placeholder.");
}

}  // namespace triton_jit::python

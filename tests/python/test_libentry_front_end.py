"""triton_jit.jit on a kernel under FlagGems' @libentry() (tests/kernels/libentry_kernels.py, over
FlagGems 5.0.2's own LibEntry with its device runtime stubbed): the front end takes the LibEntry
object as FlagGems' modules hold it, and the runtime reads the layers under it. No GPU needed."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "kernels"))

import libentry_kernels  # noqa: E402
import triton_jit  # noqa: E402
import triton_reference  # noqa: E402  (tests/support, on sys.path through conftest)


def test_front_end_takes_the_libentry_object():
    kernel = triton_jit.jit(libentry_kernels.hooked_kernel)
    assert kernel.name == "hooked_kernel"
    x = triton_reference.make_tensor(0x7f0000100000, "float32")
    spec = kernel.specialize(x, 1000)
    # The single config of the autotuner under LibEntry: BLOCK=64, num_warps=2.
    assert spec.triton_repr() == "[('*fp32', 'D'), ('i32', ''), ('constexpr', 64)]"
    assert spec.num_warps == 2

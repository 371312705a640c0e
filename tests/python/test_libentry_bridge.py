"""The bridge's view of FlagGems' @libentry() (src/bridge/python/triton_jit_bridge/libentry.py),
imported from the source tree without the C++ runtime, on FlagGems 5.0.2's own LibEntry
(tests/support/flaggems_libentry.py loads it with its device runtime stubbed): known by its class,
outermost only, a subclass never taken for it; and the FlagGems file kept for the tests is the
wheel's."""
import os
import sys

import pytest
import triton

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "src", "bridge", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "kernels"))

import flaggems_libentry  # noqa: E402  (tests/support, on sys.path through conftest)
import libentry_kernels  # noqa: E402
from triton_jit_bridge import libentry as bridge_libentry  # noqa: E402
from triton_jit_bridge import loading  # noqa: E402


def test_versions_agree_and_the_kept_file_is_flaggems_own():
    assert bridge_libentry.FLAGGEMS_VERSION == flaggems_libentry.FLAGGEMS_VERSION == "5.0.2"
    assert flaggems_libentry.record_hash(flaggems_libentry.libentry_source()) == \
        flaggems_libentry.LIBENTRY_RECORD_SHA256


def test_libentry_is_read_as_the_outermost_layer():
    obj = libentry_kernels.scaled_rows_kernel
    layers = loading._describe_decorators(obj, loading._unwrap(obj))
    assert [layer["kind"] for layer in layers] == ["libentry", "autotune", "heuristics"]
    assert layers[0]["divisibility"] == 16


def test_libentry_under_another_wrapper_is_refused():
    obj = libentry_kernels.scaled_rows_kernel
    wrapped = triton.heuristics(values={"X": lambda args: 1})(obj)
    with pytest.raises(loading.KernelLookupFailure, match="not the outermost one"):
        loading._describe_decorators(wrapped, loading._unwrap(obj))


def test_a_subclass_is_not_taken_for_libentry():
    class MyEntry(flaggems_libentry.LibEntry):
        def run(self, *args, **kwargs):
            return super().run(*args, **kwargs)

    obj = MyEntry(libentry_kernels.scaled_rows_kernel.fn)
    assert not bridge_libentry.is_libentry(obj)
    assert bridge_libentry.is_libentry(libentry_kernels.scaled_rows_kernel)
    try:
        layers = loading._describe_decorators(obj, loading._unwrap(obj))
    except loading.KernelLookupFailure:
        return  # refused: not taken for what it is not
    assert layers[0]["kind"] != "libentry"

"""Fails to import: a module that does not exist."""
import triton
import triton_jit_test_module_that_does_not_exist  # noqa: F401


@triton.jit
def never_kernel(x_ptr):
    pass

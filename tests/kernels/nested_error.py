"""Compile errors raised inside nested @triton.jit helpers: Triton's outermost CompilationError
shows only a caret under the call in the kernel; the reason is further down its chain of causes."""
import triton
import triton.language as tl


@triton.jit
def _check_block(BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 64 == 0, "BLOCK must be a multiple of 64")
    return BLOCK


@triton.jit
def _store_block(x_ptr, BLOCK: tl.constexpr):
    b = _check_block(BLOCK)
    offs = tl.arange(0, b)
    tl.store(x_ptr + offs, offs)


@triton.jit
def nested_assert_kernel(x_ptr, BLOCK: tl.constexpr):
    _store_block(x_ptr, BLOCK)


@triton.jit
def _undefined_helper(x_ptr):
    tl.store(x_ptr, no_such_name)  # noqa: F821 - the error under test


@triton.jit
def undefined_name_kernel(x_ptr):
    _undefined_helper(x_ptr)

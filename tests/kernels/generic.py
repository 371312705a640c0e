"""Unannotated runtime parameters and constexprs: the binder decides every type from the value."""
import triton
import triton.language as tl


@triton.jit
def generic_kernel(a, b, c, d, e, f, g, h, C0: tl.constexpr, C1: tl.constexpr, C2: tl.constexpr):
    pass


@triton.jit
def const_kernel(p: tl.const, q: "const", r, K: tl.constexpr):
    pass

"""do_not_specialize by index and by name, and do_not_specialize_on_alignment."""
import triton
import triton.language as tl


@triton.jit(do_not_specialize=[1, "c"], do_not_specialize_on_alignment=["d", 4])
def dns_kernel(a, b, c, d, e, f, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(a + offs, tl.load(e + offs) + b + c + d + f)

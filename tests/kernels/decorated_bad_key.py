"""An autotuner keyed by a name that is no parameter. Triton 3.9 refuses it when the module is
imported; earlier versions ignore the name. Alone in its file, so the import error of 3.9 stays
here."""
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n", "size"])
@triton.jit
def unknown_key_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pass

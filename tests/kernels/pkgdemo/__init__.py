"""A package whose kernels need it imported first, as real kernel libraries do: its __init__ sets
module-level values the kernel modules read (DEFAULT_BLOCK, SCALE) and registers itself in
preload_registry, so that a test can see that, and when, it ran."""
import triton.language as tl

import preload_registry

DEFAULT_BLOCK = 128  # the default BLOCK of pkgdemo.ops.scale.scale_kernel
SCALE = tl.constexpr(3)

preload_registry.VALUES["offset"] = 7  # what preload_user.py needs at import
preload_registry.ORDER.append("pkgdemo")

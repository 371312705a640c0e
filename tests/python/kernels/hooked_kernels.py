"""Kernels with a launch_metadata function, for the launch hook tests (test_launch_hooks.py)."""
import triton
import triton.language as tl


def _scale_metadata(grid, metadata, args):
    # What Triton hands it, kept whole so that the tests compare Triton's launch with the runtime's.
    return {
        "name": f"{metadata.name} [n={args['n_elements']}]",
        "bytes": 2 * args["n_elements"] * args["x_ptr"].element_size(),
        "grid_seen": grid,
        "metadata_seen": dict(metadata._asdict()),
        "args_seen": {k: (type(v).__name__, v.data_ptr() if hasattr(v, "data_ptr") else v) for k, v in args.items()},
    }


@triton.jit(launch_metadata=_scale_metadata)
def scale_kernel(x_ptr, out_ptr, n_elements, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * alpha, mask=mask)

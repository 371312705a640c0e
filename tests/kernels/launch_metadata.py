"""A kernel with a launch_metadata function, as Triton's profiling tutorials write one: launch
hooks (proton) see what it returns, merged into the launch's LazyDict."""
import triton
import triton.language as tl


def _scale_metadata(grid, metadata, args):
    # Triton calls it with the launch's grid, the kernel's metadata namedtuple and every argument
    # by name; this records what it got, for the tests to compare.
    n = args["n_elements"]
    return {
        "name": f"{metadata.name} [n={n}]",
        "bytes": 2 * n * args["x_ptr"].element_size(),
        "grid_seen": tuple(grid),
        "num_warps_seen": metadata.num_warps,
        "block_seen": args["BLOCK"],
        "arg_names_seen": tuple(args.keys()),
    }


@triton.jit(launch_metadata=_scale_metadata)
def scale_kernel(x_ptr, out_ptr, n_elements, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * alpha, mask=mask)

"""Host tensor descriptors in autotune hooks: a config pre_hook (FlagGems' host-TMA mm sets
`nargs["a_desc"].block_shape = [BLOCK_M, BLOCK_K]`) gets Triton's own TensorDescriptor, which it may
change; what it leaves in the dict is read back and replaces the launch's descriptor argument
before the key is built, as Triton's Autotuner runs the hook on nargs and then binds the changed
descriptor."""

from .versions import descriptor_fields, new_host_descriptor


def hook_descriptor(base, shape, strides, block_shape, padding):
    """The descriptor argument as a hook sees it: Triton's TensorDescriptor over `base` (the torch
    tensor hook_tensor made, or its stand-in)."""
    return new_host_descriptor(base, shape, strides, block_shape, padding)


def _ints(values, what, name):
    try:
        return [int(v) for v in values]
    except TypeError as e:
        raise TypeError(f"the hook left {what} of '{name}' as {values!r}, which is not a list of ints") from e


def read_hook_descriptors(args, names):
    """What the hooks left for the descriptor parameters `names`: one (address, shape, strides,
    block_shape, padding) each, from the object now in the dict (a hook may also replace it)."""
    out = []
    for name in names:
        desc = args[name]
        if not hasattr(desc, "block_shape") or not hasattr(desc, "base"):
            raise TypeError(f"the hook replaced tensor descriptor '{name}' by a {type(desc).__name__}; "
                            "a descriptor argument must stay a TensorDescriptor")
        base, shape, strides, block_shape, padding = descriptor_fields(desc)
        out.append((int(base.data_ptr()), _ints(shape, "shape", name), _ints(strides, "strides", name),
                    _ints(block_shape, "block_shape", name), str(padding)))
    return out

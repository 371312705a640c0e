"""Triton's own path for a kernel whose autotune config pre_hook sets the block shape of host
tensor descriptors (tests/kernels/host_tma_mm.py, as FlagGems' host-TMA mm): Autotuner.run builds
full_nargs = {**nargs, **kwargs, **config.all_kwargs()}, runs config.pre_hook(full_nargs), and
fn.run then binds the descriptors the hook changed. The key is Triton's binder's on them."""
import triton_reference


def descriptors(a, b, c):
    """Triton TensorDescriptors over pointer stand-ins; each of a, b, c is (address, dtype name,
    shape, strides, block_shape)."""
    return [triton_reference.make_descriptor(*d) for d in (a, b, c)]


def hooked_specialization(autotuner, config_index, args, kwargs, target=("cuda", 90, 32)):
    """repr of Triton's specialization of `autotuner`'s function for config `config_index` after the
    config's pre_hook ran on Triton's dict, and the descriptors' block shapes the hook left."""
    config = autotuner.configs[config_index]
    nargs = dict(zip(autotuner.arg_names, args))
    full_nargs = {**nargs, **kwargs, **config.all_kwargs()}
    if config.pre_hook is not None:
        config.pre_hook(full_nargs)
    call_kwargs = {**kwargs, **config.kwargs}
    key = triton_reference.triton_specialization(autotuner.fn, [(list(args), call_kwargs)], target)[0]
    blocks = [list(a.block_shape) for a in args if hasattr(a, "block_shape")]
    return key, blocks

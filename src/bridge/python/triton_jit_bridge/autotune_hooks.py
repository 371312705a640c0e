"""Autotune hooks: an Autotuner's pre_hook and post_hook, a Config's pre_hook, run on the
arguments of a launch."""


from .autotune import _autotuner_at
from .heuristics import TensorArg, _TORCH_DTYPE_NAMES, _torch_module


# ----------------------------------------------------------------------------------------------
# Autotune hooks (Autotuner's pre_hook and post_hook, a Config's pre_hook), run on the dict
# Triton's Autotuner builds: the caller's arguments, what outer wrappers set, and the config's
# all_kwargs(). A pointer argument becomes a torch tensor over its memory when torch has CUDA and
# its size is known; otherwise a stand-in whose other attributes say what is missing.


class HookTensorUnavailable(TypeError):
    """A hook used more of a tensor argument than the runtime can give it."""


class HookTensorArg(TensorArg):
    """A pointer argument a hook receives when it cannot be a torch tensor: `dtype`,
    `data_ptr()` and `element_size()` work; any other attribute raises HookTensorUnavailable."""

    __slots__ = ("_name", "_why")

    def __init__(self, address, dtype_name, name, why):
        super().__init__(address, dtype_name)
        self._name = str(name)
        self._why = str(why)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise HookTensorUnavailable(
            f"the hook used .{attr} of argument '{self._name}', which the runtime cannot give it as a torch tensor: "
            f"{self._why}. From C++ pass it as an at::Tensor or as TypedPtr{{ptr, dtype, bytes}} (with its size in "
            "bytes), in a process where torch with CUDA imports")


class _DeviceBytes:
    """`nbytes` bytes of device memory at `address`, for torch.as_tensor (CUDA array interface)."""

    def __init__(self, address, nbytes):
        self.__cuda_array_interface__ = {"shape": (int(nbytes), ), "typestr": "|u1", "data": (int(address), False),
                                         "version": 2}


def hook_tensor(address, dtype_name, nbytes, name):
    """The argument `name` as a hook sees it: a 1-D torch tensor viewing its `nbytes` bytes as its
    dtype, on the device that holds it; a HookTensorArg saying why when that cannot be."""
    torch = _torch_module()
    if torch is None:
        why = "torch does not import"
    elif not torch.cuda.is_available():
        why = "torch has no CUDA device here (torch.cuda.is_available() is False)"
    elif nbytes <= 0:
        why = "its size is unknown (a plain pointer or a TypedPtr without bytes)"
    else:
        tname = next((t for t, n in _TORCH_DTYPE_NAMES.items() if n == dtype_name), None)
        if tname is None or not hasattr(torch, tname):
            why = f"torch has no dtype for its element type {dtype_name}"
        else:
            try:
                raw = torch.as_tensor(_DeviceBytes(address, nbytes))
                dtype = getattr(torch, tname)
                size = torch.empty((), dtype=dtype).element_size()
                return raw[:nbytes - nbytes % size].view(dtype)
            except Exception as e:  # noqa: BLE001 - reported through the stand-in
                why = f"torch could not view it: {type(e).__name__}: {e}"
    return HookTensorArg(address, dtype_name, name, why)


def autotune_hook_args(top, layer, config_index, names, values, num_passed, grid):
    """The dict autotuner `layer`'s hooks receive for config `config_index`, as Autotuner builds
    it ({**nargs, **kwargs, **config.all_kwargs()}): the caller's arguments (the first
    `num_passed` names), the `grid` and `warmup` that kernel[grid](...) passes on as keywords,
    what outer wrappers set (the other names), then config.all_kwargs()."""
    tuner = _autotuner_at(top, layer)
    args = dict(zip(names[:num_passed], values[:num_passed]))
    args["grid"] = tuple(grid)
    args["warmup"] = False
    args.update(zip(names[num_passed:], values[num_passed:]))
    args.update(tuner.configs[config_index].all_kwargs())
    return args


def _hook_stream(stream):
    """torch's current stream set to the launch's stream while a hook runs, so its tensor
    operations are ordered with the kernels (nothing when torch has no CUDA or it is stream 0)."""
    import contextlib
    torch = _torch_module()
    if not stream or torch is None or not torch.cuda.is_available():
        return contextlib.nullcontext()
    return torch.cuda.stream(torch.cuda.ExternalStream(stream))


def call_autotune_hook(top, layer, config_index, which, args, stream, reset_only, exception_message):
    """Runs one hook as Triton's Autotuner does: "config_pre_hook" is configs[config_index].pre_hook(args);
    "pre_hook" is the autotuner's pre_hook(args) (with reset_only=True after tuning); "post_hook" its
    post_hook(args, exception=...) (a RuntimeError carrying the launch's error when it failed)."""
    tuner = _autotuner_at(top, layer)
    with _hook_stream(stream):
        if which == "config_pre_hook":
            tuner.configs[config_index].pre_hook(args)
        elif which == "pre_hook":
            if reset_only:
                tuner.pre_hook(args, reset_only=True)
            else:
                tuner.pre_hook(args)
        else:
            exception = None if exception_message is None else RuntimeError(exception_message)
            tuner.post_hook(args, exception=exception)

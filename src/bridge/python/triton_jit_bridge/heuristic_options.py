"""@triton.heuristics values that set a launch option rather than a parameter.

Heuristics.run (Triton 3.4 to 3.9 alike) does `kwargs[name] = heur(args)` for each value, in the
dict's order, then `self.fn.run(*args, **kwargs)`: a value named num_warps, num_stages or num_ctas
reaches JITFunction.run as that launch option (FlagGems' softmax picks num_warps from the row
length). The runtime sets these three for the launch (src/decorators/decorated_call.cpp,
set_heuristic_option); a heuristic named after another compile option is refused here, as is one
whose launch option an autotuner below it passes too (Triton's call would fail).
"""

# Launch options the runtime takes from a heuristic (HeuristicOption in include/triton_jit/decorators.h).
LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas")


def _backend_option_names():
    """The compile options JITFunction.run takes as keywords on this Triton (its backends' option
    dataclasses), for messages."""
    import dataclasses
    names = set()
    for module, cls in (("triton.backends.nvidia.compiler", "CUDAOptions"),
                        ("triton.backends.amd.compiler", "HIPOptions")):
        try:
            options = getattr(__import__(module, fromlist=[cls]), cls)
            names.update(f.name for f in dataclasses.fields(options))
        except Exception:  # a backend this Triton lacks
            continue
    return names


def heuristic_target(obj, fn, name):
    """The parameter index a heuristic `name` of the Heuristics `obj` sets, or -1 for a launch option
    (LAUNCH_OPTIONS). Raises KernelLookupFailure for a name that is neither, or that Triton's own
    call would reject."""
    from .loading import KernelLookupFailure, _param_index
    qualname = fn.fn.__qualname__
    if name in [p.name for p in fn.params]:
        return _param_index(fn, name, "@triton.heuristics")
    if name in LAUNCH_OPTIONS:
        _refuse_under_tuner(obj, qualname, name)
        return -1
    if name in _backend_option_names():
        raise KernelLookupFailure(
            "bad_decorator", f"{qualname}: @triton.heuristics sets '{name}', a compile option the runtime does not "
            f"take from a heuristic (only {', '.join(LAUNCH_OPTIONS)}); set it in a triton.Config or pass it with the "
            "launch")
    return _param_index(fn, name, "@triton.heuristics")


def _refuse_under_tuner(obj, qualname, name):
    """Autotuner.run passes config.all_kwargs(), which always holds num_warps, num_stages and
    num_ctas, beside the caller's kwargs: a heuristic above an autotuner that sets one of them makes
    Triton's call fail ("got multiple values for keyword argument"). Refused at load, not run
    otherwise than Triton."""
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction

    from .loading import KernelLookupFailure
    inner = getattr(obj, "fn", None)
    while inner is not None and not isinstance(inner, JITFunction):
        if isinstance(inner, Autotuner):
            raise KernelLookupFailure(
                "bad_decorator", f"{qualname}: @triton.heuristics sets the launch option '{name}' above the autotuner "
                f"{type(inner).__name__}, whose configs pass {name} too; Triton's call fails with TypeError (multiple "
                f"values for keyword argument '{name}'). Put the heuristics under the autotuner, where they override "
                "the config's value")
        inner = getattr(inner, "fn", None)

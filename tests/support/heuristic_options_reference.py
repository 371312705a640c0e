"""Triton's own launch options for a call of a kernel whose @triton.heuristics set some, for
tests/cpu/heuristic_options_test.cpp: Heuristics.run and Autotuner.run run as Triton runs them
(timing replaced by a fixed choice), JITFunction.run is replaced by a recorder, and the options
are read as JITFunction.run reads its keywords: the backend's parse_options (a None dropped for the
default, CUDAOptions' assertions). Not part of the library."""


def triton_launch(obj, args, pick=0, target=("cuda", 90, 32)):
    """(specialization repr, num_warps, num_stages, num_ctas) Triton launches obj.run(*args) with,
    or ("error", type name, message) where Triton's call raises."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction

    import triton_reference
    inner, tuners = obj, []
    while not isinstance(inner, JITFunction):
        if isinstance(inner, Autotuner):
            tuners.append(inner)
        inner = inner.fn
    captured = []
    inner.run = lambda *a, **k: captured.append((a, k))  # the instance attribute shadows the method
    for t in tuners:
        t.cache.clear()
        t._bench = lambda *a, config, _t=t, **meta: [0.0 if _t.configs.index(config) == pick else 1.0] * 3
    try:
        obj.run(*args, grid=(1, ), warmup=False)
        run_args, run_kwargs = captured[-1]
        kwargs = {k: v for k, v in run_kwargs.items() if k not in ("grid", "warmup")}
        _, specialization, _ = triton_reference.binder(inner, target)(*run_args, **kwargs)
        names = [p.name for p in inner.params]
        options = make_backend(GPUTarget(*target)).parse_options({k: v for k, v in kwargs.items() if k not in names})
    except Exception as e:  # noqa: BLE001 - the test compares Triton's failure with the runtime's
        return ("error", type(e).__name__, str(e))
    finally:
        vars(inner).pop("run", None)
        for t in tuners:
            vars(t).pop("_bench", None)
    return (repr(specialization), options.num_warps, options.num_stages, options.num_ctas)

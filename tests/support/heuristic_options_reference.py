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

    import triton_reference
    try:
        inner, _, run_args, kwargs = triton_reference.wrappers_call(obj, args, pick)
        _, specialization, _ = triton_reference.binder(inner, target)(*run_args, **kwargs)
        names = [p.name for p in inner.params]
        options = make_backend(GPUTarget(*target)).parse_options({k: v for k, v in kwargs.items() if k not in names})
    except Exception as e:  # noqa: BLE001 - the test compares Triton's failure with the runtime's
        return ("error", type(e).__name__, str(e))
    return (repr(specialization), options.num_warps, options.num_stages, options.num_ctas)

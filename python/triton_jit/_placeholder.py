"""The Python side of triton_jit.empty_like placeholders (python/src/placeholder.cpp): allocation in
the frameworks other than torch (torch's is called from C), and the error for a placeholder that
reached a launch which allocates nothing (Triton's own kernel[grid](...)). Torch outputs are
allocated by libtorch from C++ (triton_jit._torch_native, found through
_frameworks.torch_native)."""
import sys

from ._frameworks import empty, framework_of


def allocate(like, dtype, shape):
    """The array a placeholder stands for, for a `like` that is not a torch.Tensor: CuPy's and JAX's
    own allocation (triton_jit.empty). Raises TypeError, which the launch reports naming the kernel
    and the parameter, for anything else."""
    fw = framework_of(like)
    if fw in ("cupy", "jax"):
        from . import _jax
        if fw == "jax" and _jax.is_tracer(like):
            raise TypeError("like= is a JAX tracer: under jax.jit a launch allocates no output; declare it with "
                            "triton_jit.empty(shape, like=x) and read out.value after the launch")
        out = empty(like.shape if shape is None else shape, dtype, like=like)
        if isinstance(out, _jax.Output):
            raise TypeError("the launch runs under a JAX trace, where it allocates no output; declare it with "
                            "triton_jit.empty(shape, like=x) and read out.value after the launch")
        if fw == "jax":
            # JAX fills it on a stream of its own: done before the kernel writes it.
            out.block_until_ready()
        return out
    if fw == "numpy":
        raise TypeError("like= is a numpy array, in host memory: kernels run on the GPU; make like= a GPU array "
                        "(torch, CuPy or JAX)")
    module = type(like).__module__ or "builtins"
    name = type(like).__qualname__ if module == "builtins" else f"{module}.{type(like).__qualname__}"
    raise TypeError(f"like= is an object of type {name}, not an array of a framework the launch allocates in (a "
                    f"torch.Tensor, a CuPy or a JAX array); pass one, or allocate the output yourself and pass it")


def _caller_names(placeholder):
    """(kernel, parameter) of the Triton launch now binding `placeholder`, read from the frames of
    Triton's binder (its locals are the kernel's parameters; Triton 3.4 and 3.5 specialize in a
    Python function of their own, whose local is `arg`) and of JITFunction.run (`self`); None for
    what is not found."""
    kernel, names = None, []
    frame = sys._getframe(2)
    for _ in range(12):
        if frame is None:
            break
        local = frame.f_locals
        names += [name for name, value in local.items() if value is placeholder and name != "self"]
        me = local.get("self")
        if kernel is None and type(me).__name__ in ("JITFunction", "GluonJITFunction"):
            kernel = me
        frame = frame.f_back
    params = set(getattr(kernel, "arg_names", None) or ())
    parameter = next((name for name in names if name in params), names[-1] if names else None)
    return (getattr(kernel, "__name__", None) if kernel is not None else None), parameter


def foreign_launch(placeholder):
    """Raises the error for a placeholder asked for its memory (data_ptr()) by a launch that does
    not allocate it."""
    kernel, parameter = _caller_names(placeholder)
    where = ""
    if parameter is not None:
        where += f"argument '{parameter}'"
    if kernel is not None:
        where += f"{' of ' if where else ''}{kernel}"
    raise TypeError(f"{where + ': ' if where else ''}{placeholder!r} was passed to a launch that allocates nothing "
                    f"(Triton's own kernel[grid](...), or triton_jit.install()'s): only a launch through triton_jit "
                    f"allocates placeholders. Launch with triton_jit.jit(kernel)[grid](...), or pass an array "
                    f"allocated beforehand (torch.empty_like(x))")

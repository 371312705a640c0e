"""What differs between Triton versions (3.4 and newer) and no attribute reveals: the version, the
types the dependency walk follows, Triton 3.4's key of tl.constexpr globals, the form of the launch
hooks and of a compiled kernel's metadata."""

import hashlib
import re
from collections import namedtuple

import triton


def triton_version():
    return triton.__version__


def _pin_constexpr_globals(fn, constexpr_globals):
    """Triton 3.4 only: its JITFunction.cache_key, which keys Triton's own disk cache, leaves out
    the values of the tl.constexpr globals a kernel reads (3.5 and newer hash them), so after
    such a global is edited Triton 3.4 hands back the old binary. Here the values are hashed into
    `fn`'s key as 3.5 does, once per function object; kernels reading none keep Triton's key."""
    if not constexpr_globals or getattr(fn, "_triton_jit_pinned", False) or _triton_version() >= (3, 5):
        return
    key = fn.cache_key + str(constexpr_globals)
    fn.hash = hashlib.sha256(key.encode("utf-8")).hexdigest()
    fn._triton_jit_pinned = True


def _triton_version():
    """(major, minor) of the installed Triton, for the rare difference no attribute reveals."""
    return tuple(int(p) for p in re.findall(r"\d+", triton.__version__)[:2])


def _dependency_types():
    """What the dependency walk follows among the values DependenciesFinder hashes: JITCallable
    (Triton 3.5 and newer: @triton.jit functions and @triton.constexpr_function helpers, the only
    values _update_hash receives), else JITFunction (Triton 3.4, whose _update_hash receives every
    value a name or attribute resolves to: numbers, modules, plain functions, None)."""
    import triton.runtime.jit as jit
    return getattr(jit, "JITCallable", jit.JITFunction)


def hook_chain_type():
    """triton.knobs.HookChain (3.5 and newer: each launch hook knob holds one, empty by default,
    which Triton calls on every launch), or None (3.4: a knob holds None or the hook itself)."""
    from triton import knobs
    return getattr(knobs, "HookChain", None)


def launch_hook_set(hook):
    """Whether a launch hook knob's value does something when Triton calls it: anything but None
    and an empty HookChain."""
    if hook is None:
        return False
    chain_type = hook_chain_type()
    if chain_type is not None and isinstance(hook, chain_type):
        return bool(hook.calls)
    return True


def kernel_metadata(metadata):
    """A compiled kernel's `metadata` namedtuple, from its JSON dict, as CompiledKernel.__init__
    makes it: the target a GPUTarget, and (3.4 and 3.5, the versions with the field) cluster_dims
    a tuple."""
    from triton.backends.compiler import GPUTarget
    target = metadata["target"]
    metadata["target"] = GPUTarget(target["backend"], target["arch"], target["warp_size"])
    if "cluster_dims" in metadata:
        metadata["cluster_dims"] = tuple(metadata["cluster_dims"])
    return namedtuple("KernelMetadata", sorted(metadata.keys()))(**metadata)

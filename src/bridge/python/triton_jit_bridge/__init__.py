"""Bridge between libtriton_jit and the installed Triton.

The C++ runtime embeds this package's sources (cmake/embed_bridge.cmake: a table of module sources,
imported through _finder.py) and calls only the names below. Everything that differs between
Triton versions (3.4 and newer) is handled in this package, so the C++ side never branches on a
version.

Its modules, by job: loading (kernel modules, preloads, decorators described), targets (backends,
architectures, compile requests checked), compiler (one compile), versions (what differs between
Triton versions), triton_key (Triton's installation key, handed on and kept), worker, fork_server
and pool (parallel compiles in worker processes), errors (exceptions described for C++),
heuristics and heuristic_translation (@triton.heuristics called, or translated into a program
C++ runs), autotune and autotune_hooks (Triton's autotuning cache, pruning, hooks), launch_hooks
(Triton's launch hooks watched and called around the runtime's launches), wrappers (which kind of
decorator layer a wrapper is; a wrapper's own run called through Python), libtuner (FlagGems'
LibTuner described; its custom policy run).
"""

from .autotune import autotune_cache_lookup, autotune_cache_store, prune_autotune_configs
from .autotune_hooks import autotune_hook_args, call_autotune_hook, hook_tensor
from .hook_descriptors import hook_descriptor, read_hook_descriptors
from .compiler import compile
from .errors import describe_exception
from .heuristic_translation import translate_heuristic
from .heuristics import OpaqueArg, TensorArg, call_heuristic, heuristic_result_description
from .libtuner import run_libtuner_policy
from .launch_hooks import begin_host_call, end_host_call, install_launch_hook_observer, launch_enter, launch_exit
from .loading import (KernelLookupFailure, adopt_module, decorator_callable, load_function, module_file, set_preload,
                      workers_may_load)
from .pool import compile_many, compile_pool
from .targets import (_constexpr_value, check_compile_request, hip_target_rules, specialization,
                      target_default_num_stages)
from .triton_key import set_index_dir_for_triton_key
from .versions import triton_version
from .wrappers import run_wrapper, wrapper_argument
from .worker import worker_context


def __getattr__(name):
    # The worker pool, which compile_pool creates and rebinds: read where it lives, not copied at import.
    if name == "_pool":
        from . import pool
        return pool._pool
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

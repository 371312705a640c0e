"""Installs triton_jit in the Python processes a program run by `python -m triton_jit.install`
starts (multiprocessing's spawned workers, `subprocess.run([sys.executable, ...])`, torchrun's
workers): the runner puts this folder first on PYTHONPATH and sets TRITON_JIT_INSTALL=1, and
Python's site module imports this file at start-up.

Nothing is imported here but what the start-up needs: a process that never imports triton pays for
a path lookup and no more. When the process imports triton, triton_jit.install() runs right after
triton's own import completes. A sitecustomize this one shadows (a distribution's, a virtualenv's)
runs first, as it would have without the runner.
"""
import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _run_shadowed_sitecustomize():
    """Imports the next sitecustomize on sys.path, the one Python would have imported."""
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    ours = sys.modules.get("sitecustomize")
    sys.modules["sitecustomize"] = module
    try:
        spec.loader.exec_module(module)
    except Exception:
        sys.modules["sitecustomize"] = ours
        raise


class _InstallAfterTriton:
    """Finds `triton` as the other finders do, and has its loader call triton_jit.install() once
    triton's import has completed (the whole package initialized: install() reads
    triton.runtime.jit and knobs). The spec and its loader stay the real ones (importlib.resources
    and the like ask the loader): only this loader instance's exec_module is wrapped."""

    def find_spec(self, name, path=None, target=None):
        if name != "triton":
            return None
        sys.meta_path.remove(self)  # once: the real spec, from the finders after this one
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        exec_triton = spec.loader.exec_module

        def exec_module(module):
            exec_triton(module)
            # After triton's own import: an error there stays triton's, and an install that
            # fails leaves the program on Triton's own launch, saying why.
            try:
                import triton_jit
                triton_jit.install()
            except Exception as e:  # noqa: BLE001 - the program runs on, on Triton's launch
                print(f"warning: triton_jit.install() failed in process {os.getpid()}: {type(e).__name__}: {e}",
                      file=sys.stderr)

        spec.loader.exec_module = exec_module
        return spec


_run_shadowed_sitecustomize()
if os.environ.get("TRITON_JIT_INSTALL") == "1" and "triton" not in sys.modules:
    sys.meta_path.insert(0, _InstallAfterTriton())

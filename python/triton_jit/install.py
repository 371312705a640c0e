"""python -m triton_jit.install script.py ARGS...: runs the script as `python script.py ARGS...`
would (as __main__, with sys.argv and sys.path[0] as Python sets them), with triton_jit.install()
in effect, for programs one cannot edit. `-m module ARGS...` runs a module instead, as
`python -m module ARGS...` would.

The Python processes the program starts are installed too (multiprocessing's spawned workers,
subprocesses of sys.executable, torchrun's workers): they inherit TRITON_JIT_INSTALL=1 and, first
on PYTHONPATH, the folder of _child_install/sitecustomize.py, which installs right after such a
process imports triton (one that never does pays nothing more)."""
import os
import runpy
import sys
import types

USAGE = "usage: python -m triton_jit.install script.py [ARGS...]  |  python -m triton_jit.install -m module [ARGS...]"


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    import triton_jit
    triton_jit.install()
    _install_children()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        sys.path[0] = os.getcwd()  # as `python -m` sets it
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))  # as `python script.py` sets it
    runpy.run_path(argv[0], run_name="__main__")
    return 0


def _install_children():
    """The environment the program's own Python processes inherit (see the module's doc)."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_child_install")
    os.environ["TRITON_JIT_INSTALL"] = "1"
    path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = folder + (os.pathsep + path if path else "")


class _CallableModule(types.ModuleType):
    """`import triton_jit.install` makes the package's attribute `install` this module (the import
    system sets it), in place of the function: calling the module still installs."""

    def __call__(self):
        from ._install import install
        return install()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
else:
    sys.modules[__name__].__class__ = _CallableModule

"""The `triton-jit` console script of an installed package: runs the CLI binary shipped inside it,
with the runtime's Python set to this interpreter (the one whose Triton the package was installed
for) unless TRITON_JIT_PYTHON says otherwise."""
import os
import sys


def main():
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "triton-jit")
    if not os.path.isfile(exe):
        sys.stderr.write(f"triton-jit: {exe} is missing: this triton_jit was built without its command-line tool "
                         f"(nlohmann-json3-dev was not found)\n")
        return 1
    env = dict(os.environ)
    env.setdefault("TRITON_JIT_PYTHON", sys.executable)
    os.execve(exe, [exe, *sys.argv[1:]], env)


if __name__ == "__main__":
    sys.exit(main())

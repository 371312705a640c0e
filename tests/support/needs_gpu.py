"""Runs a test command that needs a GPU, or reports it skipped without starting it.

    needs_gpu.py COMMAND [ARGS...]
    needs_gpu.py --shared-without-gpu SUITE COMMAND [ARGS...]
    needs_gpu.py --without-gpu COMMAND [ARGS...]

The two other forms split a group of test files between machines: without a GPU they run in one
process, the test SUITE (`--without-gpu`: runs only without a GPU), and each file's own test
(`--shared-without-gpu SUITE`: runs only with one) reports as skipped, naming SUITE; with a GPU
each file runs in a process of its own, as CUDA's state (torch's, JAX's, the runtime's) of one file
then never meets another's.

Test files whose every test needs a GPU (tests/python/*_gpu.py, tests/torch/python/test_cuda_*.py)
each skip on their own without one, but only after starting Python, pytest, torch and Triton:
4 to 5 s of a 2-core machine per file for nothing. This looks for a GPU first, as the runtime
finds one: an NVIDIA GPU as its driver sees it (libcuda.so.1, cuInit, cuDeviceGetCount,
honouring CUDA_VISIBLE_DEVICES), else an AMD GPU through the HIP runtime (TRITON_JIT_HIP_LIBRARY,
else libamdhip64.so: hipInit, hipGetDeviceCount). Without
one prints the line that CTest's SKIP_REGULAR_EXPRESSION reports as skipped (tests/CMakeLists.txt,
TRITON_JIT_NEEDS_GPU_SKIP). With one, the command runs as given and its status is the test's.
"""
import ctypes
import os
import sys

SKIP_MARK = "SKIPPED (needs a CUDA GPU):"
GPU_PRESENT_MARK = "SKIPPED (a GPU is present):"


def why_no_gpu():
    """None where a GPU is usable: an NVIDIA one through libcuda, else an AMD one through the HIP
    runtime (as the runtime itself chooses); else why neither is."""
    cuda_why = why_no_cuda_gpu()
    if cuda_why is None:
        return None
    hip_why = why_no_hip_gpu()
    return None if hip_why is None else f"{cuda_why}; {hip_why}"


def why_no_hip_gpu():
    """None where the HIP runtime (TRITON_JIT_HIP_LIBRARY, else libamdhip64.so) sees an AMD GPU."""
    library = os.environ.get("TRITON_JIT_HIP_LIBRARY") or "libamdhip64.so"
    try:
        hip = ctypes.CDLL(library)
    except OSError as e:
        return f"no AMD GPU runtime ({e})"
    result = hip.hipInit(0)
    if result != 0:
        return f"hipInit failed with hipError_t {result}: no usable AMD GPU"
    count = ctypes.c_int(0)
    result = hip.hipGetDeviceCount(ctypes.byref(count))
    if result != 0 or count.value == 0:
        return "the HIP runtime reports no GPU"
    return None


def why_no_cuda_gpu():
    """None where libcuda sees an NVIDIA GPU; else why not."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return f"no CUDA driver ({e})"
    result = cuda.cuInit(0)
    if result != 0:
        return f"cuInit failed with CUresult {result}: no usable CUDA GPU"
    count = ctypes.c_int(0)
    result = cuda.cuDeviceGetCount(ctypes.byref(count))
    if result != 0 or count.value == 0:
        return "the CUDA driver reports no GPU"
    return None


def main(argv):
    usage = "usage: needs_gpu.py [--without-gpu | --shared-without-gpu SUITE] COMMAND [ARGS...]"
    mode, suite = "gpu", None
    if argv[:1] == ["--without-gpu"]:
        mode, argv = "no_gpu", argv[1:]
    elif argv[:1] == ["--shared-without-gpu"]:
        if len(argv) < 2:
            sys.exit(usage)
        mode, suite, argv = "shared", argv[1], argv[2:]
    if not argv:
        sys.exit(usage)
    reason = why_no_gpu()
    if mode == "no_gpu":
        if reason is None:
            print(f"{GPU_PRESENT_MARK} with a GPU each of its files is a test of its own, in a process of its own")
            return 0
    elif reason is not None:
        if mode == "shared":
            print(f"{SKIP_MARK} {reason}; without one {suite} runs {' '.join(argv[-1:])}, with the other files, in one process")
        else:
            print(f"{SKIP_MARK} {reason}; every test of {' '.join(argv[-1:])} needs one")
        return 0
    sys.stdout.flush()
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

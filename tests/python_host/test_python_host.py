"""The runtime loaded into a Python process joins that interpreter (no second one) and agrees
with Triton's own binder there."""
import os
import sys
import threading

sys.path.insert(0, os.environ["HOST_MODULE_DIR"])
KERNEL = os.path.join(os.environ["KERNELS_DIR"], "vector_add.py")

import triton  # noqa: E402  (imported first on purpose: the host already runs Triton)
import triton_jit_host_test as host  # noqa: E402


def triton_reference(n):
    import importlib.util
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature
    spec = importlib.util.spec_from_file_location("reference_kernels", KERNEL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fn = mod.add_kernel
    binder = create_function_from_signature(fn.signature, fn.params, make_backend(GPUTarget("cuda", 90, 32)))

    class Ptr:
        dtype = triton.language.float32

        def data_ptr(self):
            return 4096

    return repr(binder(Ptr(), Ptr(), Ptr(), n, 1024)[1])


def main():
    for n in (16, 17, 1, 2**33):
        got = host.specialize(KERNEL, "add_kernel", n)
        want = triton_reference(n)
        assert got == want, (n, got, want)
    # The bridge module lives in this interpreter's sys.modules: no second interpreter was started.
    assert "triton_jit_bridge" in sys.modules, sorted(sys.modules)[:20]
    assert host.compile_name(KERNEL, "add_kernel") == "add_kernel"
    # The compile went through the Python bridge library, opened into this process, which uses
    # this interpreter's libpython: one libpython file is mapped, not two.
    with open("/proc/self/maps") as f:
        maps = [line.split()[-1] for line in f if len(line.split()) >= 6]
    assert any(os.path.basename(m) == "libtriton_jit_python.so" for m in maps), "the bridge library is not loaded"
    libpythons = {m for m in maps if os.path.basename(m).startswith("libpython")}
    assert len(libpythons) <= 1, libpythons
    # From a second Python thread while the main thread waits in Python.
    result = []
    t = threading.Thread(target=lambda: result.append(host.specialize(KERNEL, "add_kernel", 32)))
    t.start()
    t.join(timeout=300)
    assert result and result[0] == triton_reference(32), result
    # Four Python threads ask for one new key at once: one compiles, three wait for it while
    # holding the GIL inside the extension, which the runtime must release, or this hangs.
    before = host.compile_block(KERNEL, "add_kernel", 1024)
    threads = [threading.Thread(target=host.compile_block, args=(KERNEL, "add_kernel", 256)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    if any(t.is_alive() for t in threads):
        print("threads waiting on one compile deadlocked", flush=True)
        os._exit(1)
    assert host.compile_block(KERNEL, "add_kernel", 256) == before + 1
    check_compile_pool()
    print("1 passed, 0 failed")


def use_compile_pool():
    """prepare() on the compile workers, then misses on different keys from Python threads at
    once (one compiles in this interpreter, the others on the workers). Returns the workers' pids."""
    assert host.prepare_blocks(KERNEL, "add_kernel", [32, 64, 128]) == 3
    import triton_jit_bridge  # the runtime's bridge, installed in this interpreter by its first use
    pool = triton_jit_bridge.pool._pool
    started = pool.status()["started"]
    assert 1 <= started <= 2, pool.status()
    threads = [threading.Thread(target=host.compile_block, args=(KERNEL, "add_kernel", b)) for b in (16, 2048, 4096)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    if any(t.is_alive() for t in threads):
        print("concurrent misses on the compile pool deadlocked", flush=True)
        os._exit(1)
    assert pool.status()["jobs"] >= 3, pool.status()
    return pool.status()["pids"]


def check_compile_pool():
    """The compile workers of a Python host end with it: Python's atexit shuts the pool down."""
    import subprocess
    child = subprocess.run([sys.executable, __file__, "--pool-child"], capture_output=True, text=True, timeout=600)
    assert child.returncode == 0, (child.returncode, child.stdout, child.stderr)
    pids = [int(p) for p in child.stdout.split("pids=")[1].split()[0].split(",") if p]
    assert pids, child.stdout
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        raise AssertionError(f"compile worker {pid} outlived its Python host")


if __name__ == "__main__":
    if sys.argv[1:] == ["--pool-child"]:
        print("pids=" + ",".join(str(p) for p in use_compile_pool()), flush=True)
    else:
        main()

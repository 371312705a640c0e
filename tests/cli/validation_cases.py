"""CLI cases of what the runtime notices and what it checks where values come in (issue 20,
parts 4 and 5): the runtime's warnings on stderr, offline compiles from the index, boolean
spellings, damaged record fields, a shim script as the python, file names and kinds, target warp
sizes and architectures, option ranges. cli_cases.py calls register() with itself."""

import json
import os
import re
import shutil
import subprocess
import sys

m = None  # the cli_cases module: ARGS, Case, Flow, the kernels' names (set by register)


def _cli_env(out, **extra):
    """The tool with extra environment variables; failures may follow the runtime's warnings."""
    env = dict(os.environ, TRITON_JIT_INDEX_DIR=os.path.join(out, "index"))
    env.pop("TRITON_JIT_LOG", None)
    env.update(extra)

    def cli(*argv, rc=0):
        argv = [a.replace("{k}", m.ARGS.kernels).replace("{out}", out) for a in argv]
        p = subprocess.run([m.ARGS.cli] + argv, capture_output=True, text=True, env=env, timeout=600)
        shown = " ".join(f"{k}={v}" for k, v in extra.items())
        print(f"$ {shown} triton-jit {' '.join(argv)}\nexit status {p.returncode}\n--- stdout\n{p.stdout}"
              f"--- stderr\n{p.stderr}")
        assert p.returncode == rc, f"expected exit status {rc}"
        return p.stdout, p.stderr
    return cli


ADD_ARGS = json.dumps([{"ptr": "fp32", "addr": 4096}] * 3 + [1024, 1024])  # add_kernel, n divisible by 16
TARGET_WARNING = ("triton-jit: warning: ignoring TRITON_JIT_TARGET: invalid target 'sm_80': expected "
                  "BACKEND:ARCH[:WARP_SIZE], e.g. cuda:90 or hip:gfx942; using the current GPU's target, "
                  "else cuda:90\n")


def _library_warnings_flow(cli, out):
    """The runtime's warnings (an ignored TRITON_JIT_TARGET, a damaged pack, an index it cannot
    write) reach stderr without -v, labelled as warnings, before the tool's error if any; -v's
    compiler output no longer holds them. `TRITON_JIT_TARGET=sm_80 triton-jit pack` built for
    cuda:90 without a word."""
    bad_target = _cli_env(out, TRITON_JIT_TARGET="sm_80")
    stdout, stderr = bad_target("specialize", m.ADD, "--args", ADD_ARGS)
    assert stdout == "*fp32:16,*fp32:16,*fp32:16,i32:16,1024\n" and stderr == TARGET_WARNING, (stdout, stderr)
    _, stderr = bad_target("specialize", m.ADD, "--args", "[]", rc=1)
    lines = stderr.splitlines(keepends=True)
    assert len(lines) == 2 and lines[0] == TARGET_WARNING, stderr
    assert lines[1].startswith("triton-jit: error: add_kernel takes"), stderr
    _, stderr = bad_target("-v", "specialize", m.ADD, "--args", ADD_ARGS)
    assert stderr.count("TRITON_JIT_TARGET") == 1 and stderr.startswith(TARGET_WARNING), stderr
    manifest = os.path.join(out, "manifest.txt")
    with open(manifest, "w") as f:
        f.write(f"{os.path.abspath(m.ARGS.kernels)}/cli_kernels.py:add_kernel {m.ADD_SIG}\n")
    stdout, stderr = bad_target("pack", manifest, "--out", "{out}/k.tjp", "--quiet")
    assert "for cuda:90" in stdout and stderr == TARGET_WARNING, (stdout, stderr)
    damaged = os.path.join(out, "damaged.tjp")
    with open(damaged, "wb") as f:
        f.write(b"not a kernel pack at all")
    stdout, stderr = _cli_env(out, TRITON_JIT_PACKS=damaged)("inspect", m.ADD)
    assert stdout.startswith("x_ptr\n"), stdout
    assert stderr.startswith(f"triton-jit: warning: TRITON_JIT_PACKS: ") and damaged in stderr, stderr
    assert stderr.count("\n") == 1, stderr
    not_a_folder = os.path.join(out, "manifest.txt", "index")
    stdout, stderr = _cli_env(out, TRITON_JIT_INDEX_DIR=not_a_folder)(
        "compile", m.ADD, "--signature", m.ADD_SIG, "--target", "cuda:90", "--out", "{out}/c")
    assert stdout == f"{out}/c/add_kernel.cubin\n{out}/c/add_kernel.json\n", stdout
    # "cannot write the kernel index in DIR (Not a directory)", or the trust checks' "not using ...".
    assert stderr.startswith("triton-jit: warning: ") and "kernel index" in stderr and not_a_folder in stderr, stderr
    assert stderr.count("\n") == 1, stderr


def _offline_flow(cli, out):
    """TRITON_JIT_OFFLINE=1 compile takes a kernel the index holds (it said "not in the kernel
    cache"); every boolean spelling is read (TRITON_JIT_OFFLINE=yes was silently online), and
    another value is a warning naming the variable and the spellings."""
    cli("compile", m.ADD, "--signature", m.ADD_SIG, "--target", "cuda:90", "--out", "{out}/online")
    offline = _cli_env(out, TRITON_JIT_OFFLINE="1")
    stdout, stderr = offline("compile", m.ADD, "--signature", m.ADD_SIG, "--target", "cuda:90",
                             "--out", "{out}/offline")
    assert stdout == f"{out}/offline/add_kernel.cubin\n{out}/offline/add_kernel.json\n" and stderr == "", stderr
    with open(f"{out}/online/add_kernel.cubin", "rb") as a, open(f"{out}/offline/add_kernel.cubin", "rb") as b:
        assert a.read() == b.read(), "the index's kernel is the one compiled online"
    for spelling in ("yes", "TRUE", "On"):
        _, stderr = _cli_env(out, TRITON_JIT_OFFLINE=spelling)(
            "compile", m.ADD, "--signature", m.ADD_SIG, "--target", "cuda:80", "--out", "{out}/x", rc=1)
        assert "offline mode is on" in stderr and stderr.count("\n") == 1, stderr
    # Read where it matters: a compile the index cannot answer (online, then).
    stdout, stderr = _cli_env(out, TRITON_JIT_OFFLINE="maybe")(
        "compile", m.ADD, "--signature", m.ADD_SIG, "--target", "cuda:80", "--out", "{out}/maybe")
    assert stdout == f"{out}/maybe/add_kernel.cubin\n{out}/maybe/add_kernel.json\n", stdout
    assert stderr == ("triton-jit: warning: ignoring TRITON_JIT_OFFLINE=maybe: expected 1, true, yes or on, or 0, "
                      "false, no or off (any case); using off\n"), stderr


def _kernel_entries(index):
    """The kernel records below an index folder (sealed files with the kernel magic)."""
    found = []
    for folder, _, files in os.walk(index):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                if f.read(8) == b"TJITKRNL":
                    found.append(path)
    return found


def _reseal_with_created(path, created):
    """Rewrites a kernel record's creation time and seals it again (magic, version, flags, size,
    SHA-256, payload: src/store/files.cpp; the record: src/store/records.cpp)."""
    import hashlib
    import struct
    with open(path, "rb") as f:
        data = f.read()
    header = 8 + 4 + 4 + 8 + 32
    payload = bytearray(data[header:])
    at = 0

    def skip_str():
        nonlocal at
        n = struct.unpack_from("<I", payload, at)[0]
        at += 4 + n

    skip_str(); skip_str()                       # function path, name
    skip_str(); at += 12; skip_str(); skip_str(); at += 8  # key: signature, 3 ints, options, backend, arch, warp
    deps = struct.unpack_from("<I", payload, at)[0]
    at += 4
    for _ in range(deps):
        skip_str(); at += 16; skip_str(); at += 1
    struct.pack_into("<q", payload, at, created)
    sealed = data[:16] + struct.pack("<Q", len(payload)) + hashlib.sha256(payload).digest() + bytes(payload)
    with open(path, "wb") as f:
        f.write(sealed)


def _index_damaged_time_flow(cli, out):
    """`index info` crashed (exit 139) on a sealed entry created past the year 2^31: the record's
    numbers are range-checked, and such an entry is reported damaged."""
    cli("compile", m.ADD, "--signature", m.ADD_SIG, "--target", "cuda:90", "--out", "{out}/c")
    entries = _kernel_entries(os.path.join(out, "index"))
    assert len(entries) == 1, entries
    _reseal_with_created(entries[0], 2**62)
    listing, _ = cli("index", "list")
    line = next(l for l in listing.splitlines() if not l.startswith("#"))
    damaged = r"[0-9a-f]{12}  corrupt  creation time 4611686018427387904 is out of range \(0 to \d+\)"
    assert re.fullmatch(damaged, line), line
    info, _ = cli("index", "info", line[:12])
    assert "state:          corrupt (creation time 4611686018427387904 is out of range" in info, info


def _shim_python_flow(cli, out):
    """pyenv's python3 is a bash script (a shim): an installed consumer reported the Python 3.11
    behind it as "not a Python 3.11". A script in place of the python is resolved by running it."""
    shim = os.path.join(out, "python3")
    with open(shim, "w") as f:
        f.write(f"#!/bin/sh\n# as pyenv's shims do: run the interpreter\nexec '{sys.executable}' \"$@\"\n")
    os.chmod(shim, 0o755)
    stdout, stderr = _cli_env(out, TRITON_JIT_PYTHON=shim)("inspect", m.ADD)
    assert stdout.startswith("x_ptr\n") and stderr == "", (stdout, stderr)


def _non_utf8_name_flow(cli, out):
    """A kernel file whose name is not UTF-8 gave a bare UnicodeDecodeError."""
    name = os.path.join(os.fsencode(out), b"k\xff.py")
    shutil.copy(os.path.join(m.ARGS.kernels, "cli_kernels.py"), name)
    env = dict(os.environ, TRITON_JIT_INDEX_DIR=os.path.join(out, "index"))
    p = subprocess.run([os.fsencode(m.ARGS.cli), b"inspect", name + b":add_kernel"], capture_output=True, env=env,
                       timeout=600)
    print(f"$ triton-jit inspect {name!r}:add_kernel\nexit status {p.returncode}\n--- stderr\n{p.stderr!r}")
    assert p.returncode == 1 and p.stdout == b"", p.returncode
    assert p.stderr == (b"triton-jit: error: cannot get Triton function 'add_kernel': its file name " +
                        os.fsencode(out) + b"/k\\xff.py is not UTF-8 text, which the runtime cannot pass to Python; "
                        b"rename the file (its non-ASCII bytes are shown as \\xNN)\n"), p.stderr


def _empty_module_name_flow(cli, out):
    """`module::k` (an empty module name) ended its message at "no module named"."""
    manifest = os.path.join(out, "manifest.txt")
    with open(manifest, "w") as f:
        f.write("module::k *fp32:16,64\n")
    _, err = cli("pack", manifest, "--out", "{out}/k.tjp", rc=1)
    assert "module name is empty" in err or "module:MODULE:FUNCTION" in err, err
    assert not err.rstrip().endswith("no module named"), err


def register(cli_cases):
    """Adds these cases and flows to cli_cases's CASES and FLOWS."""
    global m
    m = cli_cases
    Case, Flow, ADD, ADD_SIG = m.Case, m.Flow, m.ADD, m.ADD_SIG
    m.FLOWS.update({
        "library_warnings_flow": Flow(_library_warnings_flow),
        "offline_flow": Flow(_offline_flow),
        "index_damaged_time_flow": Flow(_index_damaged_time_flow),
        "shim_python_flow": Flow(_shim_python_flow),
        "non_utf8_name_flow": Flow(_non_utf8_name_flow),
        "empty_module_name_flow": Flow(_empty_module_name_flow),
    })
    compile_add = ["compile", ADD, "--signature", ADD_SIG, "--out", "{out}", "--target"]
    m.CASES.update({
        "error_num_warps_out_of_range": Case(
            ["specialize", ADD, "--args", ADD_ARGS, "--num-warps", "99999999999999"], rc=2,
            stderr=r"--num-warps 99999999999999 is out of range: it must be a power of two from 1 to 64"),
        "error_cuda_warp_size": Case(
            compile_add + ["cuda:90:33"], rc=2,
            stderr=r"invalid target 'cuda:90:33': CUDA's warp size is 32, got 33 \(write cuda:90 or cuda:90:32\)"),
        "error_hip_warp_size": Case(
            compile_add + ["hip:gfx942:32"], rc=2,
            stderr=r"invalid target 'hip:gfx942:32': Triton compiles gfx942 with a warp size of 64, got 32 "
                   r"\(write hip:gfx942 or hip:gfx942:64\)"),
        "error_option_maxnreg_negative": Case(
            compile_add + ["cuda:90", "--option", "maxnreg=-5"], rc=1,
            stderr=r"add_kernel: the compile option maxnreg takes a positive integer \(registers per thread\), "
                   r"got -5"),
        "error_hip_unknown_arch": Case(
            compile_add + ["hip:gfx9999"], rc=1,
            stderr=r"add_kernel: the target hip:gfx9999 is not a processor the installed Triton \S+ can build: "
                   r"its AMD backend's LLVM knows hip:gfx\w+, .*hip:gfx942, .*"),
        "error_not_a_python_file": Case(
            ["inspect", "/etc/passwd:fn"], rc=1,
            stderr=r"cannot get Triton function 'fn': /etc/passwd is not a Python file \(\.py\): kernels are read "
                   r"from Python source files, FILE\.py:FUNCTION"),
        "error_exit_at_import": Case(
            ["inspect", "{k}/exit_at_import.py:never_kernel"], rc=1,
            stderr=r"cannot get Triton function 'never_kernel': importing \S+/exit_at_import\.py failed: it called "
                   r"os\._exit\(5\), which would have ended this whole process without a word; the import was "
                   r"stopped there instead"),
    })

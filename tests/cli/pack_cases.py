"""Flows of the triton-jit tool about packs: which packed function serves a caller, manifest
lines refused, files that are not packs, a bare output name, outputs and targets checked before
anything compiles. cli_cases.py runs them as its own flows, passing itself as `m` (its helpers,
and ARGS)."""
import os
import re
import shutil
import subprocess
import time

# add_kernel(x, y, out, n, BLOCK) with a body of its own: functions of one name in files of one name.
KERN_SOURCE = ("import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
               "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
               "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
               "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) {op} tl.load(y_ptr + o, mask=o < n), mask=o < n)\n")
KERN_SIG = "*fp32:16,*fp32:16,*fp32:16,i32,64"


def kern_args(m):
    return m.args(m.ptr("fp32", 4096), m.ptr("fp32", 8192), m.ptr("fp32", 12288), 1000, 64)


def pack_same_file_names_flow(cli, out, m):
    """a/kern.py and b/kern.py, both add_kernel: a process without the sources finds each by a path
    ending with its path relative to the pack's root, and for a path that fits neither is told
    which the pack holds. kern.py beside sub/kern.py cannot be told apart: refused at pack time."""
    def write(files):  # {file relative to out: its body's operator}, packed in that order
        for relative, op in files.items():
            os.makedirs(os.path.dirname(os.path.join(out, relative)), exist_ok=True)
            with open(os.path.join(out, relative), "w") as f:
                f.write(KERN_SOURCE.format(op=op))
        with open(os.path.join(out, "manifest.txt"), "w") as f:
            f.write("".join(f"{relative}:add_kernel {KERN_SIG} target=cuda:90\n" for relative in files))
        return os.path.join(out, "manifest.txt")

    manifest = write({"a/kern.py": "+", "b/kern.py": "-"})
    stdout, _ = cli("pack", manifest, "--out", "{out}/k.tjp", "--quiet")
    assert stdout.startswith(f"{out}/k.tjp: 2 kernels of 2 functions for cuda:90 "), stdout
    shutil.rmtree(os.path.join(out, "a")), shutil.rmtree(os.path.join(out, "b"))
    for d in ("a", "b"):
        p = m._with_pack(out, "specialize", f"{out}/deploy/{d}/kern.py:add_kernel", "--args", kern_args(m))
        assert p.returncode == 0 and p.stdout == KERN_SIG + "\n", p.stderr
    p = m._with_pack(out, "specialize", f"{out}/deploy/kern.py:add_kernel", "--args", kern_args(m))
    assert p.returncode == 1 and p.stderr.count("\n") == 1, p.stderr
    assert re.search(r"the loaded kernel packs hold 'add_kernel' of a/kern\.py \(in .*/k\.tjp\), b/kern\.py \(in "
                     r".*/k\.tjp\) only", p.stderr), p.stderr
    manifest = write({"kern.py": "+", "sub/kern.py": "-"})
    _, err = cli("pack", manifest, "--out", "{out}/x.tjp", rc=1)
    assert re.search(r"manifest\.txt:2: sub/kern\.py:add_kernel and kern\.py:add_kernel \(line 1, paths relative to "
                     r"the pack's root .*\) are different functions that a process without their sources cannot tell "
                     r"apart", err), err
    assert not os.path.exists(os.path.join(out, "x.tjp"))


def pack_manifest_repeats_and_nul(cli, out, m):
    """A manifest line that repeats an option or holds a NUL: one line naming the file and line."""
    manifest, line = os.path.join(out, "manifest.txt"), f"{m.ARGS.kernels}/cli_kernels.py:add_kernel {m.ADD_SIG_64}"
    for text, expected in {
            f"{line} num_warps=4 num_warps=8\n": r"manifest\.txt:1: num_warps= is given twice \(the second time as "
                                                 r"num_warps=8\): give each option once",
            f"# kernels\n{line} target=cuda:90 maxnreg=32 maxnreg=64\n": r"manifest\.txt:2: maxnreg= is given twice",
            f"{line}\0 num_warps=4\n": r"manifest\.txt:1: the line holds a NUL byte \(at column \d+\)"}.items():
        with open(manifest, "w") as f:
            f.write(text)
        _, err = cli("pack", manifest, "--out", "{out}/k.tjp", rc=1)
        assert re.search(expected, err) and "\0" not in err, repr(err)
    assert not os.path.exists(os.path.join(out, "index", "kernels")), "something was compiled"


def packs_not_regular_files_flow(cli, out, m):
    """/dev/zero and a FIFO in TRITON_JIT_PACKS (one grew without bound, one hung): skipped at once,
    one warning each (with -v at the latest); the command runs."""
    fifo = os.path.join(out, "fifo.tjp")
    os.mkfifo(fifo)
    env = dict(os.environ, TRITON_JIT_INDEX_DIR=os.path.join(out, "index"), TRITON_JIT_PACKS=f"/dev/zero:{fifo}")
    argv = [m.ARGS.cli, "-v", "specialize", m.ADD.replace("{k}", m.ARGS.kernels), "--args", kern_args(m)]
    start = time.monotonic()
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    print(f"$ TRITON_JIT_PACKS=/dev/zero:{fifo} {' '.join(argv)}\nexit status {p.returncode} in "
          f"{time.monotonic() - start:.1f} s\n--- stdout\n{p.stdout}--- stderr\n{p.stderr}")
    assert p.returncode == 0 and p.stdout == "*fp32:16,*fp32:16,*fp32:16,i32,64\n" and time.monotonic() - start < 60
    for what in ("cannot read the kernel pack /dev/zero: it is a character device, and a pack is read only from a "
                 "regular file", f"cannot read the kernel pack {fifo}: it is a FIFO (named pipe)"):
        assert (p.stdout + p.stderr).count(what) == 1, what


def pack_bare_name_flow(cli, out, m):
    """The README's `pack kernels.manifest --out kernels.tjp`: a bare file name is written in the
    working directory."""
    with open(os.path.join(out, "kernels.manifest"), "w") as f:
        f.write(f"{m.ARGS.kernels}/cli_kernels.py:add_kernel {m.ADD_SIG_64} target=cuda:90\n")
    stdout, _ = cli("pack", "kernels.manifest", "--out", "kernels.tjp", "--quiet", cwd=out)
    assert stdout.startswith("kernels.tjp: 1 kernels of 1 functions for cuda:90 "), stdout
    with open(os.path.join(out, "kernels.tjp"), "rb") as f:
        assert f.read(8) == b"TJITPACK"
    assert not [n for n in os.listdir(out) if ".tmp" in n or ".probe" in n], os.listdir(out)


def pack_output_checked_first_flow(cli, out, m):
    """An output path that cannot be written fails before anything compiles: the manifest's kernel
    does not even compile (broken_kernel), yet the error is about the output, and nothing was
    compiled into the index."""
    manifest = os.path.join(out, "manifest.txt")
    with open(manifest, "w") as f:
        f.write(f"{m.ARGS.kernels}/cli_kernels.py:broken_kernel *fp16:16,64 target=cuda:90\n")
    os.makedirs(os.path.join(out, "folder"))
    _, err = cli("pack", manifest, "--out", "{out}/folder", rc=1)
    assert re.fullmatch(r"triton-jit: error: cannot write the kernel pack .*/folder: it is a folder; give a file "
                        r"name such as .*/folder/kernels\.tjp \(checked before compiling anything\)\n", err), err
    with open(os.path.join(out, "plain_file"), "w") as f:
        f.write("x")
    _, err = cli("pack", manifest, "--out", "{out}/plain_file/k.tjp", rc=1)
    assert re.fullmatch(r"triton-jit: error: cannot write the kernel pack .*/plain_file/k\.tjp: .*plain_file is not a "
                        r"folder \(checked before compiling anything\)\n", err), err
    assert not os.path.exists(os.path.join(out, "index", "kernels")), "something was compiled"
    # A missing folder is created, as the final write would create it; then the compile fails.
    _, err = cli("pack", manifest, "--out", "{out}/new/sub/k.tjp", rc=1)
    assert "undefined_name is not defined" in err, err
    assert os.path.isdir(os.path.join(out, "new", "sub")) and not os.listdir(os.path.join(out, "new", "sub"))


def pack_target_checked_first_flow(cli, out, m):
    """A manifest line with a target the installed Triton cannot build fails the pack before any
    kernel compiles, though an earlier line is fine."""
    manifest = os.path.join(out, "manifest.txt")
    with open(manifest, "w") as f:
        f.write(f"{m.ARGS.kernels}/cli_kernels.py:add_kernel {m.ADD_SIG_64} target=cuda:90\n")
        f.write(f"{m.ARGS.kernels}/cli_kernels.py:add_kernel {m.ADD_SIG_64} target=cuda:999\n")
    _, err = cli("pack", manifest, "--out", "{out}/k.tjp", rc=1)
    assert "add_kernel: the target cuda:999" in err, err
    assert not os.path.exists(os.path.join(out, "index", "kernels")), "something was compiled"
    with open(manifest, "w") as f:
        f.write(f"{m.ARGS.kernels}/cli_kernels.py:add_kernel {m.ADD_SIG_64} maxnreg=many target=cuda:90\n")
    _, err = cli("pack", manifest, "--out", "{out}/k.tjp", rc=1)
    assert "the compile option maxnreg takes an integer, got str 'many'" in err, err
    assert not os.path.exists(os.path.join(out, "k.tjp"))


FLOWS = {"pack_same_file_names_flow": pack_same_file_names_flow,
         "error_pack_manifest_repeats_and_nul": pack_manifest_repeats_and_nul,
         "packs_not_regular_files_flow": packs_not_regular_files_flow,
         "pack_bare_name_flow": pack_bare_name_flow,
         "pack_output_checked_first_flow": pack_output_checked_first_flow,
         "pack_target_checked_first_flow": pack_target_checked_first_flow}

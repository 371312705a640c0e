"""Cases of `triton-jit index` on index folders it cannot use, and on links below the index
folder (docs/FORMATS.md#trust), and of the former names `triton-jit cache` and
TRITON_JIT_CACHE_DIR; run by cli_cases.py, which registers them."""
import os
import shutil
import subprocess


def index_unusable_flow(tool, out):
    """`index list/clear/prune/info` on an index folder they cannot use say so in one line on
    stderr and fail, instead of "0 entries" or "removed 0 entries from off"; a missing folder is
    only an empty listing. A link below the index folder is skipped and left alone."""
    def run_with(index, *argv, rc, extra_env=None, prefix=()):
        env = dict(os.environ, TRITON_JIT_INDEX_DIR=index)
        env.pop("TRITON_JIT_TRUST_SHARED_INDEX", None)
        env.update(extra_env or {})
        p = subprocess.run(list(prefix) + [tool] + list(argv), capture_output=True, text=True, env=env,
                           timeout=600)
        print(f"$ TRITON_JIT_INDEX_DIR={index} triton-jit {' '.join(argv)}\nexit status {p.returncode}\n"
              f"--- stdout\n{p.stdout}--- stderr\n{p.stderr}")
        assert p.returncode == rc, f"expected exit status {rc}"
        if rc != 0:
            assert p.stdout == "" and p.stderr.count("\n") == 1, "failures print one line on stderr only"
        return p.stdout, p.stderr

    actions = [("list",), ("clear",), ("prune", "--older-than", "0"), ("info", "abc")]
    for action in actions:
        _, err = run_with("", "index", *action, rc=1)
        assert "the kernel index is off (TRITON_JIT_INDEX_DIR is empty" in err, err
    missing = os.path.join(out, "missing")
    listing, err = run_with(missing, "index", "list", rc=0)
    assert err == f"no index at {missing} (nothing stored yet)\n" and listing == f"# {missing}: 0 entries\n", err
    for action in actions[1:3]:
        removed, err = run_with(missing, "index", *action, rc=0)
        assert err == f"no index at {missing} (nothing stored yet)\n" and removed.startswith("removed 0 entries"), err
    assert not os.path.exists(missing), "looking does not make the folder"
    a_file = os.path.join(out, "a_file")
    with open(a_file, "w") as f:
        f.write("not a folder")
    for action in actions:
        _, err = run_with(a_file, "index", *action, rc=1)
        assert f"cannot use the kernel index in {a_file}: is not a folder" in err, err
    shared = os.path.join(out, "shared")
    os.makedirs(os.path.join(shared, "v3"))
    os.chmod(shared, 0o777)
    for action in actions:
        _, err = run_with(shared, "index", *action, rc=1)
        assert f"{shared} is writable by others (mode 0777)" in err and "TRITON_JIT_TRUST_SHARED_INDEX" in err, err
    cleared, _ = run_with(shared, "index", "clear", rc=0, extra_env={"TRITON_JIT_TRUST_SHARED_INDEX": "1"})
    assert cleared == f"removed 0 entries from {shared}\n", cleared
    os.chmod(shared, 0o755)

    # A link planted below the index folder: skipped and reported (with -v until the tool shows
    # the runtime's warnings), never followed.
    index = os.path.join(out, "index")
    precious = os.path.join(out, "precious")
    os.makedirs(os.path.join(index, "v3"))
    os.makedirs(precious)
    with open(os.path.join(precious, "thesis.tex"), "w") as f:
        f.write("years of work")
    os.symlink(precious, os.path.join(index, "v3", "tables"))
    for action in actions[:3]:
        _, err = run_with(index, "-v", "index", *action, rc=0)
        assert f"skipped symbolic link {index}/v3/tables" in err, err
    assert os.listdir(precious) == ["thesis.tex"]

    # An index this user cannot write (another uid, as root cannot be kept out by modes).
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        print("skipped the unwritable-folder case: needs root and setpriv to run as another uid")
        return
    locked = os.path.join(out, "locked")
    os.makedirs(os.path.join(locked, "v3"))
    for folder in (locked, os.path.join(locked, "v3")):
        os.chown(folder, 12345, 12345)
        os.chmod(folder, 0o555)
    as_other = (setpriv, "--reuid=12345", "--regid=12345", "--clear-groups")
    probe = subprocess.run(list(as_other) + [tool, "--version"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"skipped the unwritable-folder case: the tool does not run as uid 12345 here: {probe.stderr}")
        return
    listing, _ = run_with(locked, "index", "list", rc=0, prefix=as_other)
    assert listing == f"# {locked}: 0 entries\n", listing
    for action in actions[1:3]:
        _, err = run_with(locked, "index", *action, rc=1, prefix=as_other)
        assert f"cannot {action[0]} the kernel index in {locked}: {locked} cannot be written: Permission denied" in err, \
            err


def former_names_flow(tool, out):
    """`triton-jit cache` (the index command's former name) runs `index` as it is, help included,
    and TRITON_JIT_CACHE_DIR (the variable's former name) still names the index folder, while
    TRITON_JIT_INDEX_DIR wins when both are set."""
    def run(argv, rc=0, **names):
        env = {k: v for k, v in os.environ.items() if k not in ("TRITON_JIT_INDEX_DIR", "TRITON_JIT_CACHE_DIR")}
        env.update(names)
        p = subprocess.run([tool] + list(argv), capture_output=True, text=True, env=env, timeout=600)
        shown = " ".join(f"{k}={v}" for k, v in names.items())
        print(f"$ {shown} triton-jit {' '.join(argv)}\nexit status {p.returncode}\n"
              f"--- stdout\n{p.stdout}--- stderr\n{p.stderr}")
        assert p.returncode == rc, f"expected exit status {rc}"
        return p.stdout, p.stderr

    index = os.path.join(out, "index")
    os.makedirs(os.path.join(index, "v3"))
    for action in (("list",), ("prune", "--older-than", "1"), ("clear",)):
        assert run(("cache",) + action, TRITON_JIT_INDEX_DIR=index) == \
            run(("index",) + action, TRITON_JIT_INDEX_DIR=index), action
    _, err = run(("cache", "info", "abc"), rc=1, TRITON_JIT_INDEX_DIR=index)
    assert err == run(("index", "info", "abc"), rc=1, TRITON_JIT_INDEX_DIR=index)[1], err
    for argv in (("cache",), ("cache", "info"), ("cache", "prune"), ("cache", "list", "--older-than", "1")):
        _, err = run(argv, rc=2, TRITON_JIT_INDEX_DIR=index)
        assert err == run(("index",) + argv[1:], rc=2, TRITON_JIT_INDEX_DIR=index)[1], err
    help_text, _ = run(("help", "cache"))
    assert help_text.startswith("Usage: triton-jit index list\n"), help_text
    assert help_text == run(("cache", "--help"))[0] == run(("help", "index"))[0], help_text

    listing, _ = run(("index", "list"), TRITON_JIT_CACHE_DIR=index)
    assert listing == f"# {index}: 0 entries\n", listing
    other = os.path.join(out, "other")
    listing, _ = run(("index", "list"), TRITON_JIT_INDEX_DIR=other, TRITON_JIT_CACHE_DIR=index)
    assert listing == f"# {other}: 0 entries\n", listing
    _, err = run(("index", "list"), rc=1, TRITON_JIT_INDEX_DIR="", TRITON_JIT_CACHE_DIR=index)
    assert "the kernel index is off (TRITON_JIT_INDEX_DIR is empty" in err, err

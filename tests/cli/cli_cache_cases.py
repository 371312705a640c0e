"""Cases of `triton-jit cache` on index folders it cannot use, and on links below the index
folder (docs/FORMATS.md#trust); run by cli_cases.py, which registers them."""
import os
import shutil
import subprocess


def cache_unusable_flow(tool, out):
    """`cache list/clear/prune/info` on an index folder they cannot use say so in one line on
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
        _, err = run_with("", "cache", *action, rc=1)
        assert "the kernel cache is off (TRITON_JIT_CACHE_DIR is empty" in err, err
    missing = os.path.join(out, "missing")
    listing, err = run_with(missing, "cache", "list", rc=0)
    assert err == f"no index at {missing} (nothing stored yet)\n" and listing == f"# {missing}: 0 entries\n", err
    for action in actions[1:3]:
        removed, err = run_with(missing, "cache", *action, rc=0)
        assert err == f"no index at {missing} (nothing stored yet)\n" and removed.startswith("removed 0 entries"), err
    assert not os.path.exists(missing), "looking does not make the folder"
    a_file = os.path.join(out, "a_file")
    with open(a_file, "w") as f:
        f.write("not a folder")
    for action in actions:
        _, err = run_with(a_file, "cache", *action, rc=1)
        assert f"cannot use the kernel cache in {a_file}: is not a folder" in err, err
    shared = os.path.join(out, "shared")
    os.makedirs(os.path.join(shared, "v3"))
    os.chmod(shared, 0o777)
    for action in actions:
        _, err = run_with(shared, "cache", *action, rc=1)
        assert f"{shared} is writable by others (mode 0777)" in err and "TRITON_JIT_TRUST_SHARED_INDEX" in err, err
    cleared, _ = run_with(shared, "cache", "clear", rc=0, extra_env={"TRITON_JIT_TRUST_SHARED_INDEX": "1"})
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
        _, err = run_with(index, "-v", "cache", *action, rc=0)
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
    listing, _ = run_with(locked, "cache", "list", rc=0, prefix=as_other)
    assert listing == f"# {locked}: 0 entries\n", listing
    for action in actions[1:3]:
        _, err = run_with(locked, "cache", *action, rc=1, prefix=as_other)
        assert f"cannot {action[0]} the kernel cache in {locked}: {locked} cannot be written: Permission denied" in err, \
            err

"""Triton's installation key (triton_key()): handed from the parent to its workers, and kept in
the index so that a process does not hash libtriton again."""

import hashlib
import os
import stat
import sys
import threading

import triton


def _triton_key_module():
    """The module whose triton_key() (the hash of the Triton installation, part of every compile's
    cache key; reading and hashing libtriton takes most of a second) triton.compile calls:
    triton.runtime.cache in Triton 3.5 and newer, triton.compiler.compiler in 3.4."""
    import triton.runtime.cache as cache
    if hasattr(cache, "triton_key"):
        return cache
    import triton.compiler.compiler as compiler
    return compiler


def _use_triton_key(triton_file, key):
    """Makes this worker's triton_key() return `key`, the parent's, so that each worker does not
    hash Triton again: when this worker's Triton is the parent's (`triton_file`, its __init__.py;
    the same installation has the same key)."""
    import functools
    if os.path.abspath(triton.__file__) != triton_file:
        return
    module = _triton_key_module()
    original = module.triton_key
    if getattr(original, "_triton_jit_key", None) == key:
        return

    @functools.lru_cache()
    def triton_key():
        return key
    triton_key._triton_jit_key = key
    for name, m in list(sys.modules.items()):
        if name.startswith("triton") and getattr(m, "triton_key", None) is original:
            m.triton_key = triton_key


# Triton's installation hash kept in the index: triton_key() reads and hashes libtriton (hundreds of
# MB, most of a second), in every process that compiles, and a compile worker's first job waited
# for it. The stored copy is used while every file of the installation has the size, times and
# inode it was computed from: a reinstall or an edit changes them. Looked at before the first
# compile only, so a process that never compiles does not fingerprint Triton.
_key_index_dir = ""      # the index the C++ side uses (set_index_dir_for_triton_key)
_key_looked_at = False   # whether _take_stored_triton_key has run
_stored_key_file = None  # where this process would store its key: (path, fingerprint), or None
_stored_key_lock = threading.Lock()


def _installation_fingerprint(triton_dir):
    h = hashlib.sha256(triton.__version__.encode())
    for root, dirs, files in os.walk(triton_dir):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")  # bytecode is not part of the key
        for name in sorted(files):
            path = os.path.join(root, name)
            st = os.stat(path)
            h.update(f"{os.path.relpath(path, triton_dir)}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}"
                     f"\0{st.st_ino}\n".encode())
    return h.hexdigest()


def _shared_index_trusted():
    return os.environ.get("TRITON_JIT_TRUST_SHARED_INDEX", "") in ("1", "true", "yes", "on")


def _index_folder_problem(path, is_root):
    """Why the index folder `path` may not be used, or None: the C++ side's rules
    (src/store/index_folders.h): no link below the index folder, owned by this user or root, not
    writable by others or by a group but the owner's private one without the sticky bit, unless
    TRITON_JIT_TRUST_SHARED_INDEX."""
    st = os.stat(path) if is_root else os.lstat(path)  # the index folder may be a link, not what is below
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "not a folder"
    if _shared_index_trusted():
        return None
    if st.st_uid not in (os.geteuid(), 0):
        return "owned by another user"
    if st.st_mode & stat.S_ISVTX:
        return None
    if st.st_mode & 0o002:
        return "writable by others"
    if st.st_mode & 0o020 and not _private_group_of(st.st_uid, st.st_gid):
        return "writable by its group"
    return None


def _private_group_of(uid, gid):
    """Whether `gid` is the private group of user `uid` (named as the user, the user's primary
    group, no other member), which a umask of 0002 leaves writable: as the C++ side accepts."""
    try:
        import grp
        import pwd
        user, group = pwd.getpwuid(uid), grp.getgrgid(gid)
    except (ImportError, KeyError):
        return False
    return user.pw_gid == gid and group.gr_name == user.pw_name and all(m == user.pw_name for m in group.gr_mem)


def _installation_key_folder(create):
    """The index's installations/ folder when every folder on the way is usable (made when
    `create`, mode 0755 less the umask), else None."""
    folder = _key_index_dir
    if create and not os.path.isdir(folder):
        os.makedirs(folder, mode=0o755, exist_ok=True)
    if _index_folder_problem(folder, True):
        return None
    for part in ("v3", "installations"):
        folder = os.path.join(folder, part)
        if create and not os.path.lexists(folder):
            try:
                os.mkdir(folder, 0o755)
            except FileExistsError:
                pass
        if _index_folder_problem(folder, False):
            return None
    return folder


def _read_installation_key_file(path):
    """The stored (fingerprint, key), never through a link; ("", "") when absent or unusable."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        foreign = st.st_uid not in (os.geteuid(), 0) or st.st_mode & 0o002
        if not stat.S_ISREG(st.st_mode) or (foreign and not _shared_index_trusted()):
            return "", ""
        fingerprint, key = os.read(fd, 1 << 16).decode("utf-8").split("\n")[:2]
        return fingerprint, key
    finally:
        os.close(fd)


def set_index_dir_for_triton_key(index_dir):
    """Where the stored installation key lives (the index directory; empty: nowhere)."""
    global _key_index_dir
    _key_index_dir = index_dir or ""


def _take_stored_triton_key():
    """Once per process, before its first compile: makes triton_key() return the copy stored in
    the index when it is still the installation's; else notes where to store it once computed.
    Any trouble with the file is only a lost shortcut."""
    global _key_looked_at, _stored_key_file
    with _stored_key_lock:  # held throughout: a second caller waits for the answer, not for a hash
        if _key_looked_at:
            return
        _key_looked_at = True
        if not _key_index_dir:
            return
        try:
            triton_file = os.path.abspath(triton.__file__)
            fingerprint = _installation_fingerprint(os.path.dirname(triton_file))
            name = hashlib.sha256(triton_file.encode()).hexdigest()[:32] + ".key"
            path = os.path.join(_key_index_dir, "v3", "installations", name)
            try:
                folder = _installation_key_folder(create=False)
                stored_fingerprint, key = _read_installation_key_file(path) if folder else ("", "")
            except (OSError, ValueError):
                stored_fingerprint, key = "", ""
            if stored_fingerprint == fingerprint and key:
                _use_triton_key(triton_file, key)
            else:
                _stored_key_file = (path, fingerprint)
        except Exception:  # noqa: BLE001
            pass


def _store_triton_key():
    """Stores this process's triton_key() where _take_stored_triton_key noted, once; call it
    when the key is computed already (after a compile) or about to be needed anyway."""
    global _stored_key_file
    with _stored_key_lock:
        target, _stored_key_file = _stored_key_file, None
    if target is None:
        return
    path, fingerprint = target
    tmp = None
    try:
        key = _triton_key_module().triton_key()
        if _installation_key_folder(create=True) is None:
            return
        name = f"{path}.tmp.{os.getpid()}.{threading.get_ident()}"  # the store's temporary names
        # O_EXCL|O_NOFOLLOW: never written through a link; os.replace renames over a link, never into it.
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        tmp = name
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(f"{fingerprint}\n{key}\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except Exception:  # noqa: BLE001 - a read-only or full index: computed again next time
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _installation_key():
    """This process's triton_key(): the copy stored in the index while it is still the
    installation's, else computed now and stored."""
    _take_stored_triton_key()
    key = _triton_key_module().triton_key()
    _store_triton_key()
    return key

"""Compile targets and options: the backends and architectures the installed Triton can compile
for, the checks of a compile request, the specialization the C++ side sends."""

import ast
import functools
import os
import re
import sys

import triton


def _arch_name(backend, arch):
    """GPUTarget's arch for the runtime's integer one: the compute capability for cuda, the gfx
    name for hip, whose hexadecimal digits the runtime keeps as a number (gfx942 is 0x942)."""
    return f"gfx{arch:x}" if backend == "hip" else arch


def _arch_number(backend, arch):
    return int(arch[3:], 16) if backend == "hip" else int(arch)


def _gpu_target(target):
    from triton.backends.compiler import GPUTarget
    backend, arch, warp_size = target
    return GPUTarget(backend, _arch_name(backend, arch), warp_size)


def _target_text(target):
    backend, arch, warp_size = target
    return f"{backend}:{_arch_name(backend, arch)}"


# The target backends the runtime compiles for, each with an architecture to ask Triton about.
_KNOWN_BACKENDS = (("cuda", 90, 32), ("hip", 0x942, 64))


def _installed_backends():
    """The runtime's target backends the installed Triton has a compiler for, e.g. ["cuda", "hip"]."""
    from triton.backends import backends
    found = []
    for target in _KNOWN_BACKENDS:
        gpu_target = _gpu_target(target)
        if any(b.compiler.supports_target(gpu_target) for b in backends.values()):
            found.append(target[0])
    return found


@functools.lru_cache(maxsize=None)
def _ptxas_archs(path):
    """The sm_ architectures a ptxas builds ("sm_90a", ...), from its --help; None when it cannot say."""
    import subprocess
    try:
        text = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    archs = set(re.findall(r"'(sm_\d+[a-z]?)'", text))
    return frozenset(archs) or None


def _cuda_target_problem(arch):
    """Why the installed Triton cannot build cuda:`arch` (ptxas does not know the architecture),
    or None. Asked before compiling: the failure would otherwise come from ptxas after the whole
    pipeline ran, with the PTX printed on stdout."""
    from triton.backends.nvidia import compiler as nv
    try:
        tool = nv.get_ptxas(arch)  # 3.5 and newer: Blackwell's own ptxas from sm_100 on
    except TypeError:
        tool = nv.get_ptxas()
    try:
        path = tool.path
    except Exception:  # no ptxas at all: the compile reports it
        return None
    archs = _ptxas_archs(path)
    if not archs:
        return None
    name = nv.sm_arch_from_capability(arch)
    if name in archs:
        return None
    numbers = sorted({int(re.match(r"sm_(\d+)", a).group(1)) for a in archs})
    return (f"the target cuda:{arch} ({name}) is not one the installed Triton {triton.__version__} can build: its "
            f"ptxas ({path}) knows {', '.join(f'cuda:{n}' for n in numbers)}")


@functools.lru_cache(maxsize=None)
def _hip_archs():
    """The gfx processors the LLVM inside the installed Triton's AMD backend knows (its
    "-mcpu=help" list, which LLVM prints on stderr), or None when it cannot say."""
    import tempfile
    try:
        from triton._C.libtriton import amd, llvm
        llvm.init_targets()
    except Exception:  # no AMD backend: the backend check reports it
        return None
    sys.stderr.flush()
    with tempfile.TemporaryFile() as listing:
        saved = os.dup(2)
        try:
            os.dup2(listing.fileno(), 2)
            # The triple: a constant up to 3.8, asked per processor from 3.9 (any gfx9 one will do
            # for the list). translate_to_asm took 7 arguments up to 3.7; 3.8 added canonicalize_gep.
            triple = getattr(amd, "TARGET_TRIPLE", None) or "amdgcn-amd-amdhsa"
            for extra in ((), (False,)):
                try:
                    llvm.translate_to_asm("", triple, "help", "", [], False, False, *extra)
                    break
                except TypeError:
                    continue
                except Exception:  # LLVM's own complaint about the empty module: the list is printed
                    break
            else:  # another signature in another Triton: no list, no check
                return None
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        listing.seek(0)
        text = listing.read(1 << 20).decode(errors="replace")
    cpus = text.split("Available features", 1)[0]
    return frozenset(re.findall(r"^\s+(gfx[0-9a-f]+)\s+- ", cpus, re.MULTILINE)) or None


def _hip_target_problem(arch):
    """Why the installed Triton cannot build hip:gfx`arch` (its LLVM does not know the processor),
    or None. Asked before compiling: LLVM would otherwise only warn, and the compile fail deep in
    its pipeline ("PassManager::run failed")."""
    archs = _hip_archs()
    name = f"gfx{arch:x}"
    if not archs or name in archs:
        return None
    def order(a):
        return (len(a), a)
    return (f"the target hip:{name} is not a processor the installed Triton {triton.__version__} can build: its "
            f"AMD backend's LLVM knows {', '.join(f'hip:{a}' for a in sorted(archs, key=order))}")


# The least value of integer compile options whose range Triton does not check itself (a
# negative maxnreg reaches ptxas as --maxrregcount=-5).
_OPTION_MINIMUM = {"maxnreg": (1, "a positive integer (registers per thread)")}


def _type_of(annotation):
    """(base type, whether None is allowed) of a dataclass field annotation: Optional[int] is (int, True)."""
    import typing
    origin = typing.get_origin(annotation)
    if origin is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return (args[0] if len(args) == 1 else None), True
    return (origin or annotation), False


def _option_problem(name, value, annotation):
    """Why `value` cannot be the compile option `name` of type `annotation`, or None."""
    base, _ = _type_of(annotation)
    if base is bool:
        ok, wanted = isinstance(value, (bool, int)), "a bool (true or false)"
    elif base is int:
        ok, wanted = isinstance(value, int) and not isinstance(value, bool), "an integer"
    elif base is float:
        ok, wanted = isinstance(value, (int, float)) and not isinstance(value, bool), "a number"
    elif base is str:
        ok, wanted = isinstance(value, str), "a string"
    elif base in (tuple, list, dict, set):
        ok, wanted = False, f"a {base.__name__}, which a compile option of this runtime cannot hold"
    else:
        return None  # a type the runtime does not know: Triton judges
    if ok:
        return None
    shown = "true" if value is True else "false" if value is False else repr(value)
    return f"the compile option {name} takes {wanted}, got {type(value).__name__} {shown}"


_checked_requests = {}  # (options as (name, type, value) tuples, target) -> check_compile_request's answer


def check_compile_request(options, target):
    """Checks, before anything compiles, what Triton would only reject deep inside its pipeline:
    that the installed Triton can build `target` ((backend, arch, warp_size)) and that each of
    `options` (the caller's compile options, a dict) is an option of that backend with a value of
    its type (the fields of CUDAOptions or HIPOptions). Returns None, or (what, message) with
    `what` the option's name or "target". Answers are kept: a batch asks once per distinct request."""
    key = (tuple((k, type(v).__name__, v) for k, v in sorted(options.items())), tuple(target))
    if key not in _checked_requests:
        _checked_requests[key] = _check_compile_request(options, target)
    return _checked_requests[key]


def _check_compile_request(options, target):
    import dataclasses
    import typing
    backend_name = target[0]
    installed = _installed_backends()
    if backend_name not in installed:
        return ("target", f"the installed Triton {triton.__version__} ({os.path.dirname(triton.__file__)}) cannot "
                          f"compile for {_target_text(target)}: it has compilers for "
                          f"{' and '.join(installed) or 'no backend'} targets")
    if backend_name in ("cuda", "hip"):
        problem = (_cuda_target_problem if backend_name == "cuda" else _hip_target_problem)(target[1])
        if problem:
            return ("target", problem)
    gpu_target = _gpu_target(target)
    backend = _make_backend(gpu_target)
    fields = dataclasses.fields(type(backend.parse_options({})))
    try:
        hints = typing.get_type_hints(type(backend.parse_options({})))
    except Exception:  # an annotation that does not evaluate: take the raw ones
        hints = {f.name: f.type for f in fields}
    known = {f.name for f in fields}
    for name, value in options.items():
        if name not in known:
            return (name, f"unknown compile option '{name}' for {backend_name} targets; options of Triton "
                          f"{triton.__version__}: {', '.join(sorted(known))}")
        problem = _option_problem(name, value, hints.get(name))
        if problem:
            return (name, problem)
        minimum = _OPTION_MINIMUM.get(name)
        if minimum and isinstance(value, int) and not isinstance(value, bool) and value < minimum[0]:
            return (name, f"the compile option {name} takes {minimum[1]}, got {value}")
    return None


def _make_backend(gpu_target):
    from triton.compiler import make_backend
    return make_backend(gpu_target)


def _constexpr_value(text):
    """The object a constexpr's repr stands for: a Python literal, a Triton dtype
    (triton.language.float16) or a torch dtype (torch.float16; torch is imported only then)."""
    if text.startswith("triton.language."):
        import triton.language as tl
        value = getattr(tl, text[len("triton.language."):], None)
        if isinstance(value, tl.dtype) and repr(value) == text:
            return value
        raise ValueError(f"{text} is not a dtype of triton.language")
    if text.startswith("torch."):
        try:
            import torch
        except ImportError as e:
            raise ImportError(f"the constexpr {text} is a torch dtype, but {sys.executable} cannot import torch: "
                              f"{e}") from None
        value = getattr(torch, text[len("torch."):], None)
        if isinstance(value, torch.dtype) and repr(value) == text:
            return value
        raise ValueError(f"{text} is not a dtype of torch")
    return ast.literal_eval(text)


def specialization(items):
    """Triton's specialization list from (type, text) pairs, where text is the hint's literal
    (None, '', 'D', 1) or the constexpr's repr (1024, 'relu', triton.language.float16)."""
    return [(ty, _constexpr_value(text)) for ty, text in items]


def target_default_num_stages(target):
    """The num_stages Triton compiles with for the target (backend, arch, warp_size) when the launch
    does not name it: JITFunction.run hands the backend's parse_options only the options the
    launch names, so it is the options class's default (HIPOptions: 2, CUDAOptions: 3).
    enable_fp_fusion is named only so that parse_options does not read the fp-fusion knob, whose
    first read warns once a process in Triton 3.9: that warning belongs to a compile."""
    options = _make_backend(_gpu_target(target)).parse_options({"enable_fp_fusion": True})
    return int(options.num_stages)


def hip_target_rules(target):
    """What the runtime's key needs of the HIP target (backend, arch, warp_size), asked once per
    target before anything specializes for it: (problem, buffer_ops). `problem` says why the
    installed Triton cannot build the target (no AMD backend, a processor its LLVM does not know),
    naming the target and the processors it knows, or is None; `buffer_ops` is whether Triton's
    HIP binder adds 'S' to pointers of at most 2**31 - 1 bytes (versions.hip_buffer_ops)."""
    from . import versions
    if "hip" not in _installed_backends():
        return (f"the installed Triton {triton.__version__} ({os.path.dirname(triton.__file__)}) has no AMD backend "
                f"to build {_target_text(target)}", False)
    return (_hip_target_problem(target[1]), versions.hip_buffer_ops())

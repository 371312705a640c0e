"""Cases of the triton-jit tool for HIP targets: Triton's 'S' flag on a pointer in a buffer of at
most 2**31-1 bytes (the pointer JSON's "storage_bytes"), the ':S' signature syntax, and the AMD
backend's compile options. cli_cases.py adds them to its cases, passing itself as `m` (Case and its
helpers)."""
import json
import os


def _ptr(dtype, addr):
    return {"ptr": dtype, "addr": addr}


def sized(dtype, addr, storage_bytes):
    """A pointer into a buffer of `storage_bytes` bytes: {"ptr", "addr", "storage_bytes"}."""
    return {"ptr": dtype, "addr": addr, "storage_bytes": storage_bytes}


# mixed_kernel's calls with buffer sizes, for HIP's 'S' flag: at and beyond 2**31-1 bytes, an empty
# buffer, a pointer of unknown size (no 'S'), on aligned, unaligned and const pointers.
HIP_ARGS = {
    "sizes": [sized("fp16", 4096, 2**31 - 1), sized("fp32", 4100, 0), sized("fp32", 4104, 2**31), 5, 1.5, 32, True,
              "abc"],
    "unknown": [_ptr("fp16", 4096), sized("fp32", 4112, 1024), sized("fp32", 4096, 4096), 16, 1.5, 32, True, "abc"],
    "large": [sized("bf16", 4097, 2**40), _ptr("fp32", 4100), sized("i8", 64, 1), 2**40, 2.5, 1, False, "x"],
}


def _check_num_stages(m, out_dir, stdout, expected):
    """A hip compile whose kernel, and Triton's metadata of it, have num_stages `expected`."""
    m._check_hip_compiled(out_dir, stdout)
    with open(os.path.join(out_dir, "add_kernel.json")) as f:
        meta = json.load(f)
    assert meta["num_stages"] == expected, meta["num_stages"]
    assert meta["metadata"]["num_stages"] == expected, meta["metadata"].get("num_stages")


def _tritons_hip_num_stages():
    """HIPOptions' num_stages, which Triton's launch without num_stages compiles with."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    return make_backend(GPUTarget("hip", "gfx942", 64)).parse_options({"enable_fp_fusion": True}).num_stages


def cases(m):
    return {
        # HIP targets: Triton's 'S' on a pointer whose buffer ("storage_bytes") holds at most 2**31-1
        # bytes, when the installed Triton's knobs.amd.use_buffer_ops is on (the default from 3.6).
        **{f"parity_hip_{arch}_{name}": m.Case(["specialize", m.MIXED, "--repr", "--args", m.args(*a)],
                                             env={"TRITON_JIT_TARGET": f"hip:{arch}"},
                                             check=lambda o, out, err, a=a, arch=arch: m._check_parity(
                                                 "mixed_kernel", a, out, f"hip:{arch}"),
                                             asks_triton=True)
           for arch in ("gfx942", "gfx1100") for name, a in HIP_ARGS.items()},
        "specialize_hip_ranges": m.Case(["specialize", m.MIXED, "--repr", "--args", m.args(*HIP_ARGS["sizes"])],
                                      env={"TRITON_JIT_TARGET": "hip:gfx942", "AMDGCN_USE_BUFFER_OPS": "1"},
                                      stdout=m.lines("*fp16:16:S,*fp32:S,*kfp32,i64,fp32,i32,u1,'abc',1.5,None",
                                                   "[('*fp16', 'DS'), ('*fp32', 'S'), ('*kfp32', ''), ('i64', ''), "
                                                   "('fp32', None), ('i32', None), ('u1', None), ('constexpr', 'abc'), "
                                                   "('constexpr', 1.5), ('constexpr', None)]")),
        "specialize_hip_no_buffer_ops": m.Case(["specialize", m.MIXED, "--args", m.args(*HIP_ARGS["sizes"])],
                                             env={"TRITON_JIT_TARGET": "hip:gfx942", "AMDGCN_USE_BUFFER_OPS": "0"},
                                             stdout=m.lines("*fp16:16,*fp32,*kfp32,i64,fp32,i32,u1,'abc',1.5,None")),
        "specialize_cuda_ignores_storage": m.Case(["specialize", m.MIXED, "--args", m.args(*HIP_ARGS["sizes"])],
                                                env={"TRITON_JIT_TARGET": "cuda:90", "AMDGCN_USE_BUFFER_OPS": "1"},
                                                stdout=m.lines("*fp16:16,*fp32,*kfp32,i64,fp32,i32,u1,'abc',1.5,None")),
        "error_hip_unknown_processor": m.Case(["specialize", m.MIXED, "--args", m.args(*HIP_ARGS["sizes"])],
                                            env={"TRITON_JIT_TARGET": "hip:gfx9999"}, rc=1,
                                            stderr=r"mixed_kernel: the target hip:gfx9999 is not a processor the installed "
                                                   r"Triton \S+ can build: its AMD backend's LLVM knows .*hip:gfx942.*"),
        "error_storage_bytes_not_a_size": m.Case(["specialize", m.MIXED, "--args", m.args(
            {"ptr": "fp16", "addr": 4096, "storage_bytes": -1}, *HIP_ARGS["sizes"][1:])], rc=2,
            stderr=r"--args\[0\]: \"storage_bytes\" must be the size in bytes of the buffer the pointer lies in "
                   r"\(0 or more\), got -1"),
        # ":S" in the signature syntax: HIP's flag, compiled as Triton's ('*fp32', 'DS'); no CUDA flag.
        "compile_hip_range_signature": m.Case(["compile", m.ADD, "--signature", "*fp32:16:S,*fp32:S,*fp32:16,i32:16,1024",
                                             "--target", "hip:gfx942", "--out", "{out}"],
                                            check=lambda o, out, err: m._check_hip_compiled(o, out)),
        "error_range_signature_for_cuda": m.Case(["compile", m.ADD, "--signature", "*fp32:16:S,*fp32:16,*fp32:16,i32:16,1024",
                                                "--target", "cuda:90", "--out", "{out}"], rc=1,
                                               stderr=r"add_kernel: '\*fp32:16:S,.*' marks parameter 'x_ptr' with ':S', "
                                                      r"HIP's flag of a pointer in a buffer of at most 2\*\*31-1 bytes; "
                                                      r"cuda:90 is no HIP target: drop the ':S'"),
        # The AMD backend's own options pass, checked against the installed Triton's HIPOptions.
        "compile_hip_options": m.Case(["compile", m.ADD, "--signature", m.ADD_SIG, "--target", "hip:gfx942", "--out", "{out}",
                                     "--option", "waves_per_eu=2", "--option", "matrix_instr_nonkdim=16",
                                     "--option", "kpack=1", "--option", "schedule_hint=none"],
                                    check=lambda o, out, err: m._check_hip_compiled(o, out)),
        # Without --num-stages: the target's default, HIPOptions' (2), as Triton's own launch; a
        # stated 3 stays 3.
        "compile_hip_default_num_stages": m.Case(["compile", m.ADD, "--signature", m.ADD_SIG, "--target", "hip:gfx942",
                                                "--out", "{out}"],
                                               check=lambda o, out, err: _check_num_stages(
                                                   m, o, out, _tritons_hip_num_stages())),
        "compile_hip_stated_num_stages": m.Case(["compile", m.ADD, "--signature", m.ADD_SIG, "--target", "hip:gfx942",
                                               "--num-stages", "3", "--out", "{out}"],
                                              check=lambda o, out, err: _check_num_stages(m, o, out, 3)),
        "error_negative_num_stages": m.Case(["compile", m.ADD, "--signature", m.ADD_SIG, "--target", "hip:gfx942",
                                           "--num-stages", "-1", "--out", "{out}"], rc=2,
                                          stderr=r"--num-stages must be from 0 to 255, got -1"),
        "error_hip_option_type": m.Case(["compile", m.ADD, "--signature", m.ADD_SIG, "--target", "hip:gfx942", "--out", "{out}",
                                       "--option", "waves_per_eu=two"], rc=1,
                                      stderr=r"add_kernel: the compile option waves_per_eu takes an integer, got str 'two'"),
        "error_hip_option_cuda_only": m.Case(["compile", m.ADD, "--signature", m.ADD_SIG, "--target", "hip:gfx942", "--out",
                                            "{out}", "--option", "maxnreg=64"], rc=1,
                                           stderr=r"add_kernel: unknown compile option 'maxnreg' for hip targets; options "
                                                  r"of Triton \S+: .*waves_per_eu.*"),
    }

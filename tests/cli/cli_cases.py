"""Test cases of the triton-jit command-line tool, one CTest test each, but for the cases whose check
asks Triton's own binder: those run together as one test, `triton_parity` (a Python that asks
Triton's binder imports Triton and torch, about 3 s of CPU; once for all of them, not once each).

    python cli_cases.py --list
    python cli_cases.py --cli PATH --kernels DIR --work DIR CASE...

In a case's argv, {k} is the kernels folder and {out} the case's own empty work folder.
Every failing case must exit with its status, print nothing on stdout and exactly one line,
"triton-jit: error: ...", on stderr. Expected specializations are written by hand from Triton's
rules; the `parity_*` cases also compare the tool's --repr with Triton's own binder.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

import hip_cases  # HIP targets' cases: the 'S' flag, storage sizes, AMD options (tests/cli/hip_cases.py)
import index_cases  # the flows of unusable index folders and of former names (tests/cli/index_cases.py)
import pack_cases  # the flows of pack identity and of files read as packs (tests/cli/pack_cases.py)

K = "{k}/cli_kernels.py"
ADD = K + ":add_kernel"
MIXED = K + ":mixed_kernel"
DTYPE = K + ":dtype_kernel"


def ptr(dtype, addr):
    return {"ptr": dtype, "addr": addr}


def mem(dtype, nbytes):
    """Device memory `tune` allocates (zeroed): {"ptr": DTYPE, "bytes": N}."""
    return {"ptr": dtype, "bytes": nbytes}


def args(*items):
    return json.dumps(list(items))


def dtype(name):
    return {"dtype": name}


def torch_dtype(name):
    return {"torch_dtype": name}


def _has_torch():
    import importlib.util
    return importlib.util.find_spec("torch") is not None


HAS_TORCH = _has_torch()


def _has_gpu():
    """Whether the driver loads and sees a device (what `triton-jit tune` needs)."""
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0
SKIP_RETURN_CODE = 77  # ctest's SKIP_RETURN_CODE for these tests (tests/cli/CMakeLists.txt)


class Case:
    def __init__(self, argv, rc=0, stdout=None, stdout_contains=(), stderr=None, check=None,
                 one_line=True, env=None, asks_triton=False):
        self.argv = argv
        self.asks_triton = asks_triton  # check asks Triton's binder: the case runs in TRITON_PARITY
        self.env = env                  # variables set for the tool (TRITON_JIT_TARGET=hip:gfx942)
        self.rc = rc
        self.stdout = stdout            # exact stdout
        self.stdout_contains = stdout_contains
        self.stderr = stderr            # regex the (one-line) error must match after "triton-jit: error: "
        self.check = check              # extra check: check(out_dir, stdout, stderr)
        self.one_line = one_line


# The hand-computed specializations of mixed_kernel
#   (x_ptr, y_ptr [no align], src_ptr: const, n: i64, scale, seed [no specialize], flag,
#    NAME: constexpr, ALPHA: constexpr = 1.5, MODE: constexpr = None)
MIXED_ARGS = {
    # aligned / unaligned pointers, const pointer, annotated int, float, unspecialized int, bool,
    # string constexpr, defaults
    "basic": (
        [ptr("fp16", 4096), ptr("fp32", 4100), ptr("fp32", 4104), 5, 1.5, 32, True, "abc"],
        "*fp16:16,*fp32,*kfp32,i64,fp32,i32,u1,'abc',1.5,None",
    ),
    # int 1 becomes constexpr 1 (not when annotated, not when do_not_specialize); alignment ignored
    # for y_ptr; dtype alias and hex address; int/float constexprs
    "ones": (
        [ptr("fp16", 4097), ptr("bf16", 0), ptr("float32", "0x20"), 1, 1, 1, False, 7, 2.5, 3],
        "*fp16,*bf16,*kfp32:16,i64,1,i32,u1,7,2.5,3",
    ),
    # integers typed by value: i64 beyond i32, u64 beyond i64; None/True/False constexprs
    "wide_ints": (
        [ptr("fp8e4nv", 256), ptr("i32", 4096), ptr("bool", 16), 2**40, -2147483649, 2**63, 2**32,
         None, True, False],
        "*fp8e4nv:16,*i32,*ku1:16,i64:16,i64,u64,i64:16,None,True,False",
    ),
    # negative divisible ints, 0 is divisible by 16, exponent floats, float constexpr reprs,
    # a string repr that needs double quotes
    "negative": (
        [ptr("*fp16", 16), ptr("fp64", 8), ptr("i8", 1), -16, 1e3, -1, 0, -0.5, 1e20, "it's"],
        "*fp16:16,*fp64,*ki8,i64:16,fp32,i32,i32:16,-0.5,1e+20,\"it's\"",
    ),
    # the int/float boundary: 1.0 is a float, 2147483647 still i32, -2147483648 i32 and divisible
    "boundaries": (
        [ptr("u8", 48), ptr("fp16", 3), ptr("fp16", 64), 2147483647, 1.0, 2147483648, -2147483648,
         "", 1.0, 1e-05],
        "*u8:16,*fp16,*kfp16:16,i64,fp32,i64,i32:16,'',1.0,1e-05",
    ),
}

ADD_SIG = "*fp32:16,*fp32:16,*fp32:16,i32:16,1024"

# Calls the runtime refuses though Triton's binder keys them: (arguments, Triton's key).
_MIXED_HEAD = [ptr("fp16", 4096), ptr("fp32", 4100), ptr("fp32", 4104)]
STRICTER = {
    "float_for_i64": (_MIXED_HEAD + [2.5, 1.5, 32, True, "abc"],
                      "[('*fp16', 'D'), ('*fp32', ''), ('*kfp32', ''), ('i64', None), ('fp32', None), ('i32', None), "
                      "('u1', None), ('constexpr', 'abc'), ('constexpr', 1.5), ('constexpr', None)]"),
    "pointer_for_i64": (_MIXED_HEAD + [ptr("fp32", 4096), 1.5, 32, True, "abc"],
                        "[('*fp16', 'D'), ('*fp32', ''), ('*kfp32', ''), ('i64', 'D'), ('fp32', None), "
                        "('i32', None), ('u1', None), ('constexpr', 'abc'), ('constexpr', 1.5), ('constexpr', None)]"),
    "int_for_pointer": ([4096, 7], "[('*fp16', 'D'), ('i32', '')]"),
}

# The decorated kernels of the unit tests (@triton.heuristics, @triton.autotune).
DECORATED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels", "decorated.py")
ROW_SUM = DECORATED + ":row_sum_kernel"
SCALE_TUNED = DECORATED + ":scale_kernel"      # heuristics over an autotuner of 2 configs
ATOMIC_SUM = DECORATED + ":atomic_sum_kernel"  # 2 configs, reset_to_zero=["out_ptr"]
# Wrappers the runtime does not emulate (an Autotuner subclass overriding run): run through Python.
RUN_OVERRIDES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels", "run_overrides.py")
# row_sum_kernel(x_ptr, bias, out_ptr, M, N, stride): the heuristics set HAS_BIAS, BLOCK_N, EVEN_N.
ROW_SUM_ARGS = {
    "no_bias": ([ptr("fp32", 4096), None, ptr("fp32", 8192), 128, 1000, 1000],
                "*fp32:16,None,*fp32:16,i32:16,i32,i32,False,1024,False"),
    "bias": ([ptr("fp16", 4096), ptr("fp32", 64), ptr("fp32", 8192), 7, 1024, 2048],
             "*fp16:16,*fp32:16,*fp32:16,i32,i32:16,i32:16,True,1024,True"),
}
SCALE_TUNED_ARGS = [mem("fp16", 1 << 20), mem("fp16", 1 << 20), 1 << 19, 2.0]

# A function named by module: clipkg (tests/cli/kernels, put on PYTHONPATH by main) sets the
# default of BLOCK in its __init__, which clipkg.ops imports relatively.
SCALE = "module:clipkg.ops:scale_kernel"
SCALE_SIG = "*fp32:16,*fp32:16,i32,256"


def check_scale_compiled(out_dir, stdout, stderr):
    meta_path = os.path.join(out_dir, "scale_kernel.json")
    assert stdout.endswith(f"{meta_path}\n"), stdout
    with open(meta_path) as f:
        meta = json.load(f)
    assert meta["function"] == "scale_kernel" and meta["signature"] == SCALE_SIG, meta
    assert meta["file"] == os.path.realpath(os.path.join(ARGS.kernels, "clipkg", "ops.py")), meta["file"]

# dtype_kernel (x_ptr, n, X_dtype: constexpr, OUT_DTYPE: constexpr = tl.float32) with dtypes given
# as JSON, in Triton's spelling and in torch's.
DTYPE_ARGS = {
    "tl": ([ptr("fp32", 4096), 100, dtype("fp16")], "*fp32:16,i32,triton.language.float16,triton.language.float32"),
    "tl_aliases": ([ptr("fp32", 4096), 100, dtype("bfloat16"), dtype("tl.int1")],
                   "*fp32:16,i32,triton.language.bfloat16,triton.language.int1"),
    "torch": ([ptr("fp32", 4096), 100, torch_dtype("float16")], "*fp32:16,i32,torch.float16,triton.language.float32"),
    "torch_names": ([ptr("fp32", 4100), 7, torch_dtype("torch.float8_e4m3fn"), torch_dtype("bool")],
                    "*fp32,i32,torch.float8_e4m3fn,torch.bool"),
}


def check_compiled(expect_arch, expect_warps, expect_options=None):
    def check(out_dir, stdout, stderr):
        cubin = os.path.join(out_dir, "add_kernel.cubin")
        meta_path = os.path.join(out_dir, "add_kernel.json")
        assert stdout == f"{cubin}\n{meta_path}\n", f"stdout lists the written files: {stdout!r}"
        assert sorted(os.listdir(out_dir)) == ["add_kernel.cubin", "add_kernel.json"], os.listdir(out_dir)
        with open(cubin, "rb") as f:
            data = f.read()
        assert data[:4] == b"\x7fELF", f"cubin is no ELF file: {data[:16]!r}"
        with open(meta_path) as f:
            meta = json.load(f)
        assert meta["name"] == "add_kernel", meta["name"]
        assert meta["function"] == "add_kernel", meta["function"]
        assert meta["cubin"] == "add_kernel.cubin" and meta["cubin_size"] == len(data), meta["cubin_size"]
        assert meta["target"] == {"backend": "cuda", "arch": expect_arch, "warp_size": 32}, meta["target"]
        assert meta["num_warps"] == expect_warps, meta["num_warps"]
        assert isinstance(meta["metadata"], dict), type(meta["metadata"])
        assert meta["metadata"]["name"] == "add_kernel", meta["metadata"].get("name")
        assert meta["metadata"]["num_warps"] == expect_warps, meta["metadata"].get("num_warps")
        assert meta["metadata"]["target"]["arch"] == expect_arch, meta["metadata"].get("target")
        assert meta["options"] == (expect_options or {}), meta["options"]
        for key, value in (expect_options or {}).items():
            assert meta["metadata"][key] == value, (key, meta["metadata"].get(key))
        for key in ("shared", "num_ctas", "num_stages", "cluster_dims", "global_scratch_size", "scratch_params",
                    "hash", "triton_version", "signature"):
            assert key in meta, f"missing {key}"
        assert meta["signature"] == ADD_SIG, meta["signature"]
    return check


def check_compiled_dtype(signature):
    def check(out_dir, stdout, stderr):
        cubin = os.path.join(out_dir, "dtype_kernel.cubin")
        meta_path = os.path.join(out_dir, "dtype_kernel.json")
        assert stdout == f"{cubin}\n{meta_path}\n", f"stdout lists the written files: {stdout!r}"
        with open(cubin, "rb") as f:
            assert f.read(4) == b"\x7fELF", "cubin is no ELF file"
        with open(meta_path) as f:
            meta = json.load(f)
        assert meta["name"] == "dtype_kernel" and meta["signature"] == signature, meta
    return check


def lines(*ls):
    return "".join(l + "\n" for l in ls)


CASES = {
    # ---- help and version ----
    "help": Case(["--help"], stdout_contains=["Usage: triton-jit", "inspect", "specialize", "compile"]),
    "help_command": Case(["help", "compile"], stdout_contains=["--signature", "--target", "--out"]),
    "help_after_command": Case(["specialize", "--help"], stdout_contains=["--args JSON", "{\"ptr\": \"fp16\"",
                                                                          "{\"dtype\": \"fp16\"}",
                                                                          "{\"torch_dtype\": \"float16\"}"]),
    "help_compile_dtype": Case(["help", "compile"], stdout_contains=["triton.language.float16", "torch.float16"]),
    "version": Case(["--version"], check=lambda o, out, err: _check_version(out)),

    # ---- inspect ----
    "inspect_add": Case(["inspect", ADD], stdout=lines(
        "x_ptr", "y_ptr", "out_ptr", "n_elements", "BLOCK_SIZE: constexpr")),
    "inspect_mixed": Case(["inspect", MIXED], stdout=lines(
        "x_ptr",
        "y_ptr  [do_not_specialize_on_alignment]",
        "src_ptr: const",
        "n: i64",
        "scale",
        "seed  [do_not_specialize]",
        "flag",
        "NAME: constexpr",
        "ALPHA: constexpr = 1.5",
        "MODE: constexpr = None")),
    "inspect_dtype_default": Case(["inspect", K + ":dtype_default_kernel"], stdout=lines(
        "x_ptr", "DT: constexpr = triton.language.float16")),
    "inspect_tuple_default": Case(["inspect", K + ":tuple_default_kernel"], stdout=lines(
        "x_ptr", "SHAPE: constexpr = (16, 16)  [no C++ default]")),
    "inspect_json": Case(["inspect", "--json", ADD], check=lambda o, out, err: _check_inspect_json(out)),
    "inspect_python_wrapper": Case(["inspect", RUN_OVERRIDES + ":last_config_kernel"], stdout_contains=[
        ".LastConfigAutotuner: runs through Python on every call (a subclass of triton's Autotuner that overrides run)"]),
    # ---- specialize ----
    "specialize_add": Case(["specialize", ADD, "--args", args(ptr("fp32", 4096), ptr("fp32", 8192),
                                                              ptr("fp32", 12288), 1024, 1024)],
                           stdout=lines(ADD_SIG)),
    "specialize_add_unaligned": Case(["specialize", ADD, "--args", args(ptr("fp32", 4096), ptr("fp32", 8196),
                                                                        ptr("fp32", 12288), 1000, 256),
                                      "--num-warps", "8", "--num-stages", "2", "--num-ctas", "1"],
                                     stdout=lines("*fp32:16,*fp32,*fp32:16,i32,256")),
    "specialize_add_repr": Case(["specialize", ADD, "--repr", "--args=" + args(ptr("fp16", 4096), ptr("fp16", 8),
                                                                               ptr("fp16", 32), 1, 64)],
                                stdout=lines("*fp16:16,*fp16,*fp16:16,1,64",
                                             "[('*fp16', 'D'), ('*fp16', ''), ('*fp16', 'D'), ('constexpr', 1), "
                                             "('constexpr', 64)]")),
    "specialize_mixed_repr": Case(["specialize", MIXED, "--repr", "--args", args(*MIXED_ARGS["basic"][0])],
                                  stdout=lines(MIXED_ARGS["basic"][1],
                                               "[('*fp16', 'D'), ('*fp32', ''), ('*kfp32', ''), ('i64', ''), "
                                               "('fp32', None), ('i32', None), ('u1', None), ('constexpr', 'abc'), "
                                               "('constexpr', 1.5), ('constexpr', None)]")),
    **{f"specialize_mixed_{name}": Case(["specialize", MIXED, "--args", args(*a)], stdout=lines(sig))
       for name, (a, sig) in MIXED_ARGS.items()},
    # The same lists, checked against the binder Triton itself builds for the function.
    **{f"parity_mixed_{name}": Case(["specialize", MIXED, "--repr", "--args", args(*a)],
                                    check=lambda o, out, err, a=a: _check_parity("mixed_kernel", a, out),
                                    asks_triton=True)
       for name, (a, sig) in MIXED_ARGS.items()},

    # HIP targets: Triton's 'S' flag and the AMD backend's options (tests/cli/hip_cases.py)
    **hip_cases.cases(sys.modules[__name__]),

    # dtype constexprs: JSON forms, a dtype default, Triton's repr
    **{f"specialize_dtype_{name}": Case(["specialize", DTYPE, "--args", args(*a)], stdout=lines(sig))
       for name, (a, sig) in DTYPE_ARGS.items()},
    **{f"parity_dtype_{name}": Case(["specialize", DTYPE, "--repr", "--args", args(*a)],
                                    check=lambda o, out, err, a=a: _check_parity("dtype_kernel", a, out),
                                    asks_triton=True)
       for name, (a, sig) in DTYPE_ARGS.items()},
    "specialize_dtype_repr": Case(["specialize", DTYPE, "--repr", "--args", args(*DTYPE_ARGS["torch"][0])],
                                  stdout=lines(DTYPE_ARGS["torch"][1],
                                               "[('*fp32', 'D'), ('i32', ''), ('constexpr', torch.float16), "
                                               "('constexpr', triton.language.float32)]")),
    "specialize_dtype_default": Case(["specialize", K + ":dtype_default_kernel", "--args", args(ptr("fp16", 16))],
                                     stdout=lines("*fp16:16,triton.language.float16")),

    # The final key of a @triton.heuristics function: the heuristics' values in place, as
    # Triton's Heuristics.run hands them to its binder.
    **{f"specialize_heuristics_{name}": Case(["specialize", ROW_SUM, "--repr", "--args", args(*a)],
                                             stdout_contains=[sig + "\n"],
                                             check=lambda o, out, err, a=a: _check_decorated_parity("row_sum_kernel",
                                                                                                    a, out),
                                             asks_triton=True)
       for name, (a, sig) in ROW_SUM_ARGS.items()},

    # The kernel line of an autotune choice (docs/FORMATS.md, "Tuning choices"): each .fn goes one
    # wrapper in. Heuristics outside the autotuner: .fn is the autotuner (it asks for its choice),
    # .fn.fn the @triton.jit function, given the heuristic's value and the config's.
    "specialize_kernel_line_heuristics_outside": Case(
        ["specialize", SCALE_TUNED + ".fn.fn", "--num-warps", "8", "--args",
         args(ptr("fp16", 4096), ptr("fp16", 8192), 524288, 2.0, True, 1024)],
        stdout=lines("*fp16:16,*fp16:16,i32:16,fp32,True,1024")),
    "error_specialize_kernel_line_autotuner_inside": Case(
        ["specialize", SCALE_TUNED + ".fn", "--args", args(ptr("fp16", 4096), ptr("fp16", 8192), 524288, 2.0, True)],
        rc=1, stderr=r"scale_kernel is autotuned over 2 configs and has no tuning result for key .*"),
    # Heuristics inside the autotuner: .fn is the heuristics wrapper, which computes EVEN_K and
    # SPLIT from the config's values as under the autotuner.
    "specialize_kernel_line_heuristics_inside": Case(
        ["specialize", DECORATED + ":matmul_kernel.fn", "--num-stages", "4", "--args",
         args(ptr("fp16", 4096), ptr("fp16", 8192), ptr("fp16", 8192), 1024, 1024, 512, 512, 1, 1024, 1, 1024, 1,
              128, 64, 32)],
        stdout=lines("*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,1,i32:16,1,i32:16,1,128,64,32,True,4")),

    # ---- tune ----
    "help_tune": Case(["tune", "--help"], stdout_contains=["Usage: triton-jit tune FILE.py:FUNCTION --args JSON",
                                                           '{"ptr": "fp16", "bytes": 1048576}', "--grid X[,Y[,Z]]",
                                                           "A fixed grid", "--store", "Needs a GPU"]),
    "help_lists_tune": Case(["--help"], stdout_contains=["  tune "]),
    "help_pack_autotune": Case(["help", "pack"], stdout_contains=["FILE.py:FUNCTION autotune key=KEY config=CHOICE",
                                                                  "autotune args='JSON' [grid=X[,Y[,Z]]]",
                                                                  "Without a GPU such a line is an error"]),
    "error_tune_not_autotuned": Case(["tune", ADD, "--args", args(mem("fp32", 4096), mem("fp32", 4096),
                                                                  mem("fp32", 4096), 1024, 256)], rc=1,
                                     stderr=r"add_kernel is not autotuned \(no @triton\.autotune wrapper\): there is "
                                            r"nothing to tune.*"),
    "error_tune_heuristics_only": Case(["tune", ROW_SUM, "--args", args(*ROW_SUM_ARGS["no_bias"][0])], rc=1,
                                       stderr=r"row_sum_kernel is not autotuned .*"),
    "error_tune_one_config": Case(["tune", DECORATED + ":single_config_kernel", "--args",
                                   args(mem("fp16", 4096), mem("fp16", 4096), 2048)], rc=1,
                                  stderr=r"single_config_kernel's @triton\.autotune has one config, .*nothing to tune"),
    # Only where no GPU is present (skipped visibly on a GPU machine): the error says why.
    "error_tune_no_gpu": Case(["tune", SCALE_TUNED, "--args", args(*SCALE_TUNED_ARGS)], rc=1,
                              stderr=r"tune needs a GPU: .*"),
    "error_tune_missing_args": Case(["tune", SCALE_TUNED], rc=2, stderr=r"tune: missing required option --args.*"),
    "error_tune_bad_grid": Case(["tune", SCALE_TUNED, "--args", "[]", "--grid", "8,0"], rc=2,
                                stderr=r"--grid expects X\[,Y\[,Z\]\] with positive integers .*got '8,0'"),
    "error_tune_bad_bytes": Case(["tune", SCALE_TUNED, "--args", args(mem("fp16", -1))], rc=2,
                                 stderr=r"--args\[0\]: \"bytes\" must be a size in bytes from 1 to 2\*\*46-1, got -1"),
    "error_tune_addr_and_bytes": Case(["tune", SCALE_TUNED, "--args", args({"ptr": "fp16", "addr": 16, "bytes": 16})],
                                      rc=2, stderr=r"--args\[0\]: a pointer has \"addr\" .* or \"bytes\" .*, not both"),
    "error_specialize_bytes": Case(["specialize", ADD, "--args", args(mem("fp32", 4096), ptr("fp32", 16),
                                                                      ptr("fp32", 16), 8, 64)], rc=2,
                                   stderr=r"--args\[0\]: \{\"ptr\": \"fp16\", \"bytes\": 1048576\} allocates device "
                                          r"memory, which only `triton-jit tune` does; give an address here.*"),
    # Only with a GPU: one row per config, one chosen.
    "tune_gpu": Case(["tune", SCALE_TUNED, "--args", args(*SCALE_TUNED_ARGS), "--grid", "512"],
                     check=lambda o, out, err: _check_tune_table(out, "scale_kernel", 2)),
    "tune_gpu_reset_to_zero": Case(["tune", ATOMIC_SUM, "--args", args(mem("fp32", 1 << 16), mem("fp32", 4), 1 << 14),
                                    "--grid", "128"],
                                   check=lambda o, out, err: _check_tune_table(out, "atomic_sum_kernel", 2)),

    # ---- compile ----
    "compile_add": Case(["compile", ADD, "--signature", ADD_SIG, "--target", "cuda:90", "--out", "{out}"],
                        check=check_compiled(90, 4)),
    "compile_add_options": Case(["compile", ADD, "--signature", ADD_SIG, "--target", "cuda:80:32", "--out", "{out}",
                                 "--num-warps", "8", "--num-stages", "2", "--option", "enable_fp_fusion=false"],
                                check=check_compiled(80, 8, {"enable_fp_fusion": False})),

    "compile_dtype": Case(["compile", DTYPE, "--signature", "*fp32:16,i32,triton.language.float16,tl.float32",
                           "--target", "cuda:90", "--out", "{out}"],
                          check=check_compiled_dtype("*fp32:16,i32,triton.language.float16,tl.float32")),
    "compile_torch_dtype": Case(["compile", DTYPE, "--signature", "*fp32:16,i32,torch.float16,tl.float32",
                                 "--target", "cuda:90", "--out", "{out}"],
                                check=check_compiled_dtype("*fp32:16,i32,torch.float16,tl.float32")),

    # ---- usage errors: status 2 ----
    "error_no_command": Case([], rc=2, stderr=r"no command given.*"),
    "error_unknown_command": Case(["frobnicate", ADD], rc=2, stderr=r"unknown command 'frobnicate'.*"),
    "error_unknown_option": Case(["specialize", ADD, "--args", "[]", "--frob"], rc=2,
                                 stderr=r"unknown option '--frob' for specialize.*"),
    "error_no_kernel": Case(["inspect"], rc=2, stderr=r"inspect: missing FILE\.py:FUNCTION.*"),
    "error_kernel_spec": Case(["inspect", "kernels.py"], rc=2, stderr=r"expected FILE\.py:FUNCTION or module:MODULE:FUNCTION, "
                                                                   r"got 'kernels\.py'"),
    "error_missing_args": Case(["specialize", ADD], rc=2, stderr=r"specialize: missing required option --args.*"),
    "error_missing_value": Case(["specialize", ADD, "--args"], rc=2, stderr=r"option --args needs a value.*"),
    "error_bad_json": Case(["specialize", ADD, "--args", "[1, 2,"], rc=2,
                           stderr=r"--args is not valid JSON: parse error at line 1, column 7: .*"),
    "error_bad_json_newline": Case(["specialize", ADD, "--args", "[1,\n\n x]"], rc=2,
                                   stderr=r"--args is not valid JSON: parse error at line 3.*"),
    "error_json_not_list": Case(["specialize", ADD, "--args", '{"x": 1}'], rc=2,
                                stderr=r"--args must be a JSON list.*got object"),
    "error_json_nested_list": Case(["specialize", ADD, "--args", "[[1, 2]]"], rc=2,
                                   stderr=r"--args\[0\]: a JSON array is not an argument \(tuples are not supported\).*"),
    "error_json_bad_dtype": Case(["specialize", ADD, "--args", args(ptr("fp17", 16))], rc=2,
                                 stderr=r"--args\[0\]: unknown pointer element type \"fp17\".*"),
    "error_json_unknown_dtype": Case(["specialize", DTYPE, "--args", args(ptr("fp32", 16), 8, dtype("fp17"))], rc=2,
                                     stderr=r"--args\[2\]: unknown dtype \"fp17\" \(Triton's names: fp16, .*"),
    # A string from --args is quoted as JSON in the error, so the error stays one line (found by
    # the cli_json_args fuzzer).
    "error_json_dtype_with_a_line_break": Case(["specialize", DTYPE, "--args", args(ptr("fp32", 16), 8,
                                                                                   dtype("fp\n16"))], rc=2,
                                               stderr=r"--args\[2\]: unknown dtype \"fp\\n16\" \(Triton's names: .*"),
    "error_json_unknown_torch_dtype": Case(["specialize", DTYPE, "--args", args(ptr("fp32", 16), 8,
                                                                               torch_dtype("complex64"))], rc=2,
                                           stderr=r"--args\[2\]: unknown dtype \"complex64\" \(torch's names: .*"),
    "error_json_torch_fp8e4b15": Case(["specialize", DTYPE, "--args", args(ptr("fp32", 16), 8,
                                                                          torch_dtype("fp8e4b15"))], rc=2,
                                      stderr=r"--args\[2\]: torch has no dtype for fp8e4b15; pass it as "
                                             r"\{\"dtype\": \"fp8e4b15\"\}"),
    "error_json_dtype_keys": Case(["specialize", DTYPE, "--args", args(ptr("fp32", 16), 8,
                                                                      {"dtype": "fp16", "torch_dtype": "float16"})],
                                  rc=2, stderr=r"--args\[2\]: a dtype is an object with one key, .*"),
    "error_json_dtype_not_string": Case(["specialize", DTYPE, "--args", args(ptr("fp32", 16), 8, dtype(16))], rc=2,
                                        stderr=r"--args\[2\]: \"dtype\" must name a dtype such as \"fp16\", got 16"),
    "error_json_pointer_keys": Case(["specialize", ADD, "--args", args(1, {"ptr": "fp16", "adr": 16})], rc=2,
                                    stderr=r"--args\[1\]: unknown key \"adr\" in a pointer.*"),
    "error_json_negative_addr": Case(["specialize", ADD, "--args", args(ptr("fp16", -16))], rc=2,
                                     stderr=r"--args\[0\]: \"addr\" must not be negative.*"),
    "error_json_huge_int": Case(["specialize", ADD, "--args", "[18446744073709551616]"], rc=2,
                                stderr=r"--args: integer 18446744073709551616 does not fit 64 bits.*"),
    "error_bad_num_warps": Case(["specialize", ADD, "--args", "[]", "--num-warps", "3"], rc=2,
                                stderr=r"--num-warps must be a power of two.*"),
    "error_num_warps_not_int": Case(["specialize", ADD, "--args", "[]", "--num-warps", "4x"], rc=2,
                                    stderr=r"--num-warps expects an integer, got '4x'"),
    "error_duplicate_option": Case(["specialize", ADD, "--args", "[]", "--args", "[]"], rc=2,
                                   stderr=r"option --args given more than once"),
    "error_bad_target": Case(["compile", ADD, "--signature", ADD_SIG, "--target", "sm90", "--out", "{out}"], rc=2,
                             stderr=r"invalid target 'sm90'.*"),
    "error_bad_target_backend": Case(["compile", ADD, "--signature", ADD_SIG, "--target", "rocm:90", "--out", "{out}"],
                                     rc=2, stderr=r"invalid target 'rocm:90': unknown backend 'rocm': this build "
                                                  r"compiles for cuda \(NVIDIA: cuda:ARCH, e\.g\. cuda:90\) and hip "
                                                  r"\(AMD: hip:gfxNAME, e\.g\. hip:gfx942; .*\)"),
    "error_bad_target_hip_form": Case(["compile", ADD, "--signature", ADD_SIG, "--target", "hip:90", "--out", "{out}"],
                                      rc=2, stderr=r"invalid target 'hip:90': hip targets name a gfx architecture, "
                                                   r"e\.g\. hip:gfx942 or hip:gfx90a"),
    # Triton's ptxas does not know sm_999: refused before compiling (nothing else printed), with
    # what it can build.
    "error_target_unbuildable": Case(["compile", ADD, "--signature", ADD_SIG, "--target", "cuda:999", "--out", "{out}"],
                                     rc=1, stderr=r"add_kernel: the target cuda:999 \(sm_999a?\) is not one the "
                                                  r"installed Triton \S+ can build: its ptxas \(.*ptxas\S*\) knows "
                                                  r"cuda:\d+, .*cuda:90.*"),
    # Option values are checked against the types of Triton's CUDAOptions fields.
    "error_option_type": Case(["compile", ADD, "--signature", ADD_SIG, "--target", "cuda:90", "--out", "{out}",
                               "--option", "maxnreg=abc"], rc=1,
                              stderr=r"add_kernel: the compile option maxnreg takes an integer, got str 'abc'"),
    "error_option_bool_type": Case(["compile", ADD, "--signature", ADD_SIG, "--target", "cuda:90", "--out", "{out}",
                                    "--option", "enable_fp_fusion=maybe"], rc=1,
                                   stderr=r"add_kernel: the compile option enable_fp_fusion takes a bool \(true or "
                                          r"false\), got str 'maybe'"),
    "error_option_unknown": Case(["compile", ADD, "--signature", ADD_SIG, "--target", "cuda:90", "--out", "{out}",
                                  "--option", "maxregs=64"], rc=1,
                                 stderr=r"add_kernel: unknown compile option 'maxregs' for cuda targets; options of "
                                        r"Triton \S+: .*maxnreg.*"),
    # ptxas fails (an option it does not know): Triton prints the PTX on stdout and ptxas's log;
    # the tool still prints one line, and shows that output with -v.
    "error_ptxas_fails": Case(["compile", ADD, "--signature", ADD_SIG, "--target", "cuda:90", "--out", "{out}",
                               "--option", "ptx_options=--no-such-ptxas-flag"], rc=1,
                              stderr=r"compiling add_kernel \[.*\] for cuda:90 failed at .*: PTXASError: .*"),
    "error_ptxas_fails_verbose": Case(["compile", ADD, "--signature", ADD_SIG, "--target", "cuda:90", "--out", "{out}",
                                       "--option", "ptx_options=--no-such-ptxas-flag", "-v"], rc=1, one_line=False,
                                      check=lambda o, out, err: _check_ptxas_verbose(err)),
    # The AMD backend of Triton's wheels compiles without a GPU.
    "compile_hip": Case(["compile", ADD, "--signature", ADD_SIG, "--target", "hip:gfx942", "--out", "{out}"],
                        check=lambda o, out, err: _check_hip_compiled(o, out)),
    "error_compile_missing_target": Case(["compile", ADD, "--signature", ADD_SIG, "--out", "{out}"], rc=2,
                                         stderr=r"compile: missing required option --target.*"),
    "error_bad_option": Case(["compile", ADD, "--signature", ADD_SIG, "--target", "cuda:90", "--out", "{out}",
                              "--option", "maxnreg"], rc=2, stderr=r"--option expects KEY=VALUE.*"),

    # ---- runtime errors: status 1 ----
    "error_missing_file": Case(["inspect", "{k}/no_such_file.py:add_kernel"], rc=1,
                               stderr=r"cannot get Triton function 'add_kernel': no such file: .*no_such_file\.py.*"),
    "error_missing_function": Case(["inspect", K + ":no_such_kernel"], rc=1,
                                   stderr=r".*has no function 'no_such_kernel'.*add_kernel.*"),
    "error_not_jit": Case(["inspect", K + ":not_a_kernel"], rc=1, stderr=r".*'not_a_kernel'.*not a @triton\.jit.*"),
    "error_import_fails": Case(["inspect", "{k}/import_error.py:anything"], rc=1,
                               stderr=r".*import_error\.py failed: RuntimeError: this kernel file fails to import"),
    "error_import_fails_verbose": Case(["-v", "inspect", "{k}/import_error.py:anything"], rc=1, one_line=False,
                                       check=lambda o, out, err: _check_verbose(err, "Traceback")),
    "error_too_many_args": Case(["specialize", ADD, "--args", args(ptr("fp32", 16), ptr("fp32", 16), ptr("fp32", 16),
                                                                   8, 64, 1)], rc=1,
                                stderr=r"add_kernel takes 5 arguments \(x_ptr, y_ptr, out_ptr, n_elements, "
                                       r"BLOCK_SIZE\) but 6 were given"),
    "error_too_few_args": Case(["specialize", ADD, "--args", args(ptr("fp32", 16), ptr("fp32", 16))], rc=1,
                               stderr=r"add_kernel takes 5 arguments .* but 2 were given: parameter 'out_ptr' is "
                                      r"missing.*"),
    "error_tuple_default": Case(["specialize", K + ":tuple_default_kernel", "--args", args(ptr("fp16", 16))], rc=1,
                                stderr=r".*parameter 'SHAPE' is missing \(its default \(16, 16\) has no "
                                       r"C\+\+ form: pass it explicitly\)"),
    "error_dtype_for_runtime": Case(["specialize", DTYPE, "--args", args(ptr("fp32", 16), dtype("fp16"),
                                                                         dtype("fp16"))], rc=1,
                                    stderr=r"dtype_kernel: parameter 'n' \(#1\) is a runtime parameter; a dtype "
                                           r"\(here triton\.language\.float16\) can only be passed to a "
                                           r"tl\.constexpr parameter"),
    "error_dtype_signature_for_runtime": Case(["compile", DTYPE, "--signature", "*fp32:16,torch.int32,tl.float16,tl.float32",
                                               "--target", "cuda:90", "--out", "{out}"], rc=1,
                                              stderr=r"dtype_kernel: parameter 'n' is a runtime parameter; the dtype "
                                                     r"torch\.int32 can only be given to a tl\.constexpr parameter"),
    "error_dtype_signature_unknown": Case(["compile", DTYPE, "--signature", "*fp32:16,i32,tl.float17,tl.float32",
                                           "--target", "cuda:90", "--out", "{out}"], rc=1,
                                          stderr=r"dtype_kernel: cannot read 'tl\.float17' for parameter 'X_dtype'.*"),
    # Deliberately stricter than Triton, whose binder keys these calls: each message says what
    # Triton would do and how to pass the value.
    "error_float_for_annotated_int": Case(
        ["specialize", MIXED, "--args", args(*STRICTER["float_for_i64"][0])], rc=1,
        stderr=r"mixed_kernel: parameter 'n' \(#3\) is annotated 'i64' and cannot take a float: Triton keys it as "
               r"i64 but its launcher then raises TypeError \('float' object cannot be interpreted as an integer\); "
               r"convert it first \(static_cast<int64_t>\(x\)\), or remove the annotation to pass a float \(fp32\)",
        check=lambda o, out, err: _check_stricter("mixed_kernel", *STRICTER["float_for_i64"]), asks_triton=True),
    "error_pointer_for_annotated_int": Case(
        ["specialize", MIXED, "--args", args(*STRICTER["pointer_for_i64"][0])], rc=1,
        stderr=r"mixed_kernel: parameter 'n' \(#3\) is annotated 'i64' and cannot take a pointer: Triton keys a "
               r"tensor there as i64 but its launcher then passes only a one-element tensor's value .*; pass the "
               r"value itself, or the address as an integer \(static_cast<int64_t>\(reinterpret_cast<uintptr_t>"
               r"\(ptr\)\)\)",
        check=lambda o, out, err: _check_stricter("mixed_kernel", *STRICTER["pointer_for_i64"]), asks_triton=True),
    "error_int_for_annotated_pointer": Case(
        ["specialize", K + ":annotated_kernel", "--args", args(*STRICTER["int_for_pointer"][0])], rc=1,
        stderr=r"annotated_kernel: parameter 'x_ptr' \(#0\) is annotated '\*fp16' and cannot take an int: Triton "
               r"takes an integer there as the device address; pass the address as a pointer \(TypedPtr\{.*\}.*\)",
        check=lambda o, out, err: _check_stricter("annotated_kernel", *STRICTER["int_for_pointer"]),
        asks_triton=True),
    "error_pointer_for_constexpr": Case(["specialize", ADD, "--args", args(ptr("fp32", 16), ptr("fp32", 16),
                                                                           ptr("fp32", 16), 8, ptr("fp32", 16))],
                                        rc=1, stderr=r"add_kernel: parameter 'BLOCK_SIZE' \(#4\) is a tl\.constexpr.*"),
    "error_string_for_runtime": Case(["specialize", ADD, "--args", args("x", ptr("fp32", 16), ptr("fp32", 16), 8, 64)],
                                     rc=1, stderr=r"add_kernel: parameter 'x_ptr' \(#0\) is a runtime parameter.*"),
    "error_signature_count": Case(["compile", ADD, "--signature", "*fp32:16,i32", "--target", "cuda:90",
                                   "--out", "{out}"], rc=1,
                                  stderr=r"add_kernel: the signature '\*fp32:16,i32' has 2 items but the function "
                                         r"has 5 parameters: parameter 'out_ptr' is missing and it has no default"),
    "error_signature_too_long": Case(["compile", ADD, "--signature", ADD_SIG + ",1", "--target", "cuda:90",
                                      "--out", "{out}"], rc=1,
                                     stderr=r"add_kernel: the signature '.*,1024,1' has 6 items but the function "
                                            r"has 5 parameters"),
    # As a call leaves out a default C++ cannot pass, so does a signature: the same message.
    "error_signature_tuple_default": Case(["compile", K + ":tuple_default_kernel", "--signature", "*fp16:16",
                                           "--target", "cuda:90", "--out", "{out}"], rc=1,
                                          stderr=r"tuple_default_kernel: the signature '\*fp16:16' has 1 items but "
                                                 r"the function has 2 parameters: parameter 'SHAPE' is missing \(its "
                                                 r"default \(16, 16\) has no C\+\+ form: give it explicitly\)"),
    # ---- functions named by module (module:MODULE:FUNCTION), files inside a package ----
    "inspect_module": Case(["inspect", SCALE], stdout=lines("x_ptr", "out_ptr", "n", "BLOCK: constexpr = 256")),
    "inspect_file_in_package": Case(["inspect", "{k}/clipkg/ops.py:scale_kernel"],
                                    stdout=lines("x_ptr", "out_ptr", "n", "BLOCK: constexpr = 256")),
    "specialize_module": Case(["specialize", SCALE, "--args", args(ptr("fp32", 4096), ptr("fp32", 8192), 100)],
                              stdout=SCALE_SIG + "\n"),
    "compile_module": Case(["compile", SCALE, "--signature", SCALE_SIG, "--target", "cuda:90", "--out", "{out}"],
                           check=check_scale_compiled),
    "error_module_missing": Case(["inspect", "module:clipkg.no_such_module:scale_kernel"], rc=1,
                                 stderr=r"cannot get Triton function 'scale_kernel': importing the module "
                                        r"clipkg\.no_such_module failed: ModuleNotFoundError: .*"),
    "error_module_spelling": Case(["inspect", "module::scale_kernel"], rc=2,
                                  stderr=r"expected module:MODULE:FUNCTION, got 'module::scale_kernel'"),
    "error_compile_fails": Case(["compile", K + ":broken_kernel", "--signature", "*fp16:16,64", "--target", "cuda:90",
                                 "--out", "{out}"], rc=1,
                                stderr=r"compiling broken_kernel \[\*fp16:16,64\] for cuda:90 failed at "
                                       r".*cli_kernels\.py:\d+: CompilationError: .*"
                                       r"NameError\('undefined_name is not defined'\)"),
    "error_compile_fails_verbose": Case(["compile", K + ":broken_kernel", "--signature", "*fp16:16,64", "--target",
                                         "cuda:90", "--out", "{out}", "--verbose"], rc=1, one_line=False,
                                        check=lambda o, out, err: _check_verbose(err, "tl.store(x_ptr + offsets")),
}


class Flow:
    """Several commands in a row, sharing a kernel index of their own ({out}/index)."""

    def __init__(self, steps):
        self.steps = steps  # steps(cli, out_dir): raises AssertionError on failure


def _cli(out_dir):
    env = dict(os.environ, TRITON_JIT_INDEX_DIR=os.path.join(out_dir, "index"))

    def cli(*argv, rc=0, cwd=None):
        argv = [a.replace("{k}", ARGS.kernels).replace("{out}", out_dir) for a in argv]
        p = subprocess.run([ARGS.cli] + argv, capture_output=True, text=True, env=env, timeout=600, cwd=cwd)
        print(f"$ triton-jit {' '.join(argv)}\nexit status {p.returncode}\n--- stdout\n{p.stdout}--- stderr\n{p.stderr}")
        assert p.returncode == rc, f"expected exit status {rc}"
        if rc != 0:
            assert p.stdout == "" and p.stderr.count("\n") == 1, "failures print one line on stderr only"
        return p.stdout, p.stderr
    return cli


ADD_SIG_64 = "*fp32:16,*fp32:16,*fp32:16,i32,64"


def _index_flow(cli, out):
    cli("compile", ADD, "--signature", ADD_SIG_64, "--target", "cuda:90", "--out", "{out}/c")
    listing, _ = cli("index", "list")
    assert listing.startswith(f"# {out}/index: 1 entries\n"), listing
    entry = listing.splitlines()[1]
    import triton
    assert re.fullmatch(r"[0-9a-f]{12}  valid  .*cli_kernels\.py:add_kernel  \[\*fp32:16,\*fp32:16,\*fp32:16,i32,64\]  "
                        r"num_warps=4 num_stages=3 num_ctas=1  cuda:90  triton " + re.escape(triton.__version__) +
                        r"  \d+ B", entry), entry
    ident = entry[:8]
    info, _ = cli("index", "info", ident)
    assert "state:          valid\n" in info and "target:         cuda:90:32\n" in info, info
    assert re.search(r"  unchanged  [0-9a-f]{16}  .*cli_kernels\.py\n", info), info
    assert f"triton:         {triton.__version__}\n" in info, info
    pruned, _ = cli("index", "prune", "--older-than", "30")
    assert pruned.startswith("removed 0 entries"), pruned
    # A damaged entry shows as corrupt; prune removes it whatever its age.
    entry_file = re.search(r"file: +(\S+)", info).group(1)
    with open(entry_file, "r+b") as f:
        f.truncate(100)
    listing, _ = cli("index", "list")
    assert re.search(r"  corrupt  truncated", listing), listing
    pruned, _ = cli("index", "prune", "--older-than", "30")
    assert pruned.startswith("removed 1 entries"), pruned
    cli("compile", ADD, "--signature", ADD_SIG_64, "--target", "cuda:80", "--out", "{out}/c80")
    cleared, _ = cli("index", "clear")
    assert cleared.startswith("removed 1 entries"), cleared
    listing, _ = cli("index", "list")
    assert listing == f"# {out}/index: 0 entries\n", listing


def _index_errors(cli, out):
    _, err = cli("index", rc=2)
    assert "missing action" in err, err
    _, err = cli("index", "info", rc=2)
    assert "missing the entry ID" in err, err
    _, err = cli("index", "prune", rc=2)
    assert "missing required option --older-than" in err, err
    _, err = cli("index", "prune", "--older-than", "soon", rc=2)
    assert "expects a number of days" in err, err
    _, err = cli("index", "info", "ffffffffff", rc=1)
    assert "no index entry has an id starting with 'ffffffffff'" in err, err


def _pack_flow(cli, out):
    manifest = os.path.join(out, "manifest.txt")
    with open(manifest, "w") as f:
        f.write(f"# two targets, one line\n{ARGS.kernels}/cli_kernels.py:add_kernel {ADD_SIG_64} num_warps=2 "
                f"target=cuda:90,cuda:80\n")
    stdout, _ = cli("pack", manifest, "--out", "{out}/k.tjp", "--quiet")
    import triton
    assert stdout == f"{out}/k.tjp: 2 kernels of 1 functions for cuda:90, cuda:80 (Triton {triton.__version__})\n", \
        stdout
    with open(os.path.join(out, "k.tjp"), "rb") as f:
        assert f.read(8) == b"TJITPACK"
    _, err = cli("pack", manifest, rc=2)
    assert "missing required option --out" in err, err
    _, err = cli("pack", os.path.join(out, "absent.txt"), "--out", "{out}/x.tjp", rc=1)
    assert "cannot read the pack manifest" in err, err
    with open(manifest, "w") as f:
        f.write(f"{ARGS.kernels}/cli_kernels.py:add_kernel {ADD_SIG_64} num_warps=lots\n")
    _, err = cli("pack", manifest, "--out", "{out}/x.tjp", rc=1)
    assert re.search(r"manifest\.txt:1: num_warps must be an integer, not 'lots'", err), err
    assert not os.path.exists(os.path.join(out, "x.tjp"))


def _pack_dtype_flow(cli, out):
    """A manifest line with dtype constexprs, in the form triton-jit specialize prints."""
    signature, _ = cli("specialize", DTYPE, "--args", args(ptr("fp32", 4096), 100, dtype("fp16")))
    signature = signature.strip()
    assert signature == "*fp32:16,i32,triton.language.float16,triton.language.float32", signature
    manifest = os.path.join(out, "manifest.txt")
    with open(manifest, "w") as f:
        f.write(f"{ARGS.kernels}/cli_kernels.py:dtype_kernel {signature} target=cuda:90\n")
        if HAS_TORCH:
            f.write(f"{ARGS.kernels}/cli_kernels.py:dtype_kernel *fp32:16,i32,torch.float16,tl.float32 "
                    f"target=cuda:90\n")
    stdout, _ = cli("pack", manifest, "--out", "{out}/k.tjp", "--quiet")
    kernels = 2 if HAS_TORCH else 1
    assert stdout.startswith(f"{out}/k.tjp: {kernels} kernels of 1 functions for cuda:90 "), stdout


def _pack_module_flow(cli, out):
    """A manifest line naming its function by module; the pack lists it by that name."""
    manifest = os.path.join(out, "manifest.txt")
    with open(manifest, "w") as f:
        f.write(f"{SCALE} {SCALE_SIG} target=cuda:90  # by module\n")
    stdout, _ = cli("pack", manifest, "--out", "{out}/k.tjp", "--quiet")
    assert stdout.startswith(f"{out}/k.tjp: 1 kernels of 1 functions for cuda:90 "), stdout
    with open(manifest, "w") as f:
        f.write(f"module:clipkg.no_such_module:scale_kernel {SCALE_SIG}\n")
    _, err = cli("pack", manifest, "--out", "{out}/x.tjp", rc=1)
    assert re.search(r"manifest\.txt:1: cannot get Triton function 'scale_kernel': importing the module "
                     r"clipkg\.no_such_module failed", err), err


def _compile_defaults_flow(cli, out):
    """compile --signature may leave out trailing parameters with defaults, as specialize's --args
    may: the kernel is the one the full signature gives."""
    full, _ = cli("specialize", DTYPE, "--args", args(ptr("fp32", 4096), 100, dtype("fp16")))
    assert full == "*fp32:16,i32,triton.language.float16,triton.language.float32\n", full
    cli("compile", DTYPE, "--signature", "*fp32:16,i32,tl.float16", "--target", "cuda:90", "--out", "{out}/short")
    cli("compile", DTYPE, "--signature", full.strip(), "--target", "cuda:90", "--out", "{out}/full")
    metas = []
    for d in ("short", "full"):
        with open(os.path.join(out, d, "dtype_kernel.json")) as f:
            metas.append(json.load(f))
        with open(os.path.join(out, d, "dtype_kernel.cubin"), "rb") as f:
            metas[-1]["cubin_bytes"] = f.read()
    assert metas[0]["hash"] == metas[1]["hash"] and metas[0]["cubin_bytes"] == metas[1]["cubin_bytes"]
    # mixed_kernel's ALPHA = 1.5 and MODE = None, left out of both commands.
    a = MIXED_ARGS["basic"][0]
    key, _ = cli("specialize", MIXED, "--args", args(*a))
    assert key.endswith(",'abc',1.5,None\n"), key
    cli("compile", MIXED, "--signature", key.strip()[:-len(",1.5,None")], "--target", "cuda:90", "--out", "{out}/m")
    listing, _ = cli("index", "list")
    assert "[" + key.strip() + "]" in listing, listing  # the index holds it under the full key


def _output_captured_flow(cli, out):
    """What imported or compiled code prints (Python's stdout, fd 2 directly, as native code and
    compilers write) never mixes with the tool's output; -v shows it after the result. Each run
    has an empty index of its own, so that the kernel file is imported (and prints) every time."""
    noisy = f"{ARGS.kernels}/noisy.py:quiet_kernel"

    def run(*argv):
        index = os.path.join(out, f"index-{len(os.listdir(out))}")
        env = dict(os.environ, TRITON_JIT_INDEX_DIR=index)
        env.pop("TRITON_JIT_LOG", None)
        p = subprocess.run([ARGS.cli] + list(argv), capture_output=True, text=True, env=env, timeout=600)
        print(f"$ triton-jit {' '.join(argv)}\nexit status {p.returncode}\n--- stdout\n{p.stdout}--- stderr\n{p.stderr}")
        assert p.returncode == 0
        return p.stdout, p.stderr

    stdout, stderr = run("compile", noisy, "--signature", "*fp32:16,64", "--target", "cuda:90", "--out", f"{out}/c")
    assert stdout == f"{out}/c/quiet_kernel.cubin\n{out}/c/quiet_kernel.json\n" and stderr == "", (stdout, stderr)
    stdout, stderr = run("inspect", noisy)
    assert stdout == "x_ptr\nBLOCK: constexpr\n" and stderr == "", (stdout, stderr)
    stdout, stderr = run("-v", "inspect", noisy)
    assert stdout == "x_ptr\nBLOCK: constexpr\n", stdout
    assert stderr.startswith("\n--- compiler output ---\n"), stderr
    assert "noisy: a line on Python's stdout\n" in stderr and "noisy: a line written to fd 2\n" in stderr, stderr


def _check_tune_table(out, function, num_configs):
    """`tune`'s output: the key line, the header, one row per config, exactly one chosen."""
    rows = out.splitlines()
    assert re.fullmatch(re.escape(function) + r": key \(.*\) on \S.*", rows[0]), rows[0]
    assert re.fullmatch(r"config +median ms +p20 ms +p80 ms  note", rows[1]), rows[1]
    table = rows[2:]
    assert len(table) == num_configs, f"expected {num_configs} rows"
    chosen = [r for r in table if r.endswith("  chosen")]
    assert len(chosen) == 1, "expected one chosen row"
    for r in table:
        m = re.fullmatch(r"(.*\S) +(\d+\.\d{4}) +(\d+\.\d{4}) +(\d+\.\d{4})(  chosen)?", r)
        assert m, f"a row without times: {r!r}"
        assert "num_warps" in m.group(1), r
        assert float(m.group(3)) <= float(m.group(2)) <= float(m.group(4)) and float(m.group(2)) > 0, r
    def median(r):
        return float(r.split()[-4 if r.endswith("  chosen") else -3])
    assert all(median(chosen[0]) <= median(r) for r in table), "the chosen row is not the fastest median"


def _tune_store_flow(cli, out):
    """tune --store keeps the choice in the index: specialize then uses it (no tuning), and a second
    tune --store reports the stored choice instead of timing again."""
    a = args(*SCALE_TUNED_ARGS)
    described = args(ptr("fp16", 4096), ptr("fp16", 8192), 1 << 19, 2.0)
    _, err = cli("specialize", SCALE_TUNED, "--args", described, rc=1)
    assert "has no tuning result for key (524288, True, " in err and "triton-jit tune --store" in err, err
    tuned, _ = cli("tune", SCALE_TUNED, "--args", a, "--grid", "512")  # index off: nothing stored
    _check_tune_table(tuned, "scale_kernel", 2)
    cli("specialize", SCALE_TUNED, "--args", described, rc=1)
    stored, _ = cli("tune", SCALE_TUNED, "--args", a, "--grid", "512", "--store")
    assert stored.splitlines()[-1] == f"stored in the kernel index: {out}/index", stored
    _check_tune_table("\n".join(stored.splitlines()[:-1]), "scale_kernel", 2)
    chosen = next(r for r in stored.splitlines() if r.endswith("  chosen"))
    block = re.search(r"BLOCK: (\d+)", chosen).group(1)
    signature, _ = cli("specialize", SCALE_TUNED, "--args", described)
    assert signature == f"*fp16:16,*fp16:16,i32:16,fp32,True,{block}\n", signature
    again, _ = cli("tune", SCALE_TUNED, "--args", a, "--grid", "512", "--store")
    assert again.splitlines()[0] == stored.splitlines()[0], again
    assert re.fullmatch(r"chosen: \[\d\] BLOCK: " + block + r", .* \(stored in the kernel index by an earlier "
                        r"tuning; nothing was timed: run without --store to time the configs\)", again.splitlines()[1]), again
    assert len(again.splitlines()) == 2, again


SCALE_TUNED_KEY = "(524288, True, 'torch.float16', 'torch.float16')"


def _with_pack(out, *argv):
    """The tool in a process that loads the pack {out}/k.tjp and has an empty kernel index."""
    env = dict(os.environ, TRITON_JIT_INDEX_DIR=os.path.join(out, "empty"), TRITON_JIT_PACKS=os.path.join(out, "k.tjp"))
    p = subprocess.run([ARGS.cli] + list(argv), capture_output=True, text=True, env=env, timeout=600)
    print(f"$ TRITON_JIT_PACKS={out}/k.tjp triton-jit {' '.join(argv)}\nexit status {p.returncode}\n--- stdout\n"
          f"{p.stdout}--- stderr\n{p.stderr}")
    return p


def _pack_autotune_flow(cli, out):
    """A manifest's autotune line names the config for a tuning key: the pack carries it, and a
    process that loads the pack specializes the autotuned call with that config, tuning nothing."""
    manifest = os.path.join(out, "manifest.txt")
    with open(manifest, "w") as f:
        f.write(f"{SCALE_TUNED} autotune key={SCALE_TUNED_KEY} config={{'BLOCK': 1024}}  # as Triton prints the key\n"
                f"{SCALE_TUNED} *fp16:16,*fp16:16,i32:16,fp32,True,1024 num_warps=8 target=cuda:90\n")
    stdout, _ = cli("pack", manifest, "--out", "{out}/k.tjp", "--quiet")
    assert stdout.startswith(f"{out}/k.tjp: 1 kernels of 1 functions for cuda:90 "), stdout
    described = args(ptr("fp16", 4096), ptr("fp16", 8192), 1 << 19, 2.0)
    p = _with_pack(out, "specialize", SCALE_TUNED, "--args", described)
    assert p.returncode == 0 and p.stdout == "*fp16:16,*fp16:16,i32:16,fp32,True,1024\n", p.stderr
    with open(manifest, "w") as f:
        f.write(f"{SCALE_TUNED} autotune key={SCALE_TUNED_KEY} config=7\n")
    _, err = cli("pack", manifest, "--out", "{out}/x.tjp", rc=1)
    assert re.search(r"manifest\.txt:1: scale_kernel: config=7 is not one of its 2 configs", err), err


def _pack_tune_no_gpu(cli, out):
    """An autotune line with args= is tuned at pack time, which needs a GPU: without one the error
    says to name the config in the manifest."""
    manifest = os.path.join(out, "manifest.txt")
    with open(manifest, "w") as f:
        f.write(f"{SCALE_TUNED} autotune args='{args(*SCALE_TUNED_ARGS)}' grid=512\n")
    _, err = cli("pack", manifest, "--out", "{out}/k.tjp", rc=1)
    assert "manifest.txt:1: scale_kernel: tuning at pack time needs a GPU" in err, err
    assert "name the chosen config in the manifest instead" in err and "autotune key=KEY config=CHOICE" in err, err
    assert not os.path.exists(os.path.join(out, "k.tjp"))


def _pack_tune_gpu_flow(cli, out):
    """On a GPU, pack tunes an autotune line with args= and packs the choice and the chosen kernel:
    a process with only the pack specializes (and would launch) with that config."""
    manifest = os.path.join(out, "manifest.txt")
    with open(manifest, "w") as f:
        f.write(f"{SCALE_TUNED} autotune args='{args(*SCALE_TUNED_ARGS)}' grid=512\n")
    stdout, _ = cli("pack", manifest, "--out", "{out}/k.tjp", "--quiet")
    first, last = stdout.splitlines()[0], stdout.splitlines()[-1]
    m = re.fullmatch(r"scale_kernel: key " + re.escape(SCALE_TUNED_KEY) + r" on .+: \[(\d)\] BLOCK: (\d+), .*", first)
    assert m, stdout
    assert last.startswith(f"{out}/k.tjp: 1 kernels of 1 functions for "), stdout
    described = args(ptr("fp16", 4096), ptr("fp16", 8192), 1 << 19, 2.0)
    p = _with_pack(out, "specialize", SCALE_TUNED, "--args", described)
    assert p.returncode == 0 and p.stdout == f"*fp16:16,*fp16:16,i32:16,fp32,True,{m.group(2)}\n", p.stderr


def _triton_key_flow(cli, out):
    """Triton's installation key (triton_key(), hashing libtriton) is stored in the index by the
    first compile and used by later processes while the installation's files are unchanged: a
    stored key with the right fingerprint changes the kernel's hash, a stale one is replaced."""
    import glob
    import json

    def compile_hash(sub):
        shutil.rmtree(os.path.join(out, "index", "v3", "kernels"), ignore_errors=True)  # a compile, not a hit
        cli("compile", ADD, "--signature", ADD_SIG_64, "--target", "cuda:90", "--out", "{out}/" + sub)
        with open(os.path.join(out, sub, "add_kernel.json")) as f:
            return json.load(f)["hash"]

    def stored():
        files = glob.glob(os.path.join(out, "index", "v3", "installations", "*.key"))
        assert len(files) == 1, files
        with open(files[0]) as f:
            return files[0], f.read().split("\n")[:2]

    import triton.runtime.cache as cache
    if not hasattr(cache, "triton_key"):
        import triton.compiler.compiler as cache  # Triton 3.4
    real_key = cache.triton_key()
    first = compile_hash("a")
    path, (fingerprint, key) = stored()
    assert key == real_key and re.fullmatch(r"[0-9a-f]{64}", fingerprint), (fingerprint, key[:80])
    with open(path, "w") as f:
        f.write(f"{fingerprint}\nnot-the-installation-key\n")
    assert compile_hash("b") != first, "a stored key with the installation's fingerprint is used"
    assert stored()[1][1] == "not-the-installation-key"
    with open(path, "w") as f:
        f.write(f"{'0' * 64}\nnot-the-installation-key\n")
    assert compile_hash("c") == first, "a key stored for other files is not used"
    assert stored()[1] == [fingerprint, real_key], "and is replaced by the real one"


FLOWS = {"index_flow": Flow(_index_flow), "index_errors": Flow(_index_errors),
         "index_unusable_flow": Flow(lambda cli, out: index_cases.index_unusable_flow(ARGS.cli, out)),
         "former_names_flow": Flow(lambda cli, out: index_cases.former_names_flow(ARGS.cli, out)),
         "pack_flow": Flow(_pack_flow),
         "pack_dtype_flow": Flow(_pack_dtype_flow), "pack_module_flow": Flow(_pack_module_flow),
         "tune_store_flow": Flow(_tune_store_flow), "pack_autotune_flow": Flow(_pack_autotune_flow),
         "error_pack_tune_no_gpu": Flow(_pack_tune_no_gpu), "pack_tune_gpu_flow": Flow(_pack_tune_gpu_flow),
         "compile_defaults_flow": Flow(_compile_defaults_flow),
         "output_captured_flow": Flow(_output_captured_flow), "triton_key_flow": Flow(_triton_key_flow),
         **{name: Flow(lambda cli, out, steps=steps: steps(cli, out, sys.modules[__name__]))
            for name, steps in pack_cases.FLOWS.items()}}


# The cases of what the runtime notices and what it checks where values come in (validation_cases.py).
import validation_cases  # noqa: E402 - it extends CASES and FLOWS, defined above

validation_cases.register(sys.modules[__name__])


# The cases of `inspect` on decorated functions (inspect_cases.py).
import inspect_cases  # noqa: E402 - it extends CASES, defined above

inspect_cases.register(sys.modules[__name__])


def _check_version(out):
    assert re.fullmatch(r"triton-jit \d+\.\d+\.\d+\n", out), out


def _check_inspect_json(out):
    d = json.loads(out)
    assert d["function"] == "add_kernel", d
    assert [p["name"] for p in d["params"]] == ["x_ptr", "y_ptr", "out_ptr", "n_elements", "BLOCK_SIZE"], d
    block = d["params"][4]
    assert block["is_constexpr"] is True and block["annotation"] == "constexpr" and block["default"] is None, block
    assert d["decorators"] == [], d



# Cases whose checks need torch: the parity and compile of torch's dtype spelling.
NEEDS_TORCH = {"parity_dtype_torch", "parity_dtype_torch_names", "compile_torch_dtype"}

# Cases that run kernels on a GPU, and one that checks the error without one.
NEEDS_GPU = {"tune_gpu", "tune_gpu_reset_to_zero", "tune_store_flow", "pack_tune_gpu_flow"}
NEEDS_NO_GPU = {"error_tune_no_gpu", "error_pack_tune_no_gpu"}

# Cases that compile for hip: Triton 3.5 and newer link the hsaco themselves; 3.4 runs ROCm's
# ld.lld, which a machine without ROCm lacks.
NEEDS_HSACO_LINKER = {"compile_hip", "compile_hip_options", "compile_hip_range_signature", "compile_hip_default_num_stages",
                      "compile_hip_stated_num_stages"}


def _links_hsaco():
    try:
        from triton._C.libtriton import amd
    except ImportError:
        return False
    return hasattr(amd, "link_hsaco")


def _check_compiler_output(err, needle):
    """-v: the error line, the full message, then what the compilers printed (Triton's PTX dump)."""
    first, _, rest = err.partition("\n")
    assert first.startswith("triton-jit: error: "), err
    report, marker, captured = rest.partition("\n--- compiler output ---\n")
    assert marker, f"no compiler output section:\n{err}"
    assert needle in captured, f"{needle!r} not in the compiler output:\n{captured}"


def _check_ptxas_verbose(err):
    """-v after ptxas failed: the full message (ptxas's log, the command), and, from Triton 3.5 on,
    which prints the PTX on stdout when ptxas fails, that PTX among the compilers' output."""
    _check_verbose(err, "Repro command")
    import triton
    if tuple(int(x) for x in triton.__version__.split(".")[:2]) >= (3, 5):
        _check_compiler_output(err, ".target sm_90")


def _check_hip_compiled(out_dir, stdout):
    hsaco = os.path.join(out_dir, "add_kernel.hsaco")
    meta_path = os.path.join(out_dir, "add_kernel.json")
    assert stdout == f"{hsaco}\n{meta_path}\n", stdout
    with open(hsaco, "rb") as f:
        data = f.read()
    # An AMDGPU ELF (e_machine 224) for the gfx942 processor (e_flags' EF_AMDGPU_MACH 0x4c).
    assert data[:4] == b"\x7fELF" and int.from_bytes(data[18:20], "little") == 224, data[:20]
    assert data[48] == 0x4c, hex(data[48])
    with open(meta_path) as f:
        meta = json.load(f)
    assert meta["target"] == {"backend": "hip", "arch": "gfx942", "warp_size": 64}, meta["target"]
    assert meta["metadata"]["target"]["arch"] == "gfx942" and meta["metadata"]["backend_name"] == "hip", meta
    assert meta["cubin"] == "add_kernel.hsaco" and meta["cubin_size"] == len(data), meta["cubin"]


def _check_verbose(err, needle):
    first, _, rest = err.partition("\n")
    assert first.startswith("triton-jit: error: "), err
    assert needle in rest, f"{needle!r} not in the verbose report:\n{err}"


def _check_parity(function, items, out, target=None):
    """The tool's --repr line equals Triton's own binder's specialization for the same call (with
    `target`, "hip:gfx942", the binder of that target's backend)."""
    expected = _triton_binder(function, items, target)
    got = out.splitlines()[1]
    assert got == expected, f"triton-jit: {got}\ntriton:     {expected}"


def _check_stricter(function, items, expected):
    """Where the runtime refuses a call on purpose, Triton's binder keys it (docs/DESIGN.md lists
    these places): the refusal is the runtime's choice, not a gap in its rules."""
    got = _triton_binder(function, items)
    assert got == expected, f"Triton's binder now gives {got}, not {expected}: update docs/DESIGN.md and this test"


def _asking_triton():
    """Guards the grouping: a case whose check asks Triton's binder is marked asks_triton=True, so
    that it runs in TRITON_PARITY, where Triton and torch are imported once for all such cases."""
    assert CASES[CURRENT_CASE].asks_triton, f"{CURRENT_CASE} asks Triton's binder: give its Case asks_triton=True"


def _triton_binder(function, items, target=None):
    """repr of the specialization Triton's own binder computes for `function` of cli_kernels.py
    called with the JSON `items` (in Python form)."""
    _asking_triton()
    import importlib.util

    import triton.language as tl
    from triton.runtime.jit import type_canonicalisation_dict

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    import triton_reference

    spec = importlib.util.spec_from_file_location("cli_kernels_parity", os.path.join(ARGS.kernels, "cli_kernels.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    fn = getattr(module, function)

    def to_python(item):
        if isinstance(item, dict) and "dtype" in item:
            canonical = type_canonicalisation_dict[item["dtype"].removeprefix("tl.")]
            return next(o for o in vars(tl).values() if isinstance(o, tl.dtype)
                        and type_canonicalisation_dict.get(str(o).split(".")[-1]) == canonical)
        if isinstance(item, dict) and "torch_dtype" in item:
            import torch
            return getattr(torch, item["torch_dtype"].removeprefix("torch."))
        if isinstance(item, dict):
            addr = item["addr"]
            return triton_reference.make_pointer(int(addr, 0) if isinstance(addr, str) else addr, item["ptr"].lstrip("*"),
                                                 item.get("storage_bytes"))
        return item

    gpu_target = triton_reference.hip_target(target) if target else ("cuda", 90, 32)
    return triton_reference.triton_specialization(fn, [([to_python(i) for i in items], {})], gpu_target)[0]


def _check_decorated_parity(function, items, out):
    """The tool's --repr line equals what Triton's own wrappers (Heuristics.run) hand its binder."""
    _asking_triton()
    import importlib.util

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    import triton_reference

    spec = importlib.util.spec_from_file_location("decorated_parity", DECORATED)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    py_args = [triton_reference.make_pointer(i["addr"], i["ptr"]) if isinstance(i, dict) else i for i in items]
    expected = triton_reference.decorated_call(getattr(module, function), py_args)[0]
    got = out.splitlines()[1]
    assert got == expected, f"triton-jit: {got}\ntriton:     {expected}"


# The one test of the cases whose check asks Triton's binder (Case.asks_triton).
TRITON_PARITY = "triton_parity"
CURRENT_CASE = None


def run(name):
    global CURRENT_CASE
    CURRENT_CASE = name
    out_dir = os.path.join(ARGS.work, name)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    if name in FLOWS:
        try:
            FLOWS[name].steps(_cli(out_dir), out_dir)
        except AssertionError as e:
            print(f"FAIL {name}: {e}")
            return 1
        print(f"ok {name}")
        return 0
    case = CASES[name]
    argv = [a.replace("{k}", ARGS.kernels).replace("{out}", out_dir) for a in case.argv]
    env = dict(os.environ, **case.env) if case.env else None
    p = subprocess.run([ARGS.cli] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600,
                       env=env)
    report = f"$ triton-jit {' '.join(argv)}\nexit status {p.returncode}\n--- stdout\n{p.stdout}--- stderr\n{p.stderr}"
    try:
        assert p.returncode == case.rc, f"expected exit status {case.rc}"
        if case.rc != 0:
            assert p.stdout == "", "a failing command prints nothing on stdout"
            if case.one_line:
                assert p.stderr.endswith("\n") and p.stderr.count("\n") == 1, "the error is exactly one line"
                assert p.stderr.startswith("triton-jit: error: "), "the error starts with 'triton-jit: error: '"
            if case.stderr is not None:
                line = p.stderr.splitlines()[0][len("triton-jit: error: "):]
                assert re.fullmatch(case.stderr, line), f"the error does not match {case.stderr!r}"
        else:
            assert p.stderr == "", "a successful command prints nothing on stderr"
        if case.stdout is not None:
            assert p.stdout == case.stdout, f"expected stdout:\n{case.stdout}"
        for needle in case.stdout_contains:
            assert needle in p.stdout, f"stdout lacks {needle!r}"
        if case.check is not None:
            case.check(out_dir, p.stdout, p.stderr)
    except AssertionError as e:
        print(f"FAIL {name}: {e}\n{report}")
        return 1
    print(f"ok {name}\n{report}")
    return 0


def _run_under_tested_python():
    """Re-runs this script under TRITON_JIT_PYTHON when that names another python than the one
    running it: the checks that ask Triton (its version, its binder) must ask the Triton the tool
    compiles with (scripts/test-triton-versions.sh sets it per version; CTest runs the build's)."""
    exe = os.environ.get("TRITON_JIT_PYTHON", "")
    if exe and os.path.abspath(exe) != os.path.abspath(sys.executable) and not os.environ.get("CLI_CASES_REEXEC"):
        os.environ["CLI_CASES_REEXEC"] = "1"
        sys.stdout.flush()
        os.execv(exe, [exe, os.path.abspath(__file__)] + sys.argv[1:])


def _relocate_caches():
    """TRITON_JIT_TEST_CACHE_ROOT moves the caches (and the work folder) below it, as
    tests/support/test_env.cpp does for the test executables."""
    root = os.environ.get("TRITON_JIT_TEST_CACHE_ROOT", "")
    if not root:
        return
    for name in ("TRITON_CACHE_DIR", "TRITON_JIT_INDEX_DIR"):
        if os.environ.get(name):
            os.environ[name] = os.path.join(root, os.path.basename(os.environ[name].rstrip("/")))
    ARGS.work = os.path.join(root, "cli-work")


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--cli")
    parser.add_argument("--kernels")
    parser.add_argument("--work")
    parser.add_argument("cases", nargs="*")
    ARGS = parser.parse_args()
    asking = [n for n, c in CASES.items() if c.asks_triton]
    if ARGS.list:
        print(";".join([n for n in CASES if n not in asking] + list(FLOWS) + [TRITON_PARITY]), end="")
        return 0
    _run_under_tested_python()
    _relocate_caches()
    # clipkg, the package of the module:MODULE:FUNCTION cases, is imported the normal way.
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (ARGS.kernels, os.environ.get("PYTHONPATH")) if p)
    names = ARGS.cases or list(CASES) + list(FLOWS)
    if TRITON_PARITY in names:
        names = [n for n in names if n != TRITON_PARITY] + asking
    unknown = [n for n in names if n not in CASES and n not in FLOWS]
    if unknown:
        print(f"unknown case(s) {', '.join(unknown)}: `{sys.argv[0]} --list` lists them")
        return 2
    # Cases that check torch's dtypes against Triton's binder or compile them need torch in the
    # tested python (the Triton-version virtualenvs have none); `tune` cases need a GPU, or its
    # absence. Skipped visibly; a run of skipped cases only exits with ctest's skip status.
    skipped = {}
    if not HAS_TORCH:
        skipped.update((n, f"needs torch, which {sys.executable} cannot import") for n in names if n in NEEDS_TORCH)
    if any(n in NEEDS_GPU or n in NEEDS_NO_GPU for n in names):
        gpu = _has_gpu()
        skipped.update((n, "needs a GPU; none is present") for n in names if n in NEEDS_GPU and not gpu)
        skipped.update((n, "checks the error of a machine without a GPU; this one has one") for n in names
                       if n in NEEDS_NO_GPU and gpu)
    if any(n in NEEDS_HSACO_LINKER for n in names) and not _links_hsaco():
        import triton
        skipped.update((n, f"Triton {triton.__version__} links hsaco files with ROCm's ld.lld (Triton 3.5 and "
                           f"newer link them themselves)") for n in names if n in NEEDS_HSACO_LINKER)
    for n, why in skipped.items():
        print(f"SKIPPED: {n} {why}")
    names = [n for n in names if n not in skipped]
    if not names:
        return SKIP_RETURN_CODE
    return 1 if sum(run(n) for n in names) else 0


if __name__ == "__main__":
    sys.exit(main())

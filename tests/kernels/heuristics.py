# Kernels wrapped in @triton.heuristics, written in the styles of real libraries (fla-core,
# FlagGems, Triton's tutorials). tests/cpu/heuristic_program_test.cpp translates every heuristic
# here and compares the programs with Python's own evaluation of the lambdas.
import torch
import triton
import triton.language as tl
from triton import next_power_of_2

MAX_BLOCK = 1024  # a module-level constant, read once at translation time
SCALE = 0.5
MODE = "fast"
HALF = torch.float16


def _not_translatable(args):
    # FlagGems style: an ordinary function with a loop.
    block = 1
    while block < args["n"] and block < 4096:
        block *= 2
    return block


def _def_heuristic(args):
    """A def returning one expression is translated like a lambda."""
    return args["n"] // 2 if args["BLOCK"] > 0 else -args["n"] % 7


@triton.heuristics({
    "USE_OFFSETS": lambda args: args["cu_seqlens"] is not None,  # fla-core: nearly every kernel
    "EVEN_N": lambda args: args["n"] % args["BLOCK"] == 0,
    "BLOCK_P2": lambda args: triton.next_power_of_2(args["n"]),
    "BLOCK_C": lambda args: min(max(next_power_of_2(args["n"]), 16), MAX_BLOCK),
    "NUM_BLOCKS": lambda args: triton.cdiv(args["n"], args["BLOCK"]),
})
@triton.jit
def chunk_kernel(x_ptr, cu_seqlens, n, BLOCK: tl.constexpr, USE_OFFSETS: tl.constexpr, EVEN_N: tl.constexpr,
                 BLOCK_P2: tl.constexpr, BLOCK_C: tl.constexpr, NUM_BLOCKS: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if EVEN_N:
        x = tl.load(x_ptr + offs)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x + 1, mask=offs < n)


@triton.heuristics({
    "IS_FP16": lambda args: args["x"].dtype == torch.float16,
    "IS_HALF": lambda args: args["x"].dtype == HALF or args["x"].dtype is None,
    "TL_EQ": lambda args: args["x"].dtype == tl.float16,  # torch dtype vs tl dtype: never equal
    "ELEM2": lambda args: args["x"].element_size() == 2,
    "BYTES": lambda args: args["x"].element_size() * args["n"],
    "OUT_DTYPE": lambda args: tl.float32 if args["x"].element_size() >= 4 else tl.float16,
})
@triton.jit
def dtype_kernel(x, n, IS_FP16: tl.constexpr, IS_HALF: tl.constexpr, TL_EQ: tl.constexpr, ELEM2: tl.constexpr,
                 BYTES: tl.constexpr, OUT_DTYPE: tl.constexpr):
    pass


@triton.heuristics({
    "PICK": lambda args: args["a"] if args["flag"] else args["b"],
    "AND": lambda args: args["a"] and args["b"],
    "OR": lambda args: args["a"] or args["b"] or MODE,
    "NOT": lambda args: not args["a"],
    "FLOORS": lambda args: args["a"] // args["b"] + args["a"] // -3,
    "MODS": lambda args: args["a"] % args["b"],
    "ARITH": lambda args: (args["a"] * 3 - args["b"]) ** 2 + (-args["a"]) + (+args["b"]) - (~args["a"]),
    "DIV": lambda args: args["a"] / args["b"],
    "POW": lambda args: args["a"] ** min(args["b"], 3),  # bounded: Python would compute 2**(2**63)
    "SHIFT": lambda args: (args["a"] << 3) | (args["b"] >> 2) ^ (args["a"] & 0xFF),
    "CHAIN": lambda args: 0 <= args["a"] < args["b"] <= 1024,
    "CONV": lambda args: int(args["a"] * SCALE) + float(args["b"] != 0) + bool(args["flag"]),
    "ABS": lambda args: abs(args["a"]) >= abs(args["b"]),
    "MINMAX": lambda args: max(args["a"], args["b"], 1) - min(args["a"], args["b"]),
    "BOOLS": lambda args: args["flag"] + True,
    "IS": lambda args: args["flag"] is True or args["flag"] is not False and args["b"] is not None,
    "STR": lambda args: "even" if args["a"] % 2 == 0 else MODE,
    "MIXED": lambda args: args["a"] == args["b"] or args["a"] != None,  # noqa: E711
    "DEF": _def_heuristic,
    "LOOP": _not_translatable,
})
@triton.jit
def scalar_kernel(a, b, flag, n, BLOCK, PICK: tl.constexpr, AND: tl.constexpr, OR: tl.constexpr,
                  NOT: tl.constexpr, FLOORS: tl.constexpr, MODS: tl.constexpr, ARITH: tl.constexpr,
                  DIV: tl.constexpr, POW: tl.constexpr, SHIFT: tl.constexpr, CHAIN: tl.constexpr,
                  CONV: tl.constexpr, ABS: tl.constexpr, MINMAX: tl.constexpr, BOOLS: tl.constexpr,
                  IS: tl.constexpr, STR: tl.constexpr, MIXED: tl.constexpr, DEF: tl.constexpr, LOOP: tl.constexpr):
    pass

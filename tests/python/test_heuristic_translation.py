"""The bridge's heuristic translator (src/bridge/python/triton_jit_bridge/heuristic_translation.py),
imported from the source tree, without the C++ runtime: heuristics written as Liger, FLA and
FlagGems write them become programs that give what the heuristic gives (run here by a small
reference evaluator of the text format in src/decorators/heuristic_program.h), and the others are
refused with a reason."""
import os
import re
import sys

import pytest
import triton
import triton.language as tl

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "src", "bridge", "python"))

from triton_jit_bridge.heuristic_translation import translate_heuristic  # noqa: E402

PARAMS = ["x_ptr", "offsets", "N", "M", "BLOCK_N", "eps"]
MAX_BLOCK = 4096  # a module constant, as kernels' files have them


class Pointer:
    """A tensor argument as a heuristic sees it: its dtype and element size."""

    def __init__(self, dtype):
        self.dtype = dtype

    def element_size(self):
        return self.dtype.primitive_bitwidth // 8


def block_n(args):
    """A heuristic written as a def (FlagGems' heur_block_n)."""
    return min(triton.next_power_of_2(args["N"]), MAX_BLOCK)


def block_n_with_a_helper(args):
    return _rounded(args["N"])


def _rounded(n):
    return triton.next_power_of_2(n)


def num_warps(args):
    if args["N"] <= 1024:
        return 4
    return 8


TRANSLATED = [
    lambda args: triton.next_power_of_2(args["N"]),  # Liger's BLOCK_SIZE
    lambda args: args["offsets"] is not None,  # FLA's USE_OFFSETS / IS_VARLEN
    lambda args: args["N"] % args["BLOCK_N"] == 0,  # FlagGems' EVEN_N
    lambda args: args["x_ptr"].dtype,
    lambda args: args["x_ptr"].dtype == tl.float16,
    lambda args: args["x_ptr"].element_size() * 8,
    lambda args: triton.cdiv(args["N"], args["BLOCK_N"]),
    lambda args: 1024 if args["N"] > 1024 else triton.next_power_of_2(args["N"]),
    lambda args: args["N"] > 64 and args["M"] > 1 or args["eps"] < 1e-3,
    lambda args: 0 < args["M"] <= args["N"],
    lambda args: max(args["M"], min(args["N"], MAX_BLOCK), 16),
    lambda args: args.get("M", 1) * args["eps"] / 2,
    lambda args: -args["N"] // 3 + (args["M"] ** 2) - (args["N"] >> 1 | 1),
    lambda args: "wide" if args["N"] >= 2048 else None,
    block_n,
]
ARGUMENTS = [
    {"x_ptr": Pointer(tl.float16), "offsets": None, "N": 1000, "M": 3, "BLOCK_N": 128, "eps": 1e-5},
    {"x_ptr": Pointer(tl.float32), "offsets": Pointer(tl.int32), "N": 4096, "M": 0, "BLOCK_N": 256, "eps": 0.5},
    {"x_ptr": Pointer(tl.bfloat16), "offsets": None, "N": 1, "M": 70, "BLOCK_N": 1, "eps": 2.0},
    {"x_ptr": Pointer(tl.int8), "offsets": None, "N": 100000, "M": 2, "BLOCK_N": 1024, "eps": 1e-3},
]

# The runtime's dtype names (dtype_name in src/key/dtype.cpp) of the triton.language dtypes above.
TL_DTYPES = {"fp16": tl.float16, "fp32": tl.float32, "bf16": tl.bfloat16, "i8": tl.int8, "i32": tl.int32}
UNARY = {
    "neg": lambda x: -x, "pos": lambda x: +x, "invert": lambda x: ~x, "not": lambda x: not x,
    "isnone": lambda x: x is None, "istrue": lambda x: x is True, "isfalse": lambda x: x is False,
    "abs": abs, "int": int, "float": float, "bool": bool, "next_power_of_2": triton.next_power_of_2,
    "dtype_of": lambda x: x.dtype, "element_size": lambda x: x.element_size(),
}
BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
    "pow": lambda a, b: a**b, "lshift": lambda a, b: a << b, "rshift": lambda a, b: a >> b,
    "bitand": lambda a, b: a & b, "bitor": lambda a, b: a | b, "bitxor": lambda a, b: a ^ b,
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "cdiv": lambda a, b: (a + b - 1) // b,
}


def run_program(text, values):
    """Evaluates a heuristic program over the arguments (one per parameter), as the C++ side does."""
    lines = text.splitlines()
    assert re.fullmatch(r"heuristic-program \d+", lines[0]), lines[0]
    code = [line.split(" ") for line in lines[1:]]
    stack, pc = [], 0
    while pc < len(code):
        op, *operands = code[pc]
        pc += 1
        target = int(operands[0]) if operands and op.startswith(("jump", "pop_jump")) else None
        if op == "param":
            stack.append(values[int(operands[0])])
        elif op == "int":
            stack.append(int(operands[0]))
        elif op == "float":
            stack.append(float.fromhex(operands[0]))
        elif op == "bool":
            stack.append(operands[0] == "1")
        elif op == "none":
            stack.append(None)
        elif op == "str":
            stack.append(bytes.fromhex(operands[0]).decode() if operands else "")
        elif op == "dtype":
            assert operands[1] == "tl", operands
            stack.append(TL_DTYPES[operands[0]])
        elif op in UNARY:
            stack.append(UNARY[op](stack.pop()))
        elif op in BINARY:
            b = stack.pop()
            stack.append(BINARY[op](stack.pop(), b))
        elif op in ("min", "max"):
            n = int(operands[0])
            taken = stack[-n:]
            del stack[-n:]
            stack.append((min if op == "min" else max)(*taken))
        elif op == "jump":
            pc = target
        elif op in ("jump_if_true_or_pop", "jump_if_false_or_pop"):
            if bool(stack[-1]) == (op == "jump_if_true_or_pop"):
                pc = target  # the value stays: it is the result of `or` / `and`
            else:
                stack.pop()
        elif op == "pop_jump_if_false":
            if not stack.pop():
                pc = target
        else:
            raise AssertionError(f"unknown instruction {code[pc - 1]}")
    assert len(stack) == 1, stack
    return stack[0]


@pytest.mark.parametrize("heuristic", TRANSLATED, ids=lambda f: f"line{f.__code__.co_firstlineno}")
def test_translated_program_gives_what_the_heuristic_gives(heuristic):
    text, why = translate_heuristic(heuristic, PARAMS)
    assert why == "" and text is not None, why
    for args in ARGUMENTS:
        got = run_program(text, [args[name] for name in PARAMS])
        want = heuristic(args)
        assert got == want and type(got) is type(want), (text, args, got, want)


@pytest.mark.parametrize("heuristic, reason", [
    (num_warps, "not a single `return <expression>`"),
    (block_n_with_a_helper, "_rounded"),
    (lambda args: print(args), "call of print"),
    (lambda args, extra: 1, "exactly one argument"),
    (len, "not a Python function"),
])
def test_other_heuristics_are_refused_with_a_reason(heuristic, reason):
    text, why = translate_heuristic(heuristic, PARAMS)
    assert text is None and reason in why, why


def test_programs_carry_the_version_the_runtime_reads():
    """The version is defined once, in C++ (HeuristicProgram::kVersion): the translator writes it."""
    with open(os.path.join(ROOT, "src", "decorators", "heuristic_program.h"), encoding="utf-8") as f:
        version = re.search(r"static constexpr int kVersion = (\d+);", f.read()).group(1)
    text, why = translate_heuristic(TRANSLATED[0], PARAMS)
    assert text is not None, why
    assert text.splitlines()[0] == f"heuristic-program {version}"

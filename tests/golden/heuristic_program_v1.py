# The @triton.heuristics value behind tests/golden/heuristic_program_v1.txt (tests/cpu/golden_test.cpp
# translates it with the bridge and compares the text). Parameters, in order: a, n, flag, mode, dt.
# It touches every kind of instruction: parameters, each constant kind, unary and binary operators,
# min/max, the builtins, triton.cdiv / next_power_of_2 and the four jumps.
import triton
import triton.language as tl

GOLDEN = lambda args: (  # noqa: E731
    max(16, triton.next_power_of_2(args["n"]), 2)
    if args["flag"] and args["a"] is not None
    else triton.cdiv(args["n"], 2**3) % 7 + int(1.5 * args["a"]) - abs(-2) + (args["mode"] == "fast")
    + (args["dt"] == tl.float16) + (not args["flag"] or args["n"] < 0) + (args["n"] >> 1) * -args["a"]
    + float(args["n"] is None) * 0.25
)

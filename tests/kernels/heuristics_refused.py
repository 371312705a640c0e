# Heuristics the translator refuses, each with the words its reason must contain
# (tests/cpu/heuristic_program_test.cpp). Parameters: PARAMS.
import triton
import triton.language as tl

PARAMS = ["a", "b", "x"]
SIZES = [16, 32]
TL_CONST = tl.constexpr(128)
MODE = "fast"


def min(*values):  # noqa: A001 - shadows the builtin on purpose
    return 0


def _loop(args):
    total = 0
    for v in SIZES:
        total += v
    return total


def _two(args, extra=1):
    return args["a"]


REFUSED = {
    "loop": (_loop, "not a single `return"),
    "call": (lambda args: len(SIZES), "call of len"),
    "shadowed": (lambda args: min(args["a"], 1), "call of min (function)"),
    "missing": (lambda args: args["zzz"] > 1, "'zzz' is not a parameter"),
    "bare_args": (lambda args: args, "'args' is used other than"),
    "list_global": (lambda args: SIZES, "'SIZES' is a list"),
    "constexpr_global": (lambda args: args["a"] * TL_CONST, "'TL_CONST' is a constexpr"),
    "attribute": (lambda args: args["x"].shape, "attribute '.shape'"),
    "str_method": (lambda args: MODE.upper(), "attribute '.upper' of a str"),
    "comprehension": (lambda args: [v for v in SIZES], "unsupported construct ListComp"),
    "is_int": (lambda args: args["a"] is SIZES, "'is' with something other"),
    "in": (lambda args: args["a"] in SIZES, "unsupported comparison In"),
    "keywords": (lambda args: max(args["a"], args["b"], key=abs), "keyword"),
    "two_params": (_two, "exactly one argument"),
    "matmul": (lambda args: args["a"] @ args["b"], "unsupported operator MatMult"),
    "huge": (lambda args: 1180591620717411303424, "outside the 64-bit range"),
    "undefined": (lambda args: UNDEFINED_NAME, "'UNDEFINED_NAME' is not defined"),  # noqa: F821
    "min_iterable": (lambda args: max(SIZES), "(an iterable)"),
    "module_result": (lambda args: triton, "is a module"),
}

# Two lambdas on one line: each translates to its own program.
PAIR = (lambda args: args["a"], lambda args: args["b"])

# call_heuristic: results that cannot be constexprs.
LIST_RESULT = lambda args: [args["a"]]  # noqa: E731

"""CLI cases of `triton-jit inspect` on decorated functions: their wrappers first, outermost
first, as they stand above the def, in text and JSON. cli_cases.py calls register() with itself."""

import json
import re

m = None  # the cli_cases module (set by register)


def _check_inspect_decorated(out, patterns, prefix=False):
    """Each line of `out` matches its pattern in order (only the first len(patterns) lines with
    prefix=True); the config lines are matched loosely, as str(Config) differs between Tritons."""
    got = out.split("\n")
    assert got[-1] == "", out
    got = got[:-1]
    if prefix:
        got = got[:len(patterns)]
    assert len(got) == len(patterns), f"expected {len(patterns)} lines, got:\n{out}"
    for line, pattern in zip(got, patterns):
        assert re.fullmatch(pattern, line), f"line {line!r} does not match {pattern!r} in:\n{out}"


def _check_inspect_decorated_json(out):
    d = json.loads(out)
    heuristics, autotune = d["decorators"]
    assert heuristics["kind"] == "heuristics", d
    assert [v["name"] for v in heuristics["values"]] == ["IS_FP16"] and heuristics["values"][0]["translated"], d
    assert autotune["kind"] == "autotune" and autotune["key"] == ["n", "IS_FP16"], d
    assert len(autotune["configs"]) == 2 and autotune["configs"][0].startswith("BLOCK: 256"), d
    assert autotune["reset_to_zero"] == [] and autotune["restore_value"] == [], d


def register(cli_cases):
    """Adds these cases to cli_cases's CASES."""
    global m
    m = cli_cases
    Case, lines = m.Case, m.lines
    ROW_SUM, SCALE_TUNED, DECORATED, ATOMIC_SUM = m.ROW_SUM, m.SCALE_TUNED, m.DECORATED, m.ATOMIC_SUM
    m.CASES.update({
        # Decorated functions: their wrappers first, outermost first, as they stand above the def.
        "inspect_heuristics": Case(["inspect", ROW_SUM], stdout=lines(
            "@triton.heuristics: HAS_BIAS, BLOCK_N, EVEN_N",
            "x_ptr", "bias", "out_ptr", "M", "N", "stride",
            "HAS_BIAS: constexpr", "BLOCK_N: constexpr", "EVEN_N: constexpr")),
        "inspect_heuristics_outside_autotune": Case(["inspect", SCALE_TUNED], check=lambda o, out, err: _check_inspect_decorated(
            out, [r"@triton\.heuristics: IS_FP16",
                  r"@triton\.autotune: key=\[n, IS_FP16\], 2 configs",
                  r"    BLOCK: 256, num_warps: 4, .*",
                  r"    BLOCK: 1024, num_warps: 8, .*",
                  "x_ptr", "y_ptr", "n", "alpha", "IS_FP16: constexpr", "BLOCK: constexpr"])),
        "inspect_autotune_outside_heuristics": Case(["inspect", DECORATED + ":matmul_kernel"],
                                                    check=lambda o, out, err: _check_inspect_decorated(
            out, [r"@triton\.autotune: key=\[M, N, K\], 3 configs",
                  r"    BLOCK_M: 64, BLOCK_N: 64, BLOCK_K: 32, num_warps: 4, .*",
                  r"    BLOCK_M: 128, BLOCK_N: 64, BLOCK_K: 32, num_warps: 4, .*",
                  r"    BLOCK_M: 64, BLOCK_N: 128, BLOCK_K: 64, num_warps: 8, .*",
                  # _num_stages has a loop: not translated, it runs through Python.
                  r"@triton\.heuristics: EVEN_K, SPLIT \(through Python\)",
                  "a_ptr"], prefix=True)),
        "inspect_autotune_reset_to_zero": Case(["inspect", ATOMIC_SUM], check=lambda o, out, err: _check_inspect_decorated(
            out, [r"@triton\.autotune: key=\[n\], reset_to_zero=\[out_ptr\], 2 configs", r"    BLOCK: 128, .*",
                  r"    BLOCK: 512, .*", "x_ptr", "out_ptr", "n", "BLOCK: constexpr"])),
        # .fn goes one wrapper in: under the heuristics of scale_kernel is its autotuner, and under
        # that the @triton.jit function, which has no wrappers left.
        "inspect_decorated_fn": Case(["inspect", SCALE_TUNED + ".fn"], check=lambda o, out, err: _check_inspect_decorated(
            out, [r"@triton\.autotune: key=\[n, IS_FP16\], 2 configs", r"    BLOCK: 256, .*", r"    BLOCK: 1024, .*",
                  "x_ptr"], prefix=True)),
        "inspect_decorated_fn_fn": Case(["inspect", SCALE_TUNED + ".fn.fn"], stdout=lines(
            "x_ptr", "y_ptr", "n", "alpha", "IS_FP16: constexpr", "BLOCK: constexpr")),
        "inspect_decorated_json": Case(["inspect", "--json", SCALE_TUNED],
                                       check=lambda o, out, err: _check_inspect_decorated_json(out)),
    })

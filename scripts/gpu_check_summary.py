#!/usr/bin/env python3
"""The reports of scripts/gpu-check.sh: the interpreter's versions and OUT_DIR/summary.md.

  gpu_check_summary.py versions
      Prints this interpreter's version and path, then the versions of triton, torch and pybind11
      (or why one does not import): run it with the python the build embeds.

  gpu_check_summary.py write --out OUT_DIR --build-dir BUILD_DIR [--date ...] [...]
      Writes OUT_DIR/summary.md (--summary overrides) from what gpu-check.sh collected: the
      environment and phase results given as options, the tests from OUT_DIR/ctest.log and
      BUILD_DIR/ctest-junit.xml (what the GPU tests printed, why tests skipped), the build errors
      from OUT_DIR/build.log when the build failed, and the benchmark tables of OUT_DIR/*.md (else
      the table rows in OUT_DIR/bench.log).

Standard library only: it runs with whatever python gpu-check.sh found.
"""
from __future__ import annotations

import argparse
import contextlib
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET


def print_versions() -> None:
    print("python", sys.version.split()[0], sys.executable)
    for name in ("triton", "torch", "pybind11"):
        try:
            module = __import__(name)
            print(name, getattr(module, "__version__", "?"))
        except Exception as e:  # noqa: BLE001
            print(name, "not importable:", type(e).__name__, e)


def print_summary(a: argparse.Namespace) -> None:
    out, build = a.out, a.build_dir
    ctest_log = open(os.path.join(out, "ctest.log"), errors="replace").read()

    # One line per finished test: "12/40 Test #7: name ....   Passed    1.23 sec"
    results = {}
    for line in ctest_log.splitlines():
        # Names may hold spaces ("... # GetParam() = ..."); the dots pad up to the status.
        # The status starts a word: "AnExceptionIs..." in a name is not ctest's "***Exception".
        m = re.match(r"^\s*\d+/\d+ Test\s+#\d+: (.*?)\s*\.*\s*\**(?<![A-Za-z])(Passed|Failed|Skipped|Not Run|Timeout|Disabled|"
                     r"Exception.*?|[A-Z][A-Za-z ]*?)\s+[\d.]+ sec\s*$", line)
        if m:
            results[m.group(1)] = m.group(2).strip()
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    failed, skipped = [], []
    for name, status in results.items():
        if status == "Passed":
            counts["passed"] += 1
        elif status in ("Skipped", "Not Run"):
            counts["skipped"] += 1
            skipped.append(name)
        else:
            counts["failed"] += 1
            failed.append(f"{name} ({status})")
    total_line = re.search(r"^\d+% tests passed, \d+ tests? failed out of \d+.*$", ctest_log, re.M)

    # Lines the GPU tests print about what they saw (shared memory, scratch sizes, expected errors),
    # and skip reasons, from the JUnit file's captured output.
    notes, skip_reasons = [], {}
    junit = os.path.join(build, "ctest-junit.xml")
    if os.path.exists(junit):
        try:
            for case in ET.parse(junit).getroot().iter("testcase"):
                name = case.get("name", "")
                text = "".join((n.text or "") for n in case.iter("system-out"))
                for line in text.splitlines():
                    s = line.strip()
                    if re.match(r"^(matmul |scale_shift_2d_kernel|graph of |LaunchConfigError as expected|"
                                r"ArchitectureMismatchError as expected)", s):
                        notes.append(f"{name}: {s}")
                    if name in skipped and s and not s.startswith("[") and "Skipped" not in s and name not in skip_reasons:
                        if "no CUDA GPU" in s or "need" in s or "allows" in s:
                            skip_reasons[name] = s
        except ET.ParseError as exc:
            notes.append(f"(could not parse {junit}: {exc})")

    print("# libtriton_jit GPU check\n")
    print(f"- date: {a.date}")
    print(f"- device: {a.gpu_list.strip()}")
    print(f"- name, driver, compute capability, memory: {a.gpu_info.strip()}; CUDA (driver) {a.cuda_driver}")
    for line in (a.python_versions + "\n" + a.tool_versions).splitlines():
        if line.strip():
            print(f"- {line.strip()}")
    print(f"- command-line tool: {a.tools}; benchmarks: {a.bench_note}")
    print(f"- configure: {a.configure}, build: {a.build}, ctest: {a.ctest}, "
          f"elapsed {a.elapsed} s\n")

    if a.build == "failed":
        lines = [l.rstrip() for l in open(os.path.join(out, "build.log"), errors="replace")]
        errs = [l for l in lines if l.startswith("FAILED:") or ": error:" in l or "CMake Error" in l]
        print("## Build errors (build kept going; what built was tested)\n")
        print("```")
        print("\n".join(errs[:20]) or "(see build.log)")
        print("```\n")

    print("## Tests\n")
    print(f"**{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped** "
          f"({len(results)} finished)" + (f" — ctest: `{total_line.group(0)}`" if total_line else ""))
    gpu = {k: v for k, v in results.items() if k.startswith("gpu.")}
    if gpu:
        gp = sum(v == "Passed" for v in gpu.values())
        gs = sum(v in ("Skipped", "Not Run") for v in gpu.values())
        print(f"\nGPU tests (gpu.*): {gp} passed, {len(gpu) - gp - gs} failed, {gs} skipped")
    if failed:
        print("\nFailed:\n")
        for f in failed:
            print(f"- {f}")
    if skipped:
        print("\nSkipped:\n")
        by_reason = {}
        for s in skipped:
            by_reason.setdefault(skip_reasons.get(s, "(reason not captured)"), []).append(s)
        for reason, names in by_reason.items():
            print(f"- {len(names)} test(s), {reason}: {', '.join(names)}")
    if notes:
        print("\nWhat the GPU tests saw:\n")
        for n in notes:
            print(f"- {n}")

    print("\n## compute-sanitizer\n")
    print(f"{a.sanitizer}\n")
    # The first findings of each tool, as compute-sanitizer words them ("Invalid __global__ read ...").
    for log in sorted(glob.glob(os.path.join(out, "sanitizer-*.log"))):
        findings = [l.rstrip() for l in open(log, errors="replace") if l.startswith("========= ") and
                    re.search(r"(Invalid|Race|Barrier|Uninitialized|Leaked|error)", l, re.I) and "ERROR SUMMARY" not in l]
        if findings:
            print(f"{os.path.basename(log)}:\n\n```")
            print("\n".join(findings[:10]))
            print("```\n")

    print("\n## Benchmark\n")
    print(f"{a.bench}\n")
    summary_name = os.path.basename(a.summary)
    tables = [p for p in sorted(glob.glob(os.path.join(out, "*.md"))) if os.path.basename(p) != summary_name]
    # The launch tables first, plain kernels, decorated ones (bench/run-decorated-bench.sh), then
    # FlagGems' LibEntry (bench/run-libentry-bench.sh), as the benchmarks ran; the rest in name order.
    first = ["launch_bench.md", "decorated_bench.md", "libentry_bench.md"]
    tables.sort(key=lambda p: first.index(os.path.basename(p)) if os.path.basename(p) in first else len(first))
    shown = False
    for p in tables:
        print(f"From {os.path.basename(p)}:\n")
        print(open(p, errors="replace").read().strip() + "\n")
        shown = True
    if not shown:
        bench_log = os.path.join(out, "bench.log")
        rows = [l.rstrip() for l in open(bench_log, errors="replace")] if os.path.exists(bench_log) else []
        rows = [l for l in rows if l.lstrip().startswith("|")]
        if rows:
            print("\n".join(rows))
        else:
            print("(no benchmark table produced)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("versions", help="print the interpreter's and its packages' versions")
    w = commands.add_parser("write", help="write OUT_DIR/summary.md")
    w.add_argument("--out", required=True, help="gpu-check's OUT_DIR (ctest.log, build.log, bench.log, *.md)")
    w.add_argument("--build-dir", required=True, help="the build folder (ctest-junit.xml)")
    w.add_argument("--summary", help="the file written (default: OUT_DIR/summary.md)")
    w.add_argument("--date", default="?")
    w.add_argument("--gpu-list", default="", help="nvidia-smi -L")
    w.add_argument("--gpu-info", default="", help="name, driver, compute capability, memory")
    w.add_argument("--cuda-driver", default="?", help="the driver's CUDA version")
    w.add_argument("--python-versions", default="", help="the output of `versions`")
    w.add_argument("--tool-versions", default="", help="cmake, ninja, c++, nvcc, git: one per line")
    w.add_argument("--tools", default="?", help="whether the command-line tool was built, and why")
    w.add_argument("--bench-note", default="?", help="whether the benchmarks were configured")
    w.add_argument("--configure", default="?", help="configure result")
    w.add_argument("--build", default="?", help="build result: ok, failed or skipped")
    w.add_argument("--ctest", default="?", help="ctest result")
    w.add_argument("--sanitizer", default="not run", help="compute-sanitizer's result per tool")
    w.add_argument("--bench", default="?", help="what the benchmarks did")
    w.add_argument("--elapsed", default="?", help="seconds gpu-check.sh ran")
    a = parser.parse_args(argv)
    if a.command == "versions":
        print_versions()
        return 0
    a.summary = a.summary or os.path.join(a.out, "summary.md")
    with open(a.summary, "w") as f, contextlib.redirect_stdout(f):
        print_summary(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())

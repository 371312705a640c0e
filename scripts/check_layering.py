#!/usr/bin/env python3
"""The floors of src/ (docs/DESIGN.md, "Layout"): each folder includes only folders below it.

Lists every `#include "..."` of src/ and of the public headers that runs up a floor, and fails
when one is not in ALLOWED (each named, with its reason, in DESIGN.md's layering paragraph) or
when an allowed one is gone (so the list stays exact).

A public header (include/triton_jit/NAME.h) stands on the floor of the folder whose NAME.cpp
implements it (launch_config.h: src/key/launch_config.cpp); one that no NAME.cpp implements
(arg.h, decorators.h, ...) is vocabulary and stands on no floor. Its own includes count as
includes of its floor.

  scripts/check_layering.py            check (the CPU test scripts.layering runs this)
  scripts/check_layering.py --list     also print every include between folders, downward too
"""

import os
import re
import sys

# Top to bottom. "" is src/errors.cpp, the ground every layer throws from.
FLOORS = ["function", "decorators", "resolve", "launch", "bridge", "store", "settings", "kernel", "cuda", "key", ""]

# (including file, included path as written): the includes that run up, and why.
ALLOWED = {
    ("src/decorators/tuner.cpp", "function/call.h"):
        "the tuner launches its candidates as a plain call does (Triton's Autotuner calls fn.run)",
    ("src/resolve/resolver.h", "triton_jit/prepare.h"):
        "the resolver's batch compiles prepare()'s public requests (a KernelRequest names its TritonJitFunction)",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def floor_rank(folder):
    return FLOORS.index(folder)


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    src = os.path.join(root, "src")
    public = os.path.join(root, "include", "triton_jit")
    listing = "--list" in argv

    folder_of_cpp = {}  # NAME -> folders with a NAME.cpp
    sources = []
    for d, _, files in os.walk(src):
        rel = os.path.relpath(d, src)
        folder = "" if rel == "." else rel.split(os.sep)[0]
        if folder not in FLOORS:
            print(f"src/{folder}/ stands on no floor: add it to FLOORS in {os.path.relpath(__file__, root)} "
                  "and to docs/DESIGN.md's table")
            return 1
        for f in sorted(files):
            if f.endswith((".h", ".cpp")):
                sources.append((os.path.relpath(os.path.join(d, f), root), folder))
            if f.endswith(".cpp"):
                folder_of_cpp.setdefault(f[:-4], set()).add(folder)

    def public_floor(name):
        folders = folder_of_cpp.get(os.path.splitext(name)[0], set())
        if len(folders) > 1:
            raise SystemExit(f"include/triton_jit/{name}: implemented by a {os.path.splitext(name)[0]}.cpp in "
                             f"{sorted(folders)}: rename all but one, so that the header has one floor")
        return next(iter(folders)) if folders else None

    for f in sorted(os.listdir(public)):
        floor = public_floor(f)
        if f.endswith(".h") and floor is not None:
            sources.append((os.path.join("include", "triton_jit", f), floor))

    upward = []
    for path, floor in sources:
        with open(os.path.join(root, path), encoding="utf-8") as text:
            for number, line in enumerate(text, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                written = m.group(1)
                if written.startswith("triton_jit/"):
                    target = public_floor(written[len("triton_jit/"):])
                elif os.path.exists(os.path.join(src, written)):
                    target = written.split("/")[0] if "/" in written else ""
                else:
                    continue  # generated, or beside the includer
                if target is None or target == floor:
                    continue
                up = floor_rank(target) < floor_rank(floor)
                if listing:
                    print(f"{'UP  ' if up else '    '}{floor or 'errors'} -> {target or 'errors'}  {path}:{number} {written}")
                if up:
                    upward.append((path, number, written, floor, target))

    failed = False
    found = set()
    for path, number, written, floor, target in upward:
        found.add((path, written))
        if (path, written) in ALLOWED:
            continue
        failed = True
        print(f"{path}:{number}: #include \"{written}\" runs up from {floor or 'errors'}/ to {target}/ "
              f"(floors, top to bottom: {', '.join(f or 'errors' for f in FLOORS)}). Move the code to the floor "
              "it belongs to; an exception goes to ALLOWED in scripts/check_layering.py and is named with its "
              "reason in docs/DESIGN.md's layering paragraph")
    for path, written in sorted(set(ALLOWED) - found):
        failed = True
        print(f"{path}: the allowed upward #include \"{written}\" is gone: remove it from ALLOWED in "
              "scripts/check_layering.py and from docs/DESIGN.md's layering paragraph")
    with open(os.path.join(root, "docs", "DESIGN.md"), encoding="utf-8") as design:
        text = design.read()
    for path, written in sorted(ALLOWED):
        if f"`{path[len('src/'):]}`" not in text:
            failed = True
            print(f"docs/DESIGN.md does not name the upward include of {path} (`{path[len('src/'):]}`): "
                  "the layering paragraph names each exception with its reason")
    if not failed:
        print(f"floors hold: {len(upward)} include(s) run up, each allowed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The versions of the formats this bridge writes for the C++ side, defined once, in C++:
HEURISTIC_PROGRAM_VERSION and HEURISTIC_MAX_STACK are HeuristicProgram::kVersion and kMaxStack
(src/decorators/heuristic_program.h). The copy of this module that libtriton_jit_python embeds is
generated from that header at build time (cmake/embed_bridge.cmake); this file, imported from the
source tree (the bridge's tests), reads the header itself."""

import os
import re

_HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir, "decorators",
                       "heuristic_program.h")


def _header_constant(name):
    with open(_HEADER, encoding="utf-8") as f:
        return int(re.search(rf"static constexpr int {name} = (\d+);", f.read()).group(1))


HEURISTIC_PROGRAM_VERSION = _header_constant("kVersion")
HEURISTIC_MAX_STACK = _header_constant("kMaxStack")

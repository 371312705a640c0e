"""The code blocks of the README and of the user guide (docs/GUIDE.md, docs/guide/*.md), run
against the build, so that an example that drifts from the code fails CI. Each fenced block is
preceded by a marker that says what to do with it:

    <!-- test: cpu -->            run it here, without a GPU
    <!-- test: cpu arrays -->     the same, with x, y and out defined first as stand-ins for CUDA
                                  arrays (4096 float32 each, objects with __cuda_array_interface__)
    <!-- test: file PATH -->      the block is PATH's contents (a file of the repository)
    <!-- test: gpu -->            needs a GPU: skipped, with that reason
    <!-- test: skip REASON -->    not run, for REASON (shown in the report)

A block without a marker is reported as not checked (skipped), never silently passed over.

How blocks run, each in a fresh folder of its own below the build tree holding `examples`, `tests`
(links to the repository's) and `build` (a link to this build), so that the examples' relative
paths mean what they mean at the root of a checkout (in the guide's files too):
- python: with the build's python, the package from the build (PYTHONPATH=<build>/python) and
  examples/kernels on sys.path. A line `EXPRESSION  # 'TEXT'` (a string literal as the comment)
  asserts that EXPRESSION == 'TEXT'.
- sh: with bash -e -o pipefail. A comment line right after a command (outside a here-document)
  is output that command prints: its stdout must hold that line. `/opt/triton_jit` stands for an
  install prefix and is replaced by a folder of the test.
- cmake: a project (cmake_minimum_required, project, add_executable(my_app main.cpp)) whose
  CMakeLists.txt ends with the block, configured against this build installed into a prefix
  (CMAKE_PREFIX_PATH), built, and my_app run.

Environment (tests/docs/CMakeLists.txt): TRITON_JIT_SOURCE_DIR, TRITON_JIT_BUILD_DIR,
TRITON_JIT_DOCS_WORK, TRITON_JIT_DOCS_CMAKE (the build's cmake, first on PATH for shell blocks),
TRITON_JIT_DOCS_CMAKE_GENERATOR and TRITON_JIT_DOCS_CXX_COMPILER, plus the
test caches every test gets (TRITON_CACHE_DIR, TRITON_JIT_INDEX_DIR).
"""
import ast
import glob
import io
import os
import re
import shutil
import subprocess
import sys
import tokenize

import pytest

SOURCE = os.environ.get("TRITON_JIT_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.environ.get("TRITON_JIT_BUILD_DIR", "")
WORK = os.environ.get("TRITON_JIT_DOCS_WORK") or os.path.join(BUILD or SOURCE, "docs-work")
DOCUMENTS = ["README.md", "docs/GUIDE.md"] + sorted(glob.glob("docs/guide/*.md", root_dir=SOURCE))
CMAKE = os.environ.get("TRITON_JIT_DOCS_CMAKE") or shutil.which("cmake") or "cmake"  # the build's own
TIMEOUT_S = 900
INSTALL_PREFIX = "/opt/triton_jit"

MARKER = re.compile(r"^\s*<!--\s*test:\s*(?P<kind>\S+)\s*(?P<rest>.*?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w+-]*)\s*$")


class Block:
    def __init__(self, document, line, lang, text, kind, rest, section):
        self.document, self.line, self.lang, self.text = document, line, lang, text
        self.kind, self.rest, self.section = kind, rest, section

    @property
    def name(self):
        """README-line12-sh, guide-python-line40-python: also the name of the block's folder."""
        stem = os.path.splitext(self.document)[0].replace("docs/guide/", "guide-").replace("docs/", "")
        return f"{stem}-line{self.line}-{self.lang or 'text'}"

    def where(self):
        return f"{self.document} line {self.line} ({self.lang or 'text'} block in '{self.section}')"


def read_blocks(document):
    """Every fenced block of DOCUMENT with the marker just above it (kind None when unmarked)."""
    path = os.path.join(SOURCE, document)
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, section, i = [], "", 0
    while i < len(lines):
        if lines[i].startswith("#"):
            section = lines[i].lstrip("#").strip()
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        start, indent = i, fence["indent"]
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1  # the closing fence
        before = start - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        marker = MARKER.match(lines[before]) if before >= 0 else None
        blocks.append(Block(document, start + 1, fence["lang"], "\n".join(body) + "\n", marker["kind"] if marker else None,
                            marker["rest"] if marker else "", section))
    return blocks


BLOCKS = [block for document in DOCUMENTS for block in read_blocks(document)]


def work_dir(block):
    """A fresh folder for one block, with examples/, tests/ and build/ as in a checkout."""
    folder = os.path.join(WORK, block.name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for name in ("examples", "tests"):
        os.symlink(os.path.join(SOURCE, name), os.path.join(folder, name))
    os.symlink(BUILD, os.path.join(folder, "build"))
    return folder


def run(block, argv, cwd, env=None, what="the block"):
    result = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            timeout=TIMEOUT_S)
    if result.returncode != 0:
        pytest.fail(f"{block.where()}: {what} failed with exit status {result.returncode}\n"
                    f"---- stdout\n{result.stdout}---- stderr\n{result.stderr}", pytrace=False)
    return result.stdout


def need(path, what):
    if not os.path.exists(path):
        pytest.skip(f"{what} is not built ({path})")


# ---- python ----

ARRAYS_SETUP = '''
class _StandInCudaArray:
    """What CuPy and Numba arrays show: 4096 float32 at a 16-byte aligned device address."""
    def __init__(self, address):
        self.__cuda_array_interface__ = {"data": (address, False), "typestr": "<f4", "shape": (4096,),
                                         "strides": None, "version": 3}
x, y, out = _StandInCudaArray(0x10000), _StandInCudaArray(0x20000), _StandInCudaArray(0x30000)
'''

CHECK_HELPER = '''
def _readme_expect(value, expected, where):
    if value != expected:
        raise AssertionError(f"{where}: the comment says {expected!r}, the code gives {value!r}")
'''


def expected_results(text):
    """(line index, expression, literal) for each top-level line `EXPRESSION  # 'TEXT'`."""
    found = []
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        row, col = tok.start
        line = text.split("\n")[row - 1]
        comment = tok.string[1:].strip()
        code = line[:col].rstrip()
        if not code or code[0].isspace() or comment[:1] not in ("'", '"'):
            continue
        try:
            literal = ast.literal_eval(comment)
            ast.parse(code, mode="eval")
        except (SyntaxError, ValueError):
            continue
        if isinstance(literal, str):
            found.append((row - 1, code, literal))
    return found


def python_program(block, setup):
    lines = block.text.split("\n")
    for index, code, literal in expected_results(block.text):
        lines[index] = f"_readme_expect({code}, {literal!r}, '{block.document} line {block.line + 1 + index}')"
    return CHECK_HELPER + setup + "\n".join(lines)


def run_python(block):
    need(os.path.join(BUILD, "python", "triton_jit"), "the triton_jit Python package")
    setups = {"": "", "arrays": ARRAYS_SETUP}
    if block.rest not in setups:
        pytest.fail(f"{block.where()}: unknown set-up '{block.rest}' (known: {', '.join(s for s in setups if s)})")
    folder = work_dir(block)
    program = os.path.join(folder, "readme_block.py")
    with open(program, "w", encoding="utf-8") as f:
        f.write(python_program(block, setups[block.rest]))
    env = dict(os.environ)
    path = [os.path.join(BUILD, "python"), os.path.join(SOURCE, "examples", "kernels")]
    env["PYTHONPATH"] = os.pathsep.join(path + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    run(block, [sys.executable, program], folder, env)


# ---- sh ----


def expected_output_lines(text):
    """The comment lines that follow a command (not inside a here-document): its output."""
    expected, heredoc_end, after_command = [], None, False
    for line in text.split("\n"):
        stripped = line.strip()
        if heredoc_end is not None:
            if stripped == heredoc_end:
                heredoc_end = None
            continue
        if stripped.startswith("#"):
            if after_command:
                expected.append(stripped[1:].strip())
            continue
        if not stripped:
            after_command = False
            continue
        heredoc = re.search(r"<<-?\s*'?\"?(\w+)", line)
        if heredoc:
            heredoc_end = heredoc.group(1)
        after_command = not stripped.endswith("\\") and heredoc is None
    return expected


def run_sh(block):
    need(os.path.join(BUILD, "tools", "triton-jit"), "the triton-jit command-line tool")
    folder = work_dir(block)
    prefix = os.path.join(folder, "prefix")
    script = os.path.join(folder, "readme_block.sh")
    with open(script, "w", encoding="utf-8") as f:
        f.write(block.text.replace(INSTALL_PREFIX, prefix))
    env = dict(os.environ, PATH=os.pathsep.join(p for p in (os.path.dirname(CMAKE), os.environ.get("PATH")) if p))
    stdout = run(block, ["bash", "-e", "-o", "pipefail", script], folder, env)
    printed = [line.strip() for line in stdout.split("\n")]
    for line in expected_output_lines(block.text):
        assert line in printed, f"{block.where()}: the block shows the output line\n  {line}\nwhich the " \
                                f"commands did not print; they printed:\n{stdout}"


# ---- cmake ----

CONSUMER_MAIN = """#include <cstdio>
#include <triton_jit/triton_jit.h>
int main() {
  triton_jit::set_log_level(triton_jit::LogLevel::Off);
  std::printf("libtriton_jit %s\\n", TRITON_JIT_VERSION_STRING);
  return 0;
}
"""


def run_cmake(block):
    need(os.path.join(BUILD, "cmake_install.cmake"), "the install rules")
    folder = work_dir(block)
    prefix = os.path.join(folder, "prefix")
    run(block, [CMAKE, "--install", BUILD, "--prefix", prefix], folder, what="cmake --install")
    project = os.path.join(folder, "project")
    os.makedirs(project)
    with open(os.path.join(project, "main.cpp"), "w") as f:
        f.write(CONSUMER_MAIN)
    with open(os.path.join(project, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.25)\nproject(readme_consumer LANGUAGES CXX)\n"
                "add_executable(my_app main.cpp)\n" + block.text.replace(INSTALL_PREFIX, prefix))
    configure = [CMAKE, "-S", project, "-B", os.path.join(folder, "out"), f"-DCMAKE_PREFIX_PATH={prefix}",
                 "-DCMAKE_BUILD_TYPE=Release"]
    if os.environ.get("TRITON_JIT_DOCS_CMAKE_GENERATOR"):
        configure += ["-G", os.environ["TRITON_JIT_DOCS_CMAKE_GENERATOR"]]
    if os.environ.get("TRITON_JIT_DOCS_CXX_COMPILER"):
        configure.append("-DCMAKE_CXX_COMPILER=" + os.environ["TRITON_JIT_DOCS_CXX_COMPILER"])
    run(block, configure, folder, what="configuring a project with the block")
    run(block, [CMAKE, "--build", os.path.join(folder, "out")], folder, what="building that project")
    stdout = run(block, [os.path.join(folder, "out", "my_app")], folder, what="running my_app")
    assert stdout.startswith("libtriton_jit "), stdout


RUNNERS = {"python": run_python, "sh": run_sh, "cmake": run_cmake}


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_readme_block(block):
    if block.kind is None:
        pytest.skip(f"{block.where()}: no test marker (<!-- test: cpu|gpu|skip REASON|file PATH -->): not checked")
    if block.kind == "skip":
        if not block.rest:
            pytest.fail(f"{block.where()}: a skip marker needs its reason", pytrace=False)
        pytest.skip(f"{block.where()}: {block.rest}")
    if block.kind == "gpu":
        pytest.skip(f"{block.where()}: needs a GPU (this test runs what needs none)")
    if block.kind == "file":
        with open(os.path.join(SOURCE, block.rest), encoding="utf-8") as f:
            text = f.read()
        squeeze = lambda t: re.sub(r"\n{2,}", "\n", t.strip())  # blank lines aside
        assert squeeze(block.text) == squeeze(text), f"{block.where()} differs from {block.rest}"
        return
    if block.kind != "cpu":
        pytest.fail(f"{block.where()}: unknown marker kind '{block.kind}'", pytrace=False)
    if block.lang not in RUNNERS:
        pytest.fail(f"{block.where()}: no runner for {block.lang or 'untyped'} blocks (known: "
                    f"{', '.join(RUNNERS)}); mark it skip with a reason", pytrace=False)
    if not BUILD:
        pytest.skip("TRITON_JIT_BUILD_DIR is not set (run through ctest)")
    RUNNERS[block.lang](block)


def test_the_readme_has_checked_examples():
    """The markers are read: at least the Python, CLI and CMake examples run, and the README's own
    Python and CLI examples (documents reshaped so that none matches would otherwise pass
    vacuously); the guide is read too."""
    checked = {b.lang for b in BLOCKS if b.kind == "cpu"}
    assert {"python", "sh", "cmake"} <= checked, checked
    in_readme = {b.lang for b in BLOCKS if b.kind == "cpu" and b.document == "README.md"}
    assert {"python", "sh"} <= in_readme, in_readme
    assert any(b.document.startswith("docs/guide/") for b in BLOCKS), "no code block read in docs/guide/"

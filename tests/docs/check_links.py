"""Every relative link of the documentation resolves: README.md, docs/*.md, docs/guide/*.md,
bench/README.md. A link names a file or folder of the repository, and its #anchor, if any, a
heading of that Markdown file (GitHub's slugs: lower case, punctuation dropped, spaces to
hyphens, -1, -2, ... for repeats). Links in code blocks and inline code are not links.

    python3 tests/docs/check_links.py [SOURCE_DIR]      exit status 1 and one line per broken link
"""
import glob
import os
import re
import sys

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*```")
INLINE_CODE = re.compile(r"`[^`]*`")


def documents(source):
    names = ["README.md", "bench/README.md"] + sorted(glob.glob("docs/*.md", root_dir=source)) + \
        sorted(glob.glob("docs/guide/*.md", root_dir=source))
    return [name for name in names if os.path.isfile(os.path.join(source, name))]


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading):
    text = INLINE_CODE.sub(lambda m: m.group(0)[1:-1], heading.strip().lstrip("#").strip())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path):
    found, seen = set(), {}
    with open(path, encoding="utf-8") as f:
        for _, line in prose_lines(f.read()):
            if re.match(r"^#{1,6}\s", line):
                base = slug(line)
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(source):
    problems, cache = [], {}
    for name in documents(source):
        path = os.path.join(source, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for number, line in prose_lines(text):
            for target in LINK.findall(INLINE_CODE.sub("", line)):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                    continue
                file_part, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                where = f"{name}:{number}: ({target})"
                if not os.path.exists(resolved):
                    problems.append(f"{where} {os.path.relpath(resolved, source)} does not exist")
                elif anchor and resolved.endswith(".md"):
                    if resolved not in cache:
                        cache[resolved] = anchors(resolved)
                    if anchor not in cache[resolved]:
                        problems.append(f"{where} {os.path.relpath(resolved, source)} has no heading #{anchor}")
    return problems


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    problems = broken_links(source)
    for problem in problems:
        print(problem)
    print(f"{len(documents(source))} documents checked, {len(problems)} broken links")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

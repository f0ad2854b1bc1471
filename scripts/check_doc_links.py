#!/usr/bin/env python3
"""Checks the repository's references to its own documentation.

- Every `[text](target)` in the Markdown files git tracks (README.md, docs/, examples/, ...)
  whose target is not a URL must name a file or folder of the repository, and a `#fragment`
  must name a heading of the file it points to (GitHub's anchor rules).
- Every page of docs/ must be linked from README.md, whose documentation list is where readers
  find the pages.
- Every `docs/<page>.md "Title"` (or `docs/<page>.md, "Title"`) in a tracked source, script,
  manifest or Markdown file must name a page of docs/ with a heading, or a bold paragraph
  title (`**Title.**`), that starts with Title: code comments point readers at sections.

Prints one line per broken reference, `FILE:LINE: why`, and exits 1 if any; 0 otherwise.
Usage: check_doc_links.py [REPO_ROOT]
"""
from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
BOLD_TITLE = re.compile(r"\*\*([^*]+?)\.?\*\*")
# docs/<page>.md "Title" or docs/<page>.md, "Title" (the quote may be escaped, inside a C string);
# a title is a short phrase, possibly wrapped onto a comment's next line.
SECTION_REFERENCE = re.compile(
    r'docs/([\w.-]+\.md),?[ \t]*\\?"([A-Z`0-9][^"\\;{}()=<>]{0,70}?(?:\n[ \t]*(?://|#|\*)?[ \t]*[^"\\;{}()=<>\n]{1,70}?)?)\\?"')
CONTINUATION = re.compile(r"\s*\n\s*(?://|#|\*)?\s*")
SOURCE_PATTERNS = ("*.cc", "*.h", "*.c", "*.py", "*.sh", "*.md", "*.yaml", "*.js", "*.html", "*.cmake",
                   "*CMakeLists.txt", "Makefile")


def github_anchor(title: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as '-'."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """The file's lines outside fenced code blocks, numbered from 1."""
    lines, fenced = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


@functools.lru_cache(maxsize=None)
def anchors_of(path: Path) -> frozenset[str]:
    """Every anchor of a Markdown file's headings (repeats get -1, -2, ... as on GitHub); read
    once per file, however many links point into it."""
    seen: dict[str, int] = {}
    result = set()
    for _, line in prose_lines(path):
        match = HEADING.match(line)
        if not match:
            continue
        anchor = github_anchor(match.group(2))
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        result.add(anchor if count == 0 else f"{anchor}-{count}")
    return frozenset(result)


def broken_links(root: Path, markdown: Path) -> list[str]:
    """`FILE:LINE: why` for each relative link of `markdown` that does not resolve."""
    problems = []
    for number, line in prose_lines(markdown):
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, fragment = target.partition("#")
            resolved = (markdown.parent / file_part).resolve() if file_part else markdown
            where = f"{markdown.relative_to(root)}:{number}"
            if not resolved.exists():
                problems.append(f"{where}: {target}: no such file")
            elif fragment and resolved.suffix == ".md" and fragment not in anchors_of(resolved):
                problems.append(f"{where}: {target}: no heading #{fragment} in {resolved.name}")
    return problems


def pages_missing_from_readme(root: Path) -> list[str]:
    """`README.md: why` for each page of docs/ that no link of README.md names."""
    readme = root / "README.md"
    if not readme.is_file():
        return []
    linked = {(root / target.partition("#")[0]).resolve()
              for _, line in prose_lines(readme) for target in LINK.findall(line)}
    return [f"README.md: docs/{page.name}: a page of docs/ the README's links never name"
            for page in sorted((root / "docs").glob("*.md")) if page.resolve() not in linked]


def tracked_files(root: Path, *patterns: str) -> list[Path]:
    """The files git tracks or would track (not ignored) matching `patterns`."""
    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard",
                                 *patterns], capture_output=True, text=True, check=True, timeout=60).stdout.split()
    except (OSError, subprocess.SubprocessError):
        listed = []
    if listed:
        return [root / name for name in listed if (root / name).is_file()]
    # Not a git checkout (an unpacked source archive): every matching file outside build
    # folders and installed packages.
    skipped = {".git", "node_modules", "dist"}
    return sorted(path for pattern in patterns for path in root.rglob(pattern)
                  if path.is_file() and not any(part in skipped or part.startswith("build")
                                                for part in path.relative_to(root).parts))


def section_titles(page: Path) -> list[str]:
    """The headings and bold paragraph titles of a page, without backticks."""
    titles = []
    for _, line in prose_lines(page):
        heading = HEADING.match(line)
        if heading:
            titles.append(heading.group(2).replace("`", ""))
        titles += [bold.replace("`", "") for bold in BOLD_TITLE.findall(line)]
    return titles


def broken_section_references(root: Path, source: Path, pages: dict[str, list[str]]) -> list[str]:
    """`FILE:LINE: why` for each `docs/<page>.md "Title"` of `source` naming no section."""
    try:
        text = source.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return []
    problems = []
    for match in SECTION_REFERENCE.finditer(text):
        page, title = match.group(1), CONTINUATION.sub(" ", match.group(2)).replace("`", "").strip()
        where = f"{source.relative_to(root)}:{text.count(chr(10), 0, match.start()) + 1}"
        if page not in pages:
            problems.append(f'{where}: docs/{page}: no such page')
        elif not any(t.startswith(title) for t in pages[page]):
            problems.append(f'{where}: docs/{page} "{title}": no such section')
    return problems


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else Path(__file__).resolve().parent.parent).resolve()
    markdown = tracked_files(root, "*.md")
    problems = [p for f in markdown for p in broken_links(root, f)]
    problems += pages_missing_from_readme(root)
    pages = {page.name: section_titles(page) for page in sorted((root / "docs").glob("*.md"))}
    sources = tracked_files(root, *SOURCE_PATTERNS)
    problems += [p for f in sources for p in broken_section_references(root, f, pages)]
    for problem in problems:
        print(problem)
    print(f"{len(markdown)} Markdown files, {len(sources)} files with section references checked, "
          f"{len(problems)} broken reference(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

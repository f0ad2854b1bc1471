"""scripts/check_doc_links.py on small made-up trees: what it accepts and what it reports."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "check_doc_links.py"
#: The made-up pages, spelled so that the checker, run on this repository, does not take
#: this file's references to them for real ones.
GUIDE, OTHER = "docs" + "/guide.md", "docs" + "/other.md"


def run(root: Path) -> subprocess.CompletedProcess[str]:
    """The checker on `root` (not a git checkout: it walks the tree)."""
    return subprocess.run([sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, timeout=60)


def make_tree(root: Path, readme: str, source: str) -> None:
    """README.md, docs/guide.md (two sections, a bold paragraph title) and src/a.h."""
    (root / "docs").mkdir()
    (root / "src").mkdir()
    (root / "README.md").write_text(readme)
    (root / "docs" / "guide.md").write_text(
        "# Guide\n\n## Controller (`kraken annotate --every`, src/loop.h)\n\n"
        "**The legacy table.** Text.\n\n```\n# not a heading\n```\n\n## Tests\n")
    (root / "src" / "a.h").write_text(source)


def test_valid_links_and_section_references_pass(tmp_path: Path) -> None:
    make_tree(tmp_path,
              "[guide](docs/guide.md), [loop](docs/guide.md#controller-kraken-annotate---every-srclooph) "
              "[tests](docs/guide.md#tests) [web](https://example.com/x.md#nothing)\n",
              f'// {GUIDE} "Controller", {GUIDE}, "The legacy\n// table" and {GUIDE} "Tests".\n')
    result = run(tmp_path)
    assert result.returncode == 0, result.stdout
    assert "0 broken reference(s)" in result.stdout


def test_missing_files_anchors_pages_and_sections_are_each_reported(tmp_path: Path) -> None:
    make_tree(tmp_path,
              "[gone](docs/gone.md)\n[anchor](docs/guide.md#not-a-heading)\n",
              f'// {GUIDE} "Profiled experiments" and {OTHER} "Use".\n')
    result = run(tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert "README.md:1: docs/gone.md: no such file" in lines
    assert "README.md:2: docs/guide.md#not-a-heading: no heading #not-a-heading in guide.md" in lines
    assert f'src/a.h:1: {GUIDE} "Profiled experiments": no such section' in lines
    assert f"src/a.h:1: {OTHER}: no such page" in lines
    assert lines[-1].endswith("4 broken reference(s)")


def test_a_docs_page_the_readme_does_not_link_is_reported(tmp_path: Path) -> None:
    make_tree(tmp_path, "[guide](docs/guide.md#tests)\n", "")
    (tmp_path / "docs" / "other.md").write_text("# Other\n")
    result = run(tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert "README.md: docs/other.md: a page of docs/ the README's links never name" in lines
    assert lines[-1].endswith("1 broken reference(s)")

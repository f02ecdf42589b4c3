"""``{include-cell}``: a tagged cell of another notebook, shown on a page (in-process builds)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sphinx.testing.util import SphinxTestApp

NOTEBOOK = """\
---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {display_name: Python 3, language: python, name: python3}
---

# A notebook

```{code-cell} ipython3
:tags: [quick-start]
import torch
print(torch.ones(2))
```

```{code-cell} ipython3
:tags: [twice]
a = 1
```

```{code-cell} ipython3
:tags: [twice, quick-start-cpp]
%%writefile main.cpp
int main() { return 0; }
```
"""


def build(tmp_path: Path, index: str) -> SphinxTestApp:
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        'extensions = ["myst_parser", "trtdocs.output.cellinclude"]\n'
        'exclude_patterns = ["nb.md"]\nsuppress_warnings = ["toc.not_included"]\n'
    )
    (src / "index.md").write_text(index)
    (src / "nb.md").write_text(NOTEBOOK)
    app = SphinxTestApp("html", srcdir=src, builddir=tmp_path / "out", freshenv=True)
    app.build()
    return app


def test_a_tagged_cell_is_shown_with_its_language(tmp_path: Path) -> None:
    app = build(
        tmp_path,
        "# Start\n\n```{include-cell} nb.md\n:tag: quick-start\n```\n\n"
        "```{include-cell} nb.md\n:tag: quick-start-cpp\n```\n",
    )
    try:
        assert app._warning.getvalue() == ""
        blocks = [
            n for n in app.env.get_doctree("index").findall(lambda n: n.tagname == "literal_block")
        ]
        assert [(b["language"], b.astext()) for b in blocks] == [
            ("python", "import torch\nprint(torch.ones(2))"),
            ("cpp", "int main() { return 0; }"),  # the magic line is not in what a reader copies
        ]
        html = (app.outdir / "index.html").read_text()
        assert "main.cpp" in html and "%%writefile" not in html
        assert (
            app.srcdir / "nb.md" in app.env.dependencies["index"]
        )  # edited notebook: page read again
    finally:
        app.cleanup()


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        ("absent", "nb.md: no code cell with the tag 'absent'"),
        ("twice", "nb.md: 2 code cells with the tag 'twice'"),
    ],
)
def test_a_tag_that_names_no_single_cell_is_an_error_at_its_line(
    tmp_path: Path, tag: str, message: str
) -> None:
    app = build(tmp_path, f"# Start\n\ntext\n\n```{{include-cell}} nb.md\n:tag: {tag}\n```\n")
    try:
        warnings = app._warning.getvalue()
        assert "index.md:5" in warnings and message in warnings
    finally:
        app.cleanup()


def test_a_missing_notebook_is_an_error(tmp_path: Path) -> None:
    app = build(tmp_path, "# Start\n\n```{include-cell} gone.md\n:tag: x\n```\n")
    try:
        assert "include-cell: gone.md does not exist" in app._warning.getvalue()
    finally:
        app.cleanup()

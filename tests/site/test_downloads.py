"""The downloads hold no MyST: each directive and role of a notebook's Markdown
becomes the Markdown it stands for (trtdocs.markdown.source), and any left
fails the build. Unit tests on planted text; the real site's downloads checked
with the same function."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
import yaml

from paths import ROOT
from trtdocs.features.validate import load as load_features
from trtdocs.markdown import leftovers, source
from trtdocs.notebooks import marks, requirements


def _left(text: str, cells: bool = True) -> list[tuple[int, str]]:
    return [(left.line, left.what) for left in leftovers.find(text, cells=cells)]


@pytest.fixture(scope="module")
def ctx() -> source.Context:
    return source.Context(
        features=load_features(ROOT / "docs" / "features.toml"),
        data_dir=ROOT / "docs" / "data",
        page="notebooks/here",
        suffix=".ipynb",
        titles={
            "notebooks/install": "Install",
            "notebooks/here": "Here",
            "docs/support-matrix": "Support matrix",
        },
        labels={
            "a-label": ("notebooks/install", "a-label", "Keep the versions together"),
            "local": ("notebooks/here", "local", "A section here"),
        },
        notebooks=frozenset({"notebooks/install", "notebooks/here"}),
        extlinks={"pypi": ("https://pypi.org/project/%s/", "%s")},
        requires_mark=lambda value: marks.text_line(
            requirements.parse(yaml.safe_load(value)), {"cuda": "a CUDA GPU"}
        ),
    )


def test_install_command_becomes_a_shell_block(ctx: source.Context) -> None:
    text = "Install:\n\n```{install-command} 2.14\n:tool: uv\n```\n"
    out = source.render(text, ctx)
    assert out == (
        'Install:\n\n```bash\nuv pip install "torch-tensorrt[executorch]==2.14.0" '
        '"torch-tensorrt-executorch-runtime==0.1.0"\n```\n'
    )
    assert _left(out) == []


def test_a_code_block_becomes_a_fence_with_what_it_needs(ctx: source.Context) -> None:
    text = "Run:\n\n```{code-block} bash\n:requires: [cuda, tensorrt]\nnvidia-smi\n```\n"
    out = source.render(text, ctx)
    assert out == (
        "Run:\n\n> **Shown as text; no build runs it. Running it needs a CUDA GPU with TensorRT.**"
        "\n\n```bash\nnvidia-smi\n```\n"
    )  # the mark a twin shows over the block, as the quote a twin writes
    assert _left(out) == []
    assert (
        source.render("```{code-block} cpp\nint main() {}\n```\n", ctx)
        == "```cpp\nint main() {}\n```\n"
    )


def test_version_notes_follow_the_site(ctx: source.Context) -> None:
    # a feature 2.14 has, with a run shown: no note, and the sentence closes over it
    assert (
        source.render("It runs on the GPU {feature}`pte-save`.\n", ctx) == "It runs on the GPU.\n"
    )
    assert source.render("```{feature-note} pte-save\n```\n", ctx) == "\n"
    out = source.render(
        "Options {feature}`gpu-resident-io-python`.\n\n```{feature-note} "
        "gpu-resident-io-python\n```\n",
        ctx,
    )
    note = "Needs a Torch-TensorRT nightly build; described for 2.15, not released"
    assert out.startswith(f"Options ({note}).\n\n> **{note}**\n>\n> ")
    assert "See the support matrix." in out
    # a note that is all its text holds (a table cell) has no parentheses, as on the site
    assert source._inline("{feature}`gpu-resident-io-python`", ctx) == note


def test_tables_tabs_admonitions_and_links(ctx: source.Context) -> None:
    text = (
        "::::{tab-set}\n:::{tab-item} pip\n```{install-command} "
        "2.14\n```\n:::\n::::\n\n(a-target)=\n% a comment\n\n```{warning}\nDo not "
        "{doc}`install`.\n```\n\n```{data-table} pte-vs-pt2\n```\n\nSee {ref}`a-label`, "
        "{ref}`text <local>` and {pypi}`executorch`.\n"
    )
    out = source.render(text, ctx)
    assert _left(out) == []
    assert "**pip**\n\n```bash\npip install" in out
    assert "> **Warning**\n>\n> Do not [Install](install.ipynb)." in out
    assert "| `.pte` (ExecuTorch) | `.pt2` (ExportedProgram) |" in out  # the data file's columns
    # its version column shows only the notes that say
    # something for 2.14 (GPU-resident I/O: in code, no run)
    assert (
        "Feature |" in out
        and "In code in 2.14, no run shown; this guide lowers one on a CPU" in out
    )
    assert "Needs Torch-TensorRT" not in out
    assert (
        "See [Keep the versions together](install.ipynb), [text](#A-section-here) and "
        "[executorch](https://pypi.org/project/executorch/)." in out
    )
    assert "a-target" not in out and "a comment" not in out


@pytest.mark.parametrize(
    "text, line, message",
    [
        (
            "One\n\n```{no-such-directive}\n```\n",
            3,
            "the directive {no-such-directive} has no Markdown meaning",
        ),
        ("One\ntwo {kbd}`x`\n", 2, "the role {kbd} has no Markdown meaning"),
        (
            "One\n\n```{support-matrix}\n```\n",
            3,
            "the directive {support-matrix} (the support matrix) has no Markdown form in a "
            "download: only pages without downloads use it",
        ),
        ("Line one.\nSee {ref}`nowhere`.\n", 2, "{ref} 'nowhere': no such label"),
    ],
)
def test_what_has_no_markdown_form_is_an_error_with_its_line(
    ctx: source.Context, text: str, line: int, message: str
) -> None:
    with pytest.raises(source.DownloadError) as info:
        source.render(text, ctx)
    assert message in str(info.value) and info.value.line == line


def test_leftovers_finds_planted_myst() -> None:
    planted = (
        "# Page\n\n```{data-table} errors\n```\n\n(target)=\nText {doc}`x`.\n\n"
        "```{code-cell} ipython3\nprint(1)\n```\n"
    )
    assert _left(planted) == [
        (3, "the directive {data-table}"),
        (6, "MyST target"),
        (7, "the role {doc}"),
    ]


@pytest.mark.build
def test_the_sites_downloads_hold_no_myst(built_site: Path) -> None:
    found = []
    twins = set(built_site.glob("notebooks/*.html.md"))  # the pages' Markdown twins (trtdocs.llms)
    for md in sorted(set(built_site.glob("notebooks/*.md")) - twins):
        found += [
            f"{md.name}:{line}: {what}" for line, what in _left(md.read_text(encoding="utf-8"))
        ]
        nb = nbformat.read(md.with_suffix(".ipynb"), as_version=4)
        for number, cell in enumerate(nb.cells, 1):
            if cell.cell_type == "markdown":
                found += [
                    f"{md.stem}.ipynb cell {number}: {what}" for _, what in _left(cell.source)
                ]
    assert not found, "\n".join(found)
    # what the download renders is there: the install page's commands, the troubleshooting table
    install = json.dumps(nbformat.read(built_site / "notebooks" / "install.ipynb", as_version=4))
    assert 'pip install \\"torch-tensorrt[executorch]==2.14.0\\"' in install
    trouble = (built_site / "notebooks" / "troubleshooting.md").read_text(encoding="utf-8")
    assert "| Symptom | When | Cause | Fix |" in trouble and "`Error::OperatorMissing`" in trouble
    # a diagram is an attached image in the .ipynb
    overview = nbformat.read(built_site / "notebooks" / "overview.ipynb", as_version=4)
    assert any(
        "attachment:diagram-1.png" in c.source and "diagram-1.png" in c.get("attachments", {})
        for c in overview.cells
        if c.cell_type == "markdown"
    )


@pytest.mark.build
def test_a_directive_planted_in_a_built_download_is_caught(built_site: Path) -> None:
    """The check above, proven on a mutated copy of a real download (and of its notebook's
    cells)."""
    md = (built_site / "notebooks" / "troubleshooting.md").read_text(encoding="utf-8")
    assert _left(md) == []
    md = md.rstrip("\n") + "\n"
    lines = md.count("\n")
    planted = md + "\n```{install-command} runtime\n```\n\nRead {doc}`install` first.\n"
    assert _left(planted) == [
        (lines + 2, "the directive {install-command}"),
        (lines + 5, "the role {doc}"),
    ]
    nb = nbformat.read(built_site / "notebooks" / "install.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "markdown")
    assert _left(cell.source) == []
    assert (
        _left(cell.source + "\n\n```{data-table} errors\n```\n")[0][1]
        == "the directive {data-table}"
    )

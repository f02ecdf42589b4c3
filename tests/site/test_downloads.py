"""The downloads hold no MyST: each directive and role of a notebook's Markdown
becomes the Markdown it stands for (trtdocs.notebooks.markdown), and any left
fails the build. Unit tests on planted text; the real site's downloads checked
with the same function."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from paths import ROOT
from trtdocs.features.validate import load as load_features
from trtdocs.notebooks import markdown


@pytest.fixture(scope="module")
def ctx() -> markdown.Context:
    return markdown.Context(
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
    )


def test_install_command_becomes_a_shell_block(ctx: markdown.Context) -> None:
    text = "Install:\n\n```{install-command} 2.14\n:tool: uv\n```\n"
    out = markdown.render(text, ctx)
    assert out == (
        'Install:\n\n```bash\nuv pip install "torch-tensorrt[executorch]==2.14.0" '
        '"torch-tensorrt-executorch-runtime==0.1.0"\n```\n'
    )
    assert markdown.leftovers(out) == []


def test_a_code_block_becomes_a_fence_with_what_it_needs(ctx: markdown.Context) -> None:
    text = "Run:\n\n```{code-block} bash\n:requires: [cuda, tensorrt]\nnvidia-smi\n```\n"
    out = markdown.render(text, ctx)
    assert out == (
        "Run:\n\n*Not run in the guide's build; needs a CUDA GPU, Torch-TensorRT with TensorRT "
        "(import torch_tensorrt).*\n\n```bash\nnvidia-smi\n```\n"
    )
    assert markdown.leftovers(out) == []
    assert (
        markdown.render("```{code-block} cpp\nint main() {}\n```\n", ctx)
        == "```cpp\nint main() {}\n```\n"
    )


def test_version_notes_follow_the_site(ctx: markdown.Context) -> None:
    # a feature 2.14 has, with a run shown: no note, and the sentence closes over it
    assert (
        markdown.render("It runs on the GPU {feature}`pte-save`.\n", ctx) == "It runs on the GPU.\n"
    )
    assert markdown.render("```{feature-note} pte-save\n```\n", ctx) == "\n"
    out = markdown.render(
        "Options {feature}`gpu-resident-io-python`.\n\n```{feature-note} "
        "gpu-resident-io-python\n```\n",
        ctx,
    )
    note = "In 2.15, not released"
    assert out.startswith(f"Options ({note}).\n\n> **{note}.** ")
    assert "See the support matrix." in out
    # a note that is all its text holds (a table cell) has no parentheses, as on the site
    assert markdown._inline("{feature}`gpu-resident-io-python`", ctx) == note


def test_tables_tabs_admonitions_and_links(ctx: markdown.Context) -> None:
    text = (
        "::::{tab-set}\n:::{tab-item} pip\n```{install-command} "
        "2.14\n```\n:::\n::::\n\n(a-target)=\n% a comment\n\n```{warning}\nDo not "
        "{doc}`install`.\n```\n\n```{data-table} pte-vs-pt2\n```\n\nSee {ref}`a-label`, "
        "{ref}`text <local>` and {pypi}`executorch`.\n"
    )
    out = markdown.render(text, ctx)
    assert markdown.leftovers(out) == []
    assert "**pip**\n\n```bash\npip install" in out
    assert "> **Warning:** Do not [Install](install.ipynb)." in out
    assert "| `.pte` (ExecuTorch) | `.pt2` (ExportedProgram) |" in out  # the data file's columns
    # its version column names 2.14 only, which the guide is about: it says nothing, as on the
    # site, and no note says what shows a feature (the matrix does)
    assert "Feature |" not in out and "In 2.14" not in out and "no run" not in out
    assert (
        "See [Keep the versions together](install.ipynb), [text](#A-section-here) and "
        "[executorch](https://pypi.org/project/executorch/)." in out
    )
    assert "a-target" not in out and "a comment" not in out


def test_a_definition_list_becomes_a_bullet_list(ctx: markdown.Context) -> None:
    text = (
        "Packages:\n\n`torch-tensorrt`\n: The compiler and\n  the export side.\n\n"
        "Shared engines {feature}`shared-engines`\n: Loads share one engine.\n\nAfter.\n"
    )
    out = markdown.render(text, ctx)
    assert out == (
        "Packages:\n\n- **`torch-tensorrt`**: The compiler and\n  the export side.\n"
        "- **Shared engines (Nightly builds only; Linux only)**: Loads share one engine.\n\n"
        "After.\n"
    )
    assert markdown.leftovers(out) == []
    # planted: a definition list left in a download is found, at its line
    assert (3, "a MyST definition list") in markdown.leftovers(text)


def test_a_table_says_a_state_once_as_the_site_does(ctx: markdown.Context, tmp_path: Path) -> None:
    import dataclasses

    text = (ROOT / "docs" / "data" / "runtime-options.toml").read_text(encoding="utf-8")
    (tmp_path / "runtime-options.toml").write_text(text, encoding="utf-8")
    here = dataclasses.replace(ctx, data_dir=tmp_path, baseurl="https://example.org/")
    out = markdown.render("```{data-table} runtime-options\n```\n", here)
    # every option is set from Python from one release: said once, above the table
    link = "https://example.org/docs/support-matrix.html#feature-runtime-options-python"
    assert out.startswith(f"*From Python: [In 2.15, not released]({link})*\n\n| Option |")
    assert "From Python |" not in out
    # the first releases differ: each row its own, 2.14's included
    matrix = "https://example.org/docs/support-matrix.html"
    assert f"| [In 2.14]({matrix}#feature-weight-streaming) |" in out
    # planted: an option Python cannot set (no feature): the column stays, that row says "no"
    (tmp_path / "runtime-options.toml").write_text(
        text.replace('python = "runtime-options-python"', 'python = ""', 1), encoding="utf-8"
    )
    out = markdown.render("```{data-table} runtime-options\n```\n", here)
    assert "From Python |" in out and not out.startswith("*From Python")
    assert "| no | [In 2.14]" in out


@pytest.mark.parametrize(
    "text, line, message",
    [
        (
            "One\n\n```{no-such-directive}\n```\n",
            3,
            "the directive {no-such-directive} has no Markdown form",
        ),
        ("One\ntwo {kbd}`x`\n", 2, "the role {kbd} has no Markdown form"),
        ("Line one.\nSee {ref}`nowhere`.\n", 2, "{ref} 'nowhere': no such label"),
    ],
)
def test_what_has_no_markdown_form_is_an_error_with_its_line(
    ctx: markdown.Context, text: str, line: int, message: str
) -> None:
    with pytest.raises(markdown.DownloadError) as info:
        markdown.render(text, ctx)
    assert message in str(info.value) and info.value.line == line


def test_leftovers_finds_planted_myst() -> None:
    planted = (
        "# Page\n\n```{data-table} errors\n```\n\n(target)=\nText {doc}`x`.\n\n"
        "```{code-cell} ipython3\nprint(1)\n```\n"
    )
    assert markdown.leftovers(planted) == [
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
            f"{md.name}:{line}: {what}"
            for line, what in markdown.leftovers(md.read_text(encoding="utf-8"))
        ]
        nb = nbformat.read(md.with_suffix(".ipynb"), as_version=4)
        for number, cell in enumerate(nb.cells, 1):
            if cell.cell_type == "markdown":
                found += [
                    f"{md.stem}.ipynb cell {number}: {what}"
                    for _, what in markdown.leftovers(cell.source)
                ]
        # the gating's cell options are this site's, not a reader's Jupyter's
        assert ":requires:" not in md.read_text(encoding="utf-8"), md.name
        assert not [c for c in nb.cells if "requires" in c.metadata], md.with_suffix(".ipynb")
    assert not found, "\n".join(found)
    # the install page's definition lists are bullet lists in both downloads
    install_md = (built_site / "notebooks" / "install.md").read_text(encoding="utf-8")
    assert "\n- **`torch-tensorrt`**: The compiler" in install_md
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
    assert markdown.leftovers(md) == []
    md = md.rstrip("\n") + "\n"
    lines = md.count("\n")
    planted = md + "\n```{install-command} runtime\n```\n\nRead {doc}`install` first.\n"
    assert markdown.leftovers(planted) == [
        (lines + 2, "the directive {install-command}"),
        (lines + 5, "the role {doc}"),
    ]
    nb = nbformat.read(built_site / "notebooks" / "install.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "markdown")
    assert markdown.leftovers(cell.source) == []
    assert (
        markdown.leftovers(cell.source + "\n\n```{data-table} errors\n```\n")[0][1]
        == "the directive {data-table}"
    )

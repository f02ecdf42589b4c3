"""The tables fixture root (tests/roots/test-tables), built in this process:
the tables of data files ({data-table}) and of what each notebook needs
({page-needs}). The save() options table against the installed wheel:
tests/unit/drift/test_drift_options.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from sites import build, copy_root


def rows(page: Path, cls: str) -> list[list[str]]:
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    table = soup.select_one(f"table.{cls}")
    assert table is not None, f"{page.name}: no table.{cls}"
    return [
        [" ".join(td.get_text(" ", strip=True).split()) for td in tr.find_all(["td", "th"])]
        for tr in table.find_all("tr")
    ]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("tables")
    src = copy_root("tables", tmp)
    result = build(src, tmp / "out")
    assert result.returncode == 0, result.log
    return src, tmp / "out"


def test_page_needs_lists_notebooks_in_toc_order(site: tuple[Path, Path]) -> None:
    _, out = site
    table = rows(out / "html" / "tables.html", "trtdocs-page-needs")
    assert table[0] == ["Page", "Code cells", "Need only a CPU", "The other cells need"]
    assert [r[0] for r in table[1:]] == ["Second page", "First page"]
    second, first = table[1:]
    assert second[1:3] == ["3", "1"] and second[3].startswith("2 × Torch-TensorRT with TensorRT")
    assert first[1:] == ["1", "0", "1 × a CUDA GPU"]
    soup = BeautifulSoup((out / "html" / "tables.html").read_text(), "html.parser")
    assert soup.select_one("table.trtdocs-page-needs a")["href"] == "notebooks/second.html"


def test_data_tables_render_markup_and_feature_notes(site: tuple[Path, Path]) -> None:
    _, out = site
    page = out / "html" / "tables.html"
    errors = rows(page, "trtdocs-data-errors")
    assert errors[0] == ["Symptom", "When", "Cause", "Fix", "Feature"]
    # each error links to itself (its own anchor, a headerlink)
    assert errors[1][0].endswith("( reproduced ) \u00b6")
    # a mixed column: each row its state (the row without a feature, nothing); a cell's only
    # note has no parentheses
    assert [r[4] for r in errors[1:]] == ["", "In 2.15, not released"]
    soup = BeautifulSoup(page.read_text(), "html.parser")
    table = soup.select_one("table.trtdocs-data-errors")
    assert table.select_one("a[href='#reproduced-here']") is not None
    assert (
        table.select_one("code") is not None and table.select_one(".trtdocs-feature a") is not None
    )
    assert [tr.get("id") for tr in table.select("tbody tr")] == [
        "error-operator-missing",
        "error-serialize",
    ]
    # code stays code: one literal, which may break after "::" (a <wbr>), never inside a name
    code = table.select_one("tr#error-operator-missing code")
    assert code.get_text("") == "Error::OperatorMissing | pipe" and code.select("wbr")
    assert table.select_one("tr#error-serialize a.headerlink")["href"] == "#error-serialize"
    options_table = rows(page, "trtdocs-data-runtime-options")
    # every row is set from Python from the same release: the table says it once, in its
    # caption, linked to the matrix, and has no such column; the first releases differ, so
    # each row says its own, the documented release's included (a page that teaches a 2.14
    # option calls it 2.14's, never unconfirmed)
    assert options_table[0] == ["Option", "Type", "Default", "Set from C++", "First release"]
    assert [(r[0], r[4]) for r in options_table[1:]] == [
        ("weight_streaming_budget", "In 2.14"),
        ("use_cuda_graphs", "In 2.15, not released"),
    ]
    caption = soup.select_one("table.trtdocs-data-runtime-options caption")
    assert caption is not None
    for link in caption.select("a.headerlink"):
        link.decompose()
    assert " ".join(caption.get_text(" ", strip=True).split()) == (
        "From Python: In 2.15, not released"
    )
    assert caption.select_one("a")["href"].endswith("#feature-runtime-options-python")
    terms = [dt.get_text(strip=True) for dt in soup.select("dl.trtdocs-data-definitions dt")]
    assert terms == ["weight_streaming_budget", "use_cuda_graphs"]


def test_editing_a_data_file_rebuilds_its_page(site: tuple[Path, Path], tmp_path: Path) -> None:
    src, out = site
    copy = tmp_path / "site"
    shutil.copytree(src, copy)
    shutil.copytree(out, tmp_path / "out")
    path = copy / "data" / "errors.toml"
    path.write_text(path.read_text().replace("Export without it.", "Export with no ETRecord."))
    result = build(copy, tmp_path / "out")
    assert result.returncode == 0, result.log
    assert (
        rows(tmp_path / "out" / "html" / "tables.html", "trtdocs-data-errors")[2][3]
        == "Export with no ETRecord."
    )


def test_a_bad_data_file_fails_with_its_path(tmp_path: Path) -> None:
    src = copy_root("tables", tmp_path)
    path = src / "data" / "errors.toml"
    path.write_text(path.read_text().replace('when = "export"\n', ""))
    result = build(src, tmp_path / "out")
    assert result.returncode != 0
    assert "errors.toml: an entry lacks the field 'when'" in result.log
    assert "tables.md" in result.log

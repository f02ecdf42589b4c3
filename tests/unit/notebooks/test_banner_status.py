"""The status banner and the provenance entry of a page: a page with no code
cells gives no run (the jupyter-cache would match another page's), an earlier
build's run is named as such in the downloads' words, and requirements that
read the same are said once (trtdocs.notebooks.banner)."""

from __future__ import annotations

from trtdocs.notebooks.banner import banner, needs_text, provenance, running_time
from trtdocs.notebooks.plan import PagePlan

# what jupyter-cache gives a page with no code cells: the run of another page with none
OTHER_PAGES_RUN = {"mtime": 1_700_000_000.0, "runtime": 2.5}
CPU = {
    "cpu_model": "Test CPU",
    "cpu_count": 2,
    "cuda_available": False,
    "versions": {"torch": "2.14.1"},
}


def test_a_page_without_code_cells_has_no_run() -> None:
    plan = PagePlan((), (), 0, [])
    assert plan.status == "no code cells"
    entry = provenance(plan, None, OTHER_PAGES_RUN)  # type: ignore[arg-type]  # no machine is read
    assert entry["status"] == "no code cells" and entry["code_cells"] == 0
    assert not {"executed_at", "duration_s", "environment"} & entry.keys()
    assert running_time({**entry, "duration_s": 2.5}) is None
    text = banner(plan, entry, "notebooks/overview", blocks={"shell": 2}).astext()
    assert text.startswith("No code cells\n")
    assert "Executed" not in text and "CPU" not in text and "outputs on this page" not in text
    assert "code cells run" not in text  # nothing said of code cells it does not have
    assert "Shown as text, not run in this build: 2 shell blocks." in text
    assert "overview.ipynb, the notebook as written: it has no code cells" in text


def test_needs_says_nothing_of_code_cells_a_page_does_not_have() -> None:
    assert needs_text(PagePlan((), (), 0, []), shown_as_text=True) is None
    assert needs_text(PagePlan((), (), 2, []), shown_as_text=True) == "Its code cells run on a CPU."


def test_an_earlier_builds_run_offers_these_outputs() -> None:
    plan = PagePlan((), (), 2, [])
    entry = {
        "status": "executed",
        "earlier": True,
        "environment": CPU,
        "executed_at": "2026-01-02T03:04:05+00:00",
        "duration_s": 1.0,
    }
    text = banner(plan, entry, "notebooks/a").astext()
    assert text.startswith("Executed in an earlier build")
    assert "a.ipynb, the notebook with these outputs;" in text and "of this build" not in text
    now = banner(plan, {**entry, "earlier": False}, "notebooks/a").astext()
    assert "a.ipynb, the notebook with the outputs of this build;" in now


def test_requirements_that_read_the_same_are_said_once() -> None:
    words = "Torch-TensorRT 2.15 or newer (not released)"
    plan = PagePlan(
        ("cuda",), ("feature:a", "feature:b"), 3, [], needs={"feature:a": words, "feature:b": words}
    )
    assert needs_text(plan) == f"Needs a CUDA GPU, {words}."


def test_the_status_line_holds_no_link() -> None:
    # a <summary> is a control; a link inside it is a control no keyboard or screen reader can
    # use (axe: nested-interactive). The downloads are a line of their own (downloads.row)
    from docutils import nodes

    from trtdocs.notebooks.downloads import row
    from trtdocs.output.folding import download_link, folded_summary

    plan = PagePlan((), (), 2, [])
    entry = {"status": "executed", "environment": CPU, "executed_at": "2026-01-02T03:04:05+00:00"}
    summary = next(banner(plan, entry, "notebooks/a").findall(folded_summary))
    assert summary.astext() == "Executed in this build · Test CPU CPU, no CUDA GPU · 2026-01-02"
    assert not list(summary.findall(nodes.reference)) + list(summary.findall(download_link))
    # planted: the summary as it was, with the downloads in it, is caught
    summary += row("notebooks/a").children
    assert list(summary.findall(download_link))
    assert [n["filename"] for n in row("notebooks/a").findall(download_link)] == ["a.ipynb", "a.md"]

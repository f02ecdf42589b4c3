"""A bad input fails the build where it is, on every build (issue #12).

Each case plants one bad input in a copy of a fixture site and checks the
status and the message (file, line, what to change) on a cold build and on the
incremental build after it (a second build over the same folder, as a second
``make html``). The Makefile's staging and the test harness's own build of the
site are tested in tests/make/.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from paths import ROOTS
from sites import REAL_TABLE, Built, build, copy_root

# Sphinx's crash report, and the exceptions that used to end in it
CRASH_TEXT = (
    "sphinx-doc/sphinx/issues",
    "The full traceback has been saved",
    "DeadKernelError",
    "MystMetadataParsingError",
    "the drift guards failed",
)
HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3
  language: python
  name: python3
{extra}---

# {title}

"""


def _notebook(title: str, *cells: str, extra: str = "") -> str:
    return HEADER.format(title=title, extra=extra) + "\n".join(
        f"```{{code-cell}} ipython3\n{c}\n```\n" for c in cells
    )


def _site(tmp_path: Path, keep: tuple[str, ...] = ()) -> Path:
    """The gating fixture with only the notebooks named in ``keep``."""
    site = copy_root("gating", tmp_path)
    for nb in (site / "notebooks").glob("*.md"):
        if nb.name not in keep:
            nb.unlink()
    return site


def _twice(site: Path, out: Path, **kw) -> list[Built]:
    """A cold build and the incremental one after it: both fail; their results."""
    builds = []
    for _ in range(2):
        result = build(site, out, **kw)
        assert result.returncode != 0, result.log
        assert not any(c in result.log for c in CRASH_TEXT), result.log
        builds.append(result)
    return builds


def test_an_error_while_reading_holds_until_fixed(tmp_path: Path) -> None:
    site = _site(tmp_path)
    page = site / "notebooks" / "note.md"
    page.write_text("# Note\n\nText.\n\n```{feature-note} no-such-feature\n```\n")
    for result in _twice(site, tmp_path / "_build"):
        assert (
            len(result.errors("notebooks/note.md:6: ERROR: unknown feature 'no-such-feature'")) == 1
        ), result.log
    page.write_text("# Note\n\nText.\n")
    result = build(site, tmp_path / "_build")
    assert result.returncode == 0, result.log
    assert build(site, tmp_path / "_build").returncode == 0


def test_a_stale_record_is_an_error_in_ci_where_the_page_executes(tmp_path: Path) -> None:
    site = _site(tmp_path, keep=("recordable.md",))
    nb = site / "notebooks" / "recordable.md"
    result = build(site, tmp_path / "rec", trtdocs_record=True)
    assert result.returncode == 0, result.log
    assert (site / "notebooks" / "_recorded" / "notebooks__recordable.ipynb").is_file()
    nb.write_text(nb.read_text().replace("6 * 7", "6 * 8"))  # the page still executes here
    message = (
        "notebooks/recordable.md:1: ERROR: stale record "
        "notebooks/_recorded/notebooks__recordable.ipynb"
    )
    for env in ({"CI": "true"}, {"REQUIRE_ALL": "1"}):
        out = tmp_path / f"b-{next(iter(env))}"
        for result in _twice(site, out, env=env, strict=False):
            assert len(result.errors(message)) == 1, result.log
            assert "run `make record`" in result.log
    # Elsewhere a warning, which the strict build (-W) turns into a failure.
    result = build(site, tmp_path / "b-local", strict=False)
    assert result.returncode == 0, result.log
    assert "WARNING: stale record" in result.log
    result = build(site, tmp_path / "b-local")
    assert result.returncode != 0 and "stale record" in result.log


def test_execution_failures_name_the_cell_and_what_to_change(tmp_path: Path) -> None:
    site = _site(tmp_path)
    notebooks = site / "notebooks"
    (notebooks / "dead.md").write_text(_notebook("Dead", "x = 1", "import os\nos._exit(1)"))
    (notebooks / "slow.md").write_text(
        _notebook(
            "Slow",
            "x = 1",
            "import time\ntime.sleep(60)",
            extra="mystnb:\n  execution_timeout: 3\n",
        )
    )
    (notebooks / "slowconf.md").write_text(_notebook("Slow too", "import time\ntime.sleep(60)"))
    (notebooks / "hidden.md").write_text(
        _notebook("Hidden", "x = 1", ":tags: [remove-cell]\nraise RuntimeError('hidden failure')")
    )
    out = tmp_path / "_build"
    # slowconf.md sets no timeout of its own: conf.py's applies
    for result in _twice(site, out, nb_execution_timeout=2):
        assert (
            len(
                result.errors(
                    "notebooks/dead.md:19: ERROR: the kernel died while the code cell at "
                    "line 19 (cell 2) ran"
                )
            )
            == 1
        ), result.log
        assert (
            len(
                result.errors(
                    "notebooks/slow.md:21: ERROR: the code cell at line 21 (cell 2) ran "
                    "longer than the execution timeout of 3 s, set by `mystnb: "
                    "execution_timeout:` in this page's front matter"
                )
            )
            == 1
        ), result.log
        assert (
            len(
                result.errors(
                    "notebooks/slowconf.md:15: ERROR: the code cell at line 15 (cell 1) ran "
                    "longer than the execution timeout of 2 s, set by "
                    "`nb_execution_timeout` in conf.py"
                )
            )
            == 1
        ), result.log
        hidden = result.errors(
            "notebooks/hidden.md:19: ERROR: the code cell at line 19 (cell 2) raised "
            "RuntimeError: hidden failure. The cell is tagged `remove-cell`"
        )
        assert len(hidden) == 1 and "tag the cell `raises-exception`" in hidden[0], result.log
    page = result.html("notebooks/dead")
    assert "This page failed to build" in page.select_one(".admonition.error").get_text()


BROKEN_FRONT_MATTER = {
    # page: (what to do to gated.md's front matter, file line, message)
    "bracket": (
        lambda t: t.replace("  name: python3\n", "  name: python3\nrequires: [cuda\n"),
        11,
        "is not valid YAML: while parsing a flow sequence; expected ',' or ']'",
    ),
    "unclosed": (
        lambda t: t.replace("  name: python3\n---\n", "  name: python3\n"),
        1,
        "the front matter that `---` opens on line 1 is never closed: add a line `---`",
    ),
    "alias": (
        lambda t: t.replace("  name: python3\n", "  name: python3\nother: *nowhere\n"),
        11,
        "is not valid YAML: found undefined alias 'nowhere' at line 11",
    ),
}


def test_broken_front_matter_is_named_for_its_page_at_its_file_line(tmp_path: Path) -> None:
    site = _site(tmp_path)
    source = (ROOTS / "test-gating" / "notebooks" / "gated.md").read_text()
    for name, (plant, _, _) in BROKEN_FRONT_MATTER.items():
        (site / "notebooks" / f"{name}.md").write_text(plant(source))
    for result in _twice(site, tmp_path / "_build", trtdocs_disable="cuda"):
        for name, (_, line, message) in BROKEN_FRONT_MATTER.items():
            found = result.errors(f"notebooks/{name}.md:{line}: ERROR: ")
            assert len(found) == 1 and message in found[0], result.log
    for name in BROKEN_FRONT_MATTER:  # never rendered as plain Markdown, nothing executed
        page = result.html(f"notebooks/{name}")
        assert "its front matter is broken" in page.select_one(".admonition.error").get_text()
        assert "gated-cell-ran" not in page.get_text()
    assert not list((tmp_path / "_build").rglob("gated-cell-ran.txt"))


def test_an_unknown_feature_in_requires_is_one_error_with_file_and_line(tmp_path: Path) -> None:
    site = _site(tmp_path, keep=("gated.md",))
    gated = site / "notebooks" / "gated.md"
    # the first :requires: is a code cell's (line 23); the second a {code-block}'s (line 40)
    gated.write_text(
        gated.read_text().replace(":requires: [cuda]", ':requires: ["feature:no-such-id"]', 1)
    )
    parts = ["myst_nb", "trtdocs.notebooks", "trtdocs.failures", "trtdocs.drift"]
    for result in _twice(site, tmp_path / "_build", extensions=parts):
        mentions = [ln for ln in result.log.splitlines() if "no-such-id" in ln]
        assert len(mentions) == 1, result.log
        assert "notebooks/gated.md:23: ERROR: unknown feature 'no-such-id'" in mentions[0]
    # The guards on their own (python -m trtdocs.drift, the tests) report it as a violation.
    from trtdocs.drift.run import run_guards

    report = run_guards(site, table_path=REAL_TABLE, guards=("api",))
    found = [v for v in report.violations if v.rule == "requires"]
    assert [(v.path, v.cell) for v in found] == [("notebooks/gated.md", 2)]
    assert "unknown feature 'no-such-id'" in found[0].message


_VARIABLE = [
    re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\+00:00|Z)?"),  # executed_at
    re.compile(r"(\bin |\"duration_s\": )\d+(\.\d+)? ?s?"),  # durations
    re.compile(r"\d+ min \d+(\.\d+)? s"),  # the page's total running time
]


def _masked(html: Path) -> dict[str, str]:
    files = {}
    for path in sorted(html.rglob("*")):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            for pattern in _VARIABLE:
                text = pattern.sub("<masked>", text)
            files[path.relative_to(html).as_posix()] = text
    return files


def test_two_cold_builds_are_identical_but_for_times(tmp_path: Path) -> None:
    site = copy_root("gating", tmp_path)
    builds = []
    for _ in range(2):
        shutil.rmtree(tmp_path / "_build", ignore_errors=True)
        result = build(site, tmp_path / "_build", trtdocs_disable="cuda")
        assert result.returncode == 0, result.log
        builds.append(_masked(result.outdir))
    first, second = builds
    assert sorted(first) == sorted(second)
    differ = [name for name in first if first[name] != second[name]]
    assert differ == [], differ
    assert "<masked>" in first["provenance.json"]


def test_an_unknown_feature_on_a_text_block_is_one_error_with_file_and_line(tmp_path: Path) -> None:
    site = _site(tmp_path, keep=("gated.md",))
    gated = site / "notebooks" / "gated.md"
    text = gated.read_text()
    at = text.index(":requires: [cuda]", text.index(":requires: [cuda]") + 1)  # the {code-block}'s
    gated.write_text(
        text[:at] + ':requires: ["feature:no-such-id"]' + text[at + len(":requires: [cuda]") :]
    )
    parts = ["myst_nb", "trtdocs.notebooks", "trtdocs.failures", "trtdocs.drift"]
    for result in _twice(site, tmp_path / "_build", extensions=parts):
        mentions = [ln for ln in result.log.splitlines() if "no-such-id" in ln]
        assert len(mentions) == 1, result.log
        assert (
            "notebooks/gated.md:40: ERROR: :requires: unknown feature 'no-such-id'" in mentions[0]
        )
        assert "keeps the directive" not in result.log, result.log

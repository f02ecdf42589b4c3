"""A bad input fails the build where it is, on every build (issue #12).

Each case plants one bad input in a copy of a fixture site and checks the exit
status and the message (file, line, what to change) on a cold build and on the
incremental build after it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from sitebuild import REPO, copy_fixture, log, sphinx_build

pytestmark = pytest.mark.build

# Sphinx's crash report, and the exceptions that used to end in it
CRASH_TEXT = ("sphinx-doc/sphinx/issues", "The full traceback has been saved", "DeadKernelError",
              "MystMetadataParsingError", "the drift guards failed")
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
        f"```{{code-cell}} ipython3\n{c}\n```\n" for c in cells)


def _site(tmp_path: Path, keep: tuple[str, ...] = ()) -> Path:
    """The foundation fixture with only the notebooks named in ``keep``."""
    site = copy_fixture("foundation-site", tmp_path)
    for nb in (site / "notebooks").glob("*.md"):
        if nb.name not in keep:
            nb.unlink()
    return site


def _text(result: subprocess.CompletedProcess[str]) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", log(result))


def _errors(text: str, needle: str) -> list[str]:
    return [ln for ln in text.splitlines() if needle in ln and "ERROR" in ln]


def _twice(site: Path, out: Path, *args: str, **kw) -> list[str]:
    """A cold build and the incremental one after it: both fail; their logs."""
    logs = []
    for _ in range(2):
        result = sphinx_build(site, out, *args, **kw)
        text = _text(result)
        assert result.returncode != 0, text
        assert not any(c in text for c in CRASH_TEXT), text
        logs.append(text)
    return logs


def test_an_error_while_reading_holds_until_fixed(tmp_path: Path) -> None:
    site = _site(tmp_path)
    page = site / "notebooks" / "note.md"
    page.write_text("# Note\n\nText.\n\n```{feature-note} no-such-feature\n```\n")
    for text in _twice(site, tmp_path / "_build"):
        assert len(_errors(text, "notebooks/note.md:6: ERROR: unknown feature 'no-such-feature'")) == 1, text
    page.write_text("# Note\n\nText.\n")
    result = sphinx_build(site, tmp_path / "_build")
    assert result.returncode == 0, log(result)
    assert sphinx_build(site, tmp_path / "_build").returncode == 0


def test_a_stale_record_is_an_error_in_ci_where_the_page_executes(tmp_path: Path) -> None:
    site = _site(tmp_path, keep=("recordable.md",))
    nb = site / "notebooks" / "recordable.md"
    result = sphinx_build(site, tmp_path / "rec", env={"TRTDOCS_RECORD": "1"})
    assert result.returncode == 0, log(result)
    assert (site / "notebooks" / "_recorded" / "notebooks__recordable.ipynb").is_file()
    nb.write_text(nb.read_text().replace("6 * 7", "6 * 8"))  # the page still executes here
    message = "notebooks/recordable.md:1: ERROR: stale record notebooks/_recorded/notebooks__recordable.ipynb"
    for env in ({"CI": "true"}, {"REQUIRE_ALL": "1"}):
        out = tmp_path / f"b-{next(iter(env))}"
        for text in _twice(site, out, env=env, strict=False):
            assert len(_errors(text, message)) == 1, text
            assert "run `make record`" in text
    # Elsewhere a warning, which the strict build (-W) turns into a failure.
    result = sphinx_build(site, tmp_path / "b-local", strict=False)
    assert result.returncode == 0, log(result)
    assert "WARNING: stale record" in log(result)
    result = sphinx_build(site, tmp_path / "b-local")
    assert result.returncode != 0 and "stale record" in log(result)


def test_the_real_site_build_keeps_ci_and_require_all(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """tests/conftest.py's build of the real site sees CI and REQUIRE_ALL."""
    import conftest

    probe = tmp_path / "conf.py"
    probe.write_text("import os\nprint('CI=' + os.environ.get('CI', '-'), 'RA=' + os.environ.get('REQUIRE_ALL', '-'))\n"
                     "extensions = []\n")
    (tmp_path / "index.rst").write_text("Probe\n=====\n")
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("REQUIRE_ALL", "1")
    kept = sphinx_build(tmp_path, tmp_path / "k", keep_env=conftest.STRICTNESS)
    dropped = sphinx_build(tmp_path, tmp_path / "d")
    assert "CI=true RA=1" in kept.stdout
    assert "CI=- RA=-" in dropped.stdout


def test_execution_failures_name_the_cell_and_what_to_change(tmp_path: Path) -> None:
    site = _site(tmp_path)
    notebooks = site / "notebooks"
    (notebooks / "dead.md").write_text(_notebook("Dead", "x = 1", "import os\nos._exit(1)"))
    (notebooks / "slow.md").write_text(_notebook("Slow", "x = 1", "import time\ntime.sleep(60)",
                                                 extra="mystnb:\n  execution_timeout: 3\n"))
    (notebooks / "slowconf.md").write_text(_notebook("Slow too", "import time\ntime.sleep(60)"))
    (notebooks / "hidden.md").write_text(_notebook("Hidden", "x = 1",
                                                   ":tags: [remove-cell]\nraise RuntimeError('hidden failure')"))
    out = tmp_path / "_build"
    # slowconf.md sets no timeout of its own: conf.py's applies
    for text in _twice(site, out, "-D", "nb_execution_timeout=2"):
        assert len(_errors(text, "notebooks/dead.md:19: ERROR: the kernel died while the code cell at "
                                 "line 19 (cell 2) ran")) == 1, text
        assert len(_errors(text, "notebooks/slow.md:21: ERROR: the code cell at line 21 (cell 2) ran "
                                 "longer than the execution timeout of 3 s, set by `mystnb: "
                                 "execution_timeout:` in this page's front matter")) == 1, text
        assert len(_errors(text, "notebooks/slowconf.md:15: ERROR: the code cell at line 15 (cell 1) ran "
                                 "longer than the execution timeout of 2 s, set by "
                                 "`nb_execution_timeout` in conf.py")) == 1, text
        hidden = _errors(text, "notebooks/hidden.md:19: ERROR: the code cell at line 19 (cell 2) raised "
                               "RuntimeError: hidden failure. The cell is tagged `remove-cell`")
        assert len(hidden) == 1 and "tag the cell `raises-exception`" in hidden[0], text
    page = BeautifulSoup((out / "html" / "notebooks" / "dead.html").read_text(), "html.parser")
    assert "This page failed to build" in page.select_one(".admonition.error").get_text()


BROKEN_FRONT_MATTER = {
    # page: (what to do to gated.md's front matter, file line, message)
    "bracket": (lambda t: t.replace("  name: python3\n", "  name: python3\nrequires: [cuda\n"), 11,
                "is not valid YAML: while parsing a flow sequence; expected ',' or ']'"),
    "unclosed": (lambda t: t.replace("  name: python3\n---\n", "  name: python3\n"), 1,
                 "the front matter that `---` opens on line 1 is never closed: add a line `---`"),
    "alias": (lambda t: t.replace("  name: python3\n", "  name: python3\nother: *nowhere\n"), 11,
              "is not valid YAML: found undefined alias 'nowhere' at line 11"),
}


def test_broken_front_matter_is_named_for_its_page_at_its_file_line(tmp_path: Path) -> None:
    site = _site(tmp_path)
    source = (REPO / "tests" / "fixtures" / "foundation-site" / "notebooks" / "gated.md").read_text()
    for name, (plant, _, _) in BROKEN_FRONT_MATTER.items():
        (site / "notebooks" / f"{name}.md").write_text(plant(source))
    for text in _twice(site, tmp_path / "_build", env={"TRTDOCS_DISABLE": "cuda"}):
        for name, (_, line, message) in BROKEN_FRONT_MATTER.items():
            found = _errors(text, f"notebooks/{name}.md:{line}: ERROR: ")
            assert len(found) == 1 and message in found[0], text
    for name in BROKEN_FRONT_MATTER:  # never rendered as plain Markdown, nothing executed
        page = BeautifulSoup((tmp_path / "_build" / "html" / "notebooks" / f"{name}.html").read_text(),
                             "html.parser")
        assert "its front matter is broken" in page.select_one(".admonition.error").get_text()
        assert "gated-cell-ran" not in page.get_text()


def test_an_unknown_feature_in_requires_is_one_error_with_file_and_line(tmp_path: Path) -> None:
    site = _site(tmp_path, keep=("gated.md",))
    conf = site / "conf.py"
    conf.write_text(conf.read_text().replace('extensions = ["myst_nb", "trtdocs"]',
                                             'extensions = ["myst_nb", "trtdocs", "trtdocs.drift"]'))
    gated = site / "notebooks" / "gated.md"
    gated.write_text(gated.read_text().replace(":requires: [cuda]", ':requires: ["feature:no-such-id"]'))
    for text in _twice(site, tmp_path / "_build"):
        mentions = [ln for ln in text.splitlines() if "no-such-id" in ln]
        assert len(mentions) == 1, text
        assert "notebooks/gated.md:22: ERROR: unknown feature 'no-such-id'" in mentions[0]
    # The guards on their own (python -m trtdocs.drift, the tests) report it as a violation.
    from trtdocs.drift.run import run_guards

    report = run_guards(site, table_path=REPO / "docs" / "features.toml", guards=("api",))
    found = [v for v in report.violations if v.rule == "requires"]
    assert [(v.path, v.cell) for v in found] == [("notebooks/gated.md", 2)]
    assert "unknown feature 'no-such-id'" in found[0].message


def _make_html(site: Path, builddir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "REQUIRE_ALL", "TRTDOCS_RECORD")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "docs" / "_ext"), env.get("PYTHONPATH")]))
    return subprocess.run(
        ["make", "-s", "-C", str(REPO), "html", f"SOURCEDIR={site}", f"BUILDDIR={builddir}",
         f"VENV={sys.prefix}", "DOT=/bin/true", "SPHINXOPTS="],
        capture_output=True, text=True, env=env, timeout=900)


def test_a_failed_make_html_leaves_the_last_good_site_untouched(tmp_path: Path) -> None:
    site = _site(tmp_path)
    page = site / "notebooks" / "note.md"
    page.write_text("# Note\n\nGood text.\n")
    builddir = tmp_path / "_build"
    result = _make_html(site, builddir)
    assert result.returncode == 0, log(result)
    good = (builddir / "html" / "notebooks" / "note.html").read_bytes()
    assert b"Good text." in good
    page.write_text("# Note\n\nBad text.\n\n```{feature-note} no-such-feature\n```\n")
    for _ in range(2):  # cold for this page, then incremental
        result = _make_html(site, builddir)
        assert result.returncode != 0
        assert "notebooks/note.md:6: ERROR: unknown feature 'no-such-feature'" in log(result)
        assert "the build FAILED" in result.stderr and "still holds the last good site" in result.stderr
        assert (builddir / "html" / "notebooks" / "note.html").read_bytes() == good
        assert b"Bad text." in (builddir / "html.failed" / "notebooks" / "note.html").read_bytes()
    page.write_text("# Note\n\nFixed text.\n")
    result = _make_html(site, builddir)
    assert result.returncode == 0, log(result)
    assert b"Fixed text." in (builddir / "html" / "notebooks" / "note.html").read_bytes()
    assert not (builddir / "html.failed").exists() and not (builddir / "html.next").exists()


def test_a_failed_site_build_fails_make_test_once(tmp_path: Path) -> None:
    """The tests that need the site skip and point at the one test that fails."""
    site = _site(tmp_path)
    (site / "notebooks" / "note.md").write_text("# Note\n\n```{feature-note} no-such-feature\n```\n")
    env = {k: v for k, v in os.environ.items() if k not in ("TRTDOCS_BUILT_SITE", "PYTEST_ADDOPTS")}
    env["TRTDOCS_SITE_SOURCE"] = str(site)
    tests = REPO / "tests" / "test_site.py"

    def pytest_run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                               str(tests), *args], cwd=REPO, capture_output=True, text=True,
                              env=env, timeout=900)

    result = pytest_run()
    out = result.stdout
    assert result.returncode == 1, out
    assert re.search(r"\b1 failed\b", out) and re.search(r"\b\d+ skipped\b", out), out
    assert "passed" not in out.splitlines()[-1], out
    assert out.count("unknown feature 'no-such-feature'") == 1, out
    assert "needs the built site, and its strict build failed: see " \
           "tests/test_site.py::test_the_site_builds_strictly" in out
    # Without the build test in the session, the session still fails, once.
    result = pytest_run("-k", "not builds_strictly")
    assert result.returncode == 1, result.stdout
    assert result.stdout.count("unknown feature 'no-such-feature'") == 1, result.stdout
    assert "site build failed" in result.stdout


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
    site = copy_fixture("foundation-site", tmp_path)
    builds = []
    for _ in range(2):
        shutil.rmtree(tmp_path / "_build", ignore_errors=True)
        for ran in (site / "notebooks").glob("*-ran.txt"):
            ran.unlink()
        result = sphinx_build(site, tmp_path / "_build", env={"TRTDOCS_DISABLE": "cuda"})
        assert result.returncode == 0, log(result)
        builds.append(_masked(tmp_path / "_build" / "html"))
    first, second = builds
    assert sorted(first) == sorted(second)
    differ = [name for name in first if first[name] != second[name]]
    assert differ == [], differ
    assert "<masked>" in first["provenance.json"]

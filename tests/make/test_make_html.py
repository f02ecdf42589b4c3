"""`make html`'s staging: a failed build leaves the last good site untouched,
and two builds of one checkout at once (an editor's watcher beside a manual
build) take turns, so neither loses the site."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from paths import EXT, ROOT
from sites import REAL_TABLE, copy_root


def _make_html(
    site: Path, builddir: Path, *options: str, stdout=subprocess.PIPE
) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "REQUIRE_ALL", "TRTDOCS_RECORD")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(EXT), env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [
            "make",
            "-s",
            "-C",
            str(ROOT),
            "html",
            f"SOURCEDIR={site}",
            f"BUILDDIR={builddir}",
            f"VENV={sys.prefix}",
            "DOT=/bin/true",
            f"SPHINXOPTS=-D trtdocs_features_file={REAL_TABLE}",
            *options,
        ],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _run(site: Path, builddir: Path, *options: str) -> tuple[int, str, str]:
    proc = _make_html(site, builddir, *options)
    out, err = proc.communicate(timeout=900)
    return proc.returncode, out, err


def test_a_failed_make_html_leaves_the_last_good_site_untouched(tmp_path: Path) -> None:
    site = copy_root("gating", tmp_path)
    for nb in (site / "notebooks").glob("*.md"):
        nb.unlink()
    page = site / "notebooks" / "note.md"
    page.write_text("# Note\n\nGood text.\n")
    builddir = tmp_path / "_build"
    code, out, err = _run(site, builddir)
    assert code == 0, out + err
    good = (builddir / "html" / "notebooks" / "note.html").read_bytes()
    assert b"Good text." in good
    page.write_text("# Note\n\nBad text.\n\n```{feature-note} no-such-feature\n```\n")
    for _ in range(2):  # cold for this page, then incremental
        code, out, err = _run(site, builddir)
        assert code != 0
        assert "notebooks/note.md:6: ERROR: unknown feature 'no-such-feature'" in out + err
        assert "the build FAILED" in err and "still holds the last good site" in err
        assert (builddir / "html" / "notebooks" / "note.html").read_bytes() == good
        assert b"Bad text." in (builddir / "html.failed" / "notebooks" / "note.html").read_bytes()
    page.write_text("# Note\n\nFixed text.\n")
    code, out, err = _run(site, builddir)
    assert code == 0, out + err
    assert b"Fixed text." in (builddir / "html" / "notebooks" / "note.html").read_bytes()
    assert not (builddir / "html.failed").exists() and not (builddir / "html.next").exists()


# A stand-in for sphinx-build: notes in one log, in the order they happen, that
# it starts and ends, and writes a page into its output folder (the last argument). The first build
# to start holds until the test creates $TRTDOCS_FAKE_GO, so the other one meets its lock.
FAKE_SPHINX = textwrap.dedent("""\
    #!/bin/sh
    for out; do :; done
    echo "start $$" >> "$TRTDOCS_FAKE_LOG"
    n=0
    while [ ! -e "$TRTDOCS_FAKE_GO" ] && [ $n -lt 1200 ]; do sleep 0.1; n=$((n + 1)); done
    mkdir -p "$out" && echo "built by $$" > "$out/index.html"
    echo "end $$" >> "$TRTDOCS_FAKE_LOG"
    """)


def _wait_for(what: str, found, timeout: float = 120.0) -> None:  # found: a predicate
    deadline = time.monotonic() + timeout
    while not found():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_two_builds_at_once_take_turns_and_leave_the_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "sphinx-build"
    fake.write_text(FAKE_SPHINX)
    fake.chmod(0o755)
    log = tmp_path / "runs.log"
    go = tmp_path / "go"
    monkeypatch.setenv("TRTDOCS_FAKE_LOG", str(log))
    monkeypatch.setenv("TRTDOCS_FAKE_GO", str(go))
    builddir = tmp_path / "_build"
    first = _make_html(tmp_path, builddir, f"SPHINXBUILD={fake}")
    _wait_for("the first build to start", lambda: log.is_file() and "start" in log.read_text())
    said = tmp_path / "second.out"
    with said.open("w") as out:
        second = _make_html(tmp_path, builddir, f"SPHINXBUILD={fake}", stdout=out)
        _wait_for("the second build to wait", lambda: "waits for it" in said.read_text())
        assert log.read_text().count("start") == 1  # the second has not started its build
        go.touch()
        results = [p.communicate(timeout=120) + (p.returncode,) for p in (first, second)]
    for out_text, err, code in results:
        assert code == 0, (out_text or "") + err
    # the log's order, not a clock: one build starts and ends, then the other
    runs = [tuple(line.split()) for line in log.read_text().splitlines()]
    assert [what for what, _ in runs] == ["start", "end", "start", "end"], (
        f"the builds overlapped: {runs}"
    )
    assert runs[0][1] == runs[1][1] != runs[2][1] == runs[3][1], runs
    assert (builddir / "html" / "index.html").read_text().startswith("built by ")
    assert not (builddir / "html.next").exists() and not (builddir / "html.old").exists()

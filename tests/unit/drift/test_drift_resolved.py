"""Install commands resolved by pip's resolver (drift/resolve.py, drift/resolved.py):
pip's outcomes classified, the versions checked against the pins, the day's
cache, and the pages' commands. The resolver is a parameter: these tests hand
it a resolution made from a report of pip's ``--report`` format; the network
tests (test_drift_resolve_network.py) run the real one."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from paths import ROOT
from trtdocs.drift import resolve, resolved
from trtdocs.features.validate import load as load_features
from trtdocs.pages.commands import parse_command

REAL_TABLE = ROOT / "docs" / "features.toml"
DAY = "2026-12-04"


@pytest.fixture(scope="module")
def table():
    return load_features(REAL_TABLE)


def _shown(
    text: str, path: str = "notebooks/page.md", release: str | None = None, **marks: bool
) -> resolved.Shown:
    (cmd,), problems = parse_command(text, path, 7, release=release)
    assert problems == []
    if marks:
        import dataclasses

        cmd = dataclasses.replace(cmd, **marks)
    return resolved.Shown(cmd, text)


def _report(**versions: str) -> dict:
    """A report in pip's --report format (version 1): what pip would install."""
    return {
        "version": "1",
        "install": [
            {"metadata": {"name": n.replace("_", "-"), "version": v}} for n, v in versions.items()
        ],
    }


def _resolved(**versions: str) -> resolve.Resolution:
    return resolve.classify(
        0,
        "",
        _report(**versions),
        probe=lambda url: None,
        resolver="pip 26.3",
        target="CPython 3.11, Linux x86_64",
        day=DAY,
    )


def _rules(shown, found, table) -> list[str]:
    return [v.rule for v in resolved.check(shown, found, table)[0]]


# -- pip's outcomes ------------------------------------------------------------


def test_a_report_gives_canonical_names_and_versions():
    report = _report(torch="2.14.1", executorch="1.4.1", PyYAML="6.0.4")
    assert resolve.report_versions(report) == {
        "torch": "2.14.1",
        "executorch": "1.4.1",
        "pyyaml": "6.0.4",
    }


STUB_FAILURE = """\
Collecting torch<2.15.0,>=2.14.0 (from torch-tensorrt==2.14.0)
  Obtaining dependency information from torch 2.14.1
Collecting tensorrt-cu13-libs<11.2.0,>=11.1.0 (from torch-tensorrt==2.14.0)
  Downloading tensorrt_cu13_libs-11.1.0.106.tar.gz (15 kB)
  This is a special placeholder package which downloads a real wheel package
  from https://stub-index.invalid/. If https://stub-index.invalid/ is not reachable, we
  cannot download the real wheel file to install.
error: metadata-generation-failed

× Encountered error while generating package metadata.
╰─> tensorrt-cu13-libs
"""


def test_a_metadata_step_that_needs_an_unreachable_host_is_unreachable_not_failed():
    found = resolve.classify(1, STUB_FAILURE, None, probe=lambda url: "Name or service not known")
    assert found.status == resolve.UNREACHABLE and found.stopped_at == "tensorrt-cu13-libs"
    assert "https://stub-index.invalid/" in found.reason
    assert found.provisional == {"torch": "2.14.1", "tensorrt-cu13-libs": "11.1.0.106"}


def test_a_metadata_step_that_fails_with_every_host_answering_is_a_failure():
    found = resolve.classify(1, STUB_FAILURE, None, probe=lambda url: None)
    assert found.status == resolve.FAILED and found.stopped_at == "tensorrt-cu13-libs"


def test_no_matching_version_and_a_conflict_are_failures():
    none = resolve.classify(
        1, "ERROR: No matching distribution found for torch_tensorrt>=2.15\n", None
    )
    assert (none.status, none.stopped_at, none.cause) == (
        resolve.FAILED,
        "torch_tensorrt>=2.15",
        "no-version",
    )
    assert resolve.settled(none)
    conflict = resolve.classify(
        1,
        "ERROR: ResolutionImpossible\nThe conflict is caused by:\n"
        "    a 1.0 depends on b==1\n    c 2.0 depends on b==2\n\n",
        None,
    )
    assert conflict.status == resolve.FAILED and "a 1.0 depends on b==1" in conflict.reason


def test_an_unreachable_index_is_marked_without_running_pip(tmp_path: Path, table):
    # .invalid never resolves (RFC 2606): the probe fails before pip is run
    shown = _shown('pip install "torch==2.14.*" --index-url https://index.invalid/simple')

    def resolver(args, urls):
        found = resolve.resolve(args, urls)
        assert found.seconds == 0.0, found  # pip did not run: no time taken
        return found

    found = resolved.resolution(shown, tmp_path, resolver=resolver)
    assert (
        found.status == resolve.UNREACHABLE
        and "index unreachable: https://index.invalid/simple" in found.reason
    )
    violations, text = resolved.check(shown, found, table)
    assert violations == [] and "not resolved: index unreachable" in text


def test_a_page_command_loses_the_options_a_dry_run_replaces():
    (cmd,), _ = parse_command(
        'pip install --no-deps --target "$HOME/x" -q "executorch==1.5.1"', "p", 1
    )
    assert resolve.pip_args(cmd.args) == ["--no-deps", "executorch==1.5.1"]
    assert resolve.pip_args(["--target=/x", "--user", "torch"]) == ["torch"]


def test_the_resolver_runs_without_pip_configuration():
    env = resolve.clean_env()
    assert env["PIP_CONFIG_FILE"] == "/dev/null"
    assert not [k for k in env if k.startswith("PIP_") and k != "PIP_CONFIG_FILE"]


# -- the versions against the pins -----------------------------------------------


def test_a_resolution_inside_the_pins_passes(table):
    shown = _shown(
        'pip install "torch-tensorrt[executorch]==2.14.0" '
        '"torch-tensorrt-executorch-runtime==0.1.0"'
    )
    found = _resolved(
        torch="2.14.1",
        torch_tensorrt="2.14.0",
        executorch="1.4.1",
        torch_tensorrt_executorch_runtime="0.1.0",
        tensorrt_cu13="11.1.0.106",
    )
    violations, text = resolved.check(shown, found, table)
    assert violations == []
    assert "torch-tensorrt 2.14.0" in text and "inside release 2.14's pins" in text


def test_planted_a_command_without_the_runtime_that_resolves_executorch_1_5_fails(table):
    # the static guard passes it (the extra allows executorch >=1.4.1,<1.5 and nothing pins it);
    # a resolution that gives executorch 1.5.1 (a looser extra, a yanked 1.4.x) leaves the pins
    shown = _shown(
        'pip install "torch-tensorrt[executorch]==2.14.0"', release="2.14", export_only=True
    )
    found = _resolved(torch="2.14.1", torch_tensorrt="2.14.0", executorch="1.5.1")
    violations, text = resolved.check(shown, found, table)
    assert [v.rule for v in violations] == ["resolved-pins"]
    assert "executorch 1.5.1" in violations[0].message and "==1.4.1" in violations[0].message
    assert (violations[0].path, violations[0].line) == ("notebooks/page.md", 7)
    assert "outside release 2.14's pins" in text


def test_a_torch_outside_the_range_fails_and_a_local_label_does_not(table):
    shown = _shown('pip install "torch==2.14.*"')
    assert _rules(shown, _resolved(torch="2.15.0"), table) == ["resolved-pins"]
    assert _rules(shown, _resolved(torch="2.14.1+cpu"), table) == []


def test_a_failed_resolution_fails_the_page(table):
    shown = _shown('pip install "torch-tensorrt==2.14.0" "torch==2.13.*"')
    found = resolve.classify(1, "ERROR: ResolutionImpossible\n", None)
    assert _rules(shown, found, table) == ["resolves"]


def test_a_described_release_is_marked_until_it_is_published(table):
    shown = _shown('pip install "torch_tensorrt[executorch]>=2.15"', release="2.15")
    missing = resolve.classify(
        1, "ERROR: No matching distribution found for torch_tensorrt>=2.15\n", None
    )
    violations, text = resolved.check(shown, missing, table)
    assert violations == [] and "release 2.15 is described, not published" in text
    assert _rules(shown, _resolved(torch_tensorrt="2.15.0", torch="2.15.0"), table) == [
        "resolved-published"
    ]


def test_a_cxx_package_command_is_held_to_the_cxx_package(table):
    from trtdocs.notebooks import cxxsdk

    version = cxxsdk.sdk_version()
    if version is None:
        pytest.skip("no ExecuTorch C++ package in this venv (cxx/)")
    shown = _shown(
        f'pip install --no-deps --target "$HOME/x" "executorch=={version}"', cxx_package=True
    )
    assert _rules(shown, _resolved(executorch=version), table) == []
    assert _rules(shown, _resolved(executorch="1.4.1"), table) == ["resolved-cxx"]


def test_uv_and_windows_commands_are_marked_not_resolved(tmp_path: Path, table):
    calls: list[tuple] = []
    uv = _shown('uv pip install "torch==2.14.*"')
    found = resolved.resolution(uv, tmp_path, resolver=lambda *a: calls.append(a))
    assert found.status == resolve.NOT_RESOLVED and calls == []
    assert resolved.check(uv, found, table)[0] == []


# -- the day's cache ---------------------------------------------------------------


def test_a_resolution_is_kept_for_its_day_only(tmp_path: Path):
    calls: list[tuple] = []

    def resolver(args, urls):
        calls.append(tuple(args))
        return _resolved(torch="2.14.1")

    shown = _shown('pip install "torch==2.14.*"')
    first = resolved.resolution(shown, tmp_path, resolver=resolver, day=DAY)
    again = resolved.resolution(shown, tmp_path, resolver=resolver, day=DAY)
    assert first == again and len(calls) == 1
    resolved.resolution(
        shown, tmp_path, resolver=resolver, day="2026-12-05"
    )  # a new day asks again
    resolved.resolution(shown, tmp_path, resolver=resolver, day=DAY, fresh=True)  # the weekly job
    assert len(calls) == 3
    kept = [json.loads(p.read_text()) for p in tmp_path.glob("*.json")]
    assert len(kept) == 2 and all(k["versions"] == {"torch": "2.14.1"} for k in kept)


@pytest.mark.parametrize(
    "found",
    [
        resolve.Resolution(resolve.UNREACHABLE, reason="index unreachable: x"),
        # pip did not start: the build fails, and a later one tries again
        resolve.classify(
            2, "python: can't open file '/tmp/pip.whl/pip': [Errno 2] No such file", None
        ),
    ],
)
def test_an_unreachable_or_unexplained_resolution_is_kept_for_an_hour(tmp_path: Path, found, table):
    calls: list[tuple] = []

    def resolver(args, urls):
        calls.append(tuple(args))
        return found

    shown = _shown('pip install "torch==2.14.*"')
    resolved.resolution(shown, tmp_path, resolver=resolver, day=DAY)
    resolved.resolution(shown, tmp_path, resolver=resolver, day=DAY)
    assert len(calls) == 1  # the next edit's build does not wait on the same host
    (kept,) = tmp_path.glob("*.json")
    hour_ago = time.time() - resolved.UNSETTLED_FOR_S - 1
    os.utime(kept, (hour_ago, hour_ago))
    resolved.resolution(shown, tmp_path, resolver=resolver, day=DAY)
    assert len(calls) == 2  # an hour on, it is asked again


# -- the pages ---------------------------------------------------------------------


def test_the_install_page_shows_each_generated_command(table):
    shown = resolved.page_commands(ROOT / "notebooks" / "install.md", ROOT, table)
    labels = [s.label for s in shown]
    assert "the 2.14 command (pip)" in labels and "the nightly command (uv, Windows)" in labels
    (pip_214,) = [s for s in shown if s.label == "the 2.14 command (pip)"]
    assert pip_214.command.release == "2.14" and pip_214.command.text == table.install_command(
        "2.14"
    )


def test_check_pages_gives_violations_claims_and_notes(tmp_path: Path, table):
    page = tmp_path / "notebooks" / "page.md"
    page.parent.mkdir()
    page.write_text("# P\n\n```bash\npip install --no-deps executorch\n```\n")

    def resolver(args, urls):
        return _resolved(executorch="1.5.1")

    violations, claims, notes = resolved.check_pages(
        tmp_path, table, [page], tmp_path / "cache", resolver=resolver
    )
    assert [(v.path, v.line, v.rule) for v in violations] == [
        ("notebooks/page.md", 4, "resolved-pins")
    ]
    assert [(c.path, c.line, c.status) for c in claims] == [("notebooks/page.md", 4, "resolved")]
    lead, items = resolved.banner_text(claims)
    assert lead == (
        "Its install commands, given to pip's resolver (pip 26.3 on 2026-12-04, for CPython 3.11, "
        "Linux x86_64) as for an empty environment:"
    )
    assert "outside release 2.14's pins" in items[0]
    assert notes[0].startswith("notebooks/page.md:4: install command resolved")


def test_the_resolver_reads_metadata_without_downloading_wheels() -> None:
    # pip before 26 downloads every wheel of a dry run (3 GB for torch==2.14.*);
    # requirements-docs.txt pins the venv's pip to one that reads metadata only
    from packaging.version import Version

    assert Version(resolve.RESOLVER) >= Version("26.3"), resolve.RESOLVER

"""The failure register (drift/raises.py, docs/evidence/failures.toml): every error the
installed sources raise on the guide's calls is listed at a site found in the installed
file, and each one a user can hit is named by the guide or left out with a reason.
Each rule is shown to catch a planted bad entry."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from paths import ROOT
from trtdocs.drift import evidence, raises, raisesites

REGISTER = ROOT / raises.REGISTER
# Where upstream sources can be read: "owner/name=<git dir>" entries, os.pathsep apart.
UPSTREAM_ENV = "TRTDOCS_UPSTREAM_GIT"

# (A line ending in a backslash goes on in the next: TOML keeps an inline table on one line.)
GOOD_PY = """
[[failure]]
call = "torch_tensorrt.load"
error = "ValueError: Unsupported format"
site = { dist = "torch-tensorrt==2.14.0", path = "torch_tensorrt/_compile.py", \
function = "load", fragment = "; expected None or 'executorch'" }
reach = "user"
named = { anchor = "error-load-format" }
"""
GOOD_BINARY = """
[[failure]]
call = "program load"
error = "Error::InvalidProgram"
site = { dist = "torch-tensorrt-executorch-runtime==0.1.0", \
path = "torch_tensorrt_executorch_runtime/_portable_lib.cpython-311-x86_64-linux-gnu.so", \
fragment = "TensorRTBackend::init: failed to deserialize TensorRT engine" }
upstream = { repo = "pytorch/TensorRT", commit = "d7f2062810df37e4bbcfc9065b5f44f09aca7156", \
path = "cpp/src/torch_tensorrt/executorch/TensorRTBackend.cpp", function = "TensorRTBackend::init" }
reach = "user"
named = { page = "notebooks/p.md", text = "fails to deserialize" }
"""


def _site(root: Path, register: str) -> Path:
    """A repository with ``register`` as its failure register, the real errors table and one
    page."""
    (root / "docs" / "evidence").mkdir(parents=True)
    (root / "docs" / "data").mkdir(parents=True)
    (root / "notebooks").mkdir()
    shutil.copy(ROOT / raises.ERRORS, root / raises.ERRORS)
    (root / "notebooks" / "p.md").write_text(
        "# P\n\nA damaged engine\nfails to deserialize.\n", encoding="utf-8"
    )
    (root / raises.REGISTER).write_text(register, encoding="utf-8")
    return root


def _rules(root: Path) -> list[tuple[int, str]]:
    return [(v.line, v.rule) for v in raises.check(root)]


def test_the_register_holds_against_the_installed_sources_and_the_guide() -> None:
    assert [str(v) for v in raises.check(ROOT)] == []


def test_every_error_a_user_can_hit_is_named_or_left_out_with_a_reason() -> None:
    failures = tomllib.loads(REGISTER.read_text(encoding="utf-8"))["failure"]
    user = [f for f in failures if f["reach"] == "user"]
    assert user and all(("named" in f) != ("left_out" in f) for f in user), (
        "a user entry is either named or left out, not both"
    )


def test_well_formed_entries_pass(tmp_path: Path) -> None:
    assert _rules(_site(tmp_path, GOOD_PY + GOOD_BINARY)) == []


@pytest.mark.parametrize(
    "planted, rule",
    [
        # a fragment that is not in the installed file
        (
            GOOD_PY.replace("; expected None or 'executorch'", "; expected None or 'pte'"),
            "failures-site",
        ),
        # the right fragment under the wrong function
        (GOOD_PY.replace('function = "load"', 'function = "save"'), "failures-site"),
        # a message that is not in the binary
        (GOOD_BINARY.replace("failed to deserialize", "could not deserialize"), "failures-site"),
        # a named anchor that does not exist
        (GOOD_PY.replace("error-load-format", "error-no-such-anchor"), "failures-named"),
        # named text that the page does not hold
        (GOOD_BINARY.replace("fails to deserialize", "fails to load"), "failures-named"),
        # a user entry with neither named nor left_out
        (GOOD_PY.replace('named = { anchor = "error-load-format" }\n', ""), "failures-reach"),
        # an internal entry without why
        (
            GOOD_PY.replace(
                'reach = "user"\nnamed = { anchor = "error-load-format" }', 'reach = "internal"'
            ),
            "failures-reach",
        ),
        # a register written for another release than the installed one
        (GOOD_PY.replace("torch-tensorrt==2.14.0", "torch-tensorrt==2.15.0"), "failures-version"),
        # a key the format does not have
        (GOOD_PY.replace('reach = "user"', 'reach = "user"\nchecked = true'), "failures-keys"),
        ('[[failure]]\ncall = "x\nerror = "y"\n', "failures-toml"),  # an unclosed string
    ],
)
def test_a_planted_bad_entry_is_caught_at_its_line(tmp_path: Path, planted: str, rule: str) -> None:
    found = _rules(_site(tmp_path, planted))
    assert found and {r for _, r in found} == {rule}, found
    assert all(line == 2 for line, _ in found), (
        found
    )  # the table's header, or the TOML error's line


def test_a_raise_in_a_scope_without_an_entry_is_caught(tmp_path: Path) -> None:
    scope = (
        '[[scope]]\ncall = "torch_tensorrt.load"\ndist = "torch-tensorrt==2.14.0"\n'
        'path = "torch_tensorrt/_compile.py"\nfunctions = ["load"]\n'
    )
    got = raises.check(_site(tmp_path, scope + GOOD_PY))
    # load() raises three errors; the entry covers one
    assert [v.rule for v in got] == ["failures-scope"] * 2, got
    assert "Loading an ExecuTorch program requires the prebuilt" in got[0].message
    missing = raises.check(
        _site(tmp_path / "b", scope.replace('["load"]', '["load", "no_such_function"]') + GOOD_PY)
    )
    assert any("has no function 'no_such_function'" in v.message for v in missing)


def test_sites_name_their_function_and_skip_re_raises() -> None:
    source = """
def outer(x):
    def inner():
        raise ValueError("inner")
    try:
        inner()
    except ValueError as error:
        raise error
    except KeyError:
        raise
    assert x, "checked"

class C:
    def m(self):
        raise RuntimeError(f"bad {self}")

raise ImportError("at import")
"""
    got = [(s.function, s.starts, s.text.split("(")[0]) for s in raisesites.sites(source)]
    assert got == [
        ("outer.inner", True, "raise ValueError"),
        ("outer", False, "raise error"),
        ("outer", False, "raise"),
        ("outer", False, 'assert x, "checked"'),
        ("C.m", True, "raise RuntimeError"),
        (raisesites.MODULE, True, "raise ImportError"),
    ]
    assert raisesites.suggest(raisesites.sites(source)[4]) == "bad"


def test_the_evidence_guard_takes_the_register_as_its_own_not_a_page(tmp_path: Path) -> None:
    root = _site(tmp_path, GOOD_PY)
    (root / "index.md").write_text("# Home\n", encoding="utf-8")
    (root / "docs" / "evidence" / "ghost.toml").write_text("", encoding="utf-8")
    pages = {v.path: v.rule for v in evidence.check(root, require=False).violations}
    assert pages == {"docs/evidence/ghost.toml": "evidence-page"}


def _upstream_dirs() -> dict[str, Path]:
    pairs = [
        p.split("=", 1) for p in os.environ.get(UPSTREAM_ENV, "").split(os.pathsep) if "=" in p
    ]
    return {repo: Path(folder) for repo, folder in pairs}


def test_upstream_fragments_are_in_the_upstream_sources() -> None:
    """Each C++ site's message (or, for a silent return, its fragment) is in the file at the
    commit the register names. Needs the upstream git folders (TRTDOCS_UPSTREAM_GIT)."""
    dirs = _upstream_dirs()
    entries = [
        f for f in tomllib.loads(REGISTER.read_text(encoding="utf-8"))["failure"] if "upstream" in f
    ]
    if not all(f["upstream"]["repo"] in dirs for f in entries):
        pytest.skip(
            f"{len(entries)} upstream sites not read: set {UPSTREAM_ENV}=owner/name=<git dir>,..."
        )
    missing = []
    files: dict[tuple[str, str, str], str] = {}
    for f in entries:
        up = f["upstream"]
        key = (up["repo"], up["commit"], up["path"])
        if key not in files:
            text = subprocess.run(
                ["git", "--git-dir", str(dirs[up["repo"]]), "show", f"{up['commit']}:{up['path']}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            files[key] = re.sub(r'"\s*\n\s*"', "", text)  # adjacent string literals read as one
        fragment = up.get("fragment") or f["site"]["fragment"]
        if fragment not in files[key]:
            missing.append(f"{up['path']}: {fragment!r}")
    assert missing == []

"""The guards' per-page memo (drift/memo.py): a rerun takes an unchanged page's
findings from the memo, checks an edited page again, and forgets what its key
no longer covers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paths import ROOT
from trtdocs.drift import memo, run
from trtdocs.drift.memo import PageMemo
from trtdocs.pages import accesses

TABLE = ROOT / "docs" / "features.toml"
GUARDS = ("installs", "marks", "programs")  # no griffe load, no compiler: a pure, quick run
NIGHTLY = (
    '```bash\npip install "torch-tensorrt[executorch]" '
    "--index-url https://download.pytorch.org/whl/nightly/cu132\n```\n"
)


def _site(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "index.md").write_text(
        "# Guide\n\n```{toctree}\ndocs/a\ndocs/b\n```\n", encoding="utf-8"
    )
    (root / "docs" / "a.md").write_text("# A\n\n" + NIGHTLY, encoding="utf-8")
    (root / "docs" / "b.md").write_text("# B\n\nNothing to install.\n", encoding="utf-8")
    return root


def _guards(
    root: Path, memo_file: Path, counted: list[str], monkeypatch: pytest.MonkeyPatch
) -> run.Report:
    """One run with the memo, counting the pages whose files the programs guard read."""
    real = accesses.page_accesses

    def counting(path: Path, rel: str):  # returns page_accesses' own type
        counted.append(rel)
        return real(path, rel)

    monkeypatch.setattr(accesses, "page_accesses", counting)
    page_memo = PageMemo.open(memo_file, memo.inputs_key(TABLE, "2.14"))
    report = run.run_guards(root, table_path=TABLE, guards=GUARDS, page_memo=page_memo)
    page_memo.save()
    return report


def test_an_unchanged_page_comes_from_the_memo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, memo_file = _site(tmp_path / "site"), tmp_path / "memo.json"
    first_read: list[str] = []
    first = _guards(root, memo_file, first_read, monkeypatch)
    assert [(v.path, v.rule) for v in first.violations] == [("docs/a.md", "nightly-pre")]
    assert sorted(first_read) == ["docs/a.md", "docs/b.md", "index.md"]
    # nothing changed: every finding from the memo, none of the pages read again
    again_read: list[str] = []
    again = _guards(root, memo_file, again_read, monkeypatch)
    assert again == first and again_read == []
    # the same report as a run without the memo
    assert run.run_guards(root, table_path=TABLE, guards=GUARDS) == first


def test_an_edited_page_is_checked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, memo_file = _site(tmp_path / "site"), tmp_path / "memo.json"
    _guards(root, memo_file, [], monkeypatch)
    # plant the bad command on b as well, and fix a: the memo must not hide either change
    (root / "docs" / "b.md").write_text("# B\n\n" + NIGHTLY, encoding="utf-8")
    (root / "docs" / "a.md").write_text("# A\n\nNothing to install.\n", encoding="utf-8")
    read: list[str] = []
    report = _guards(root, memo_file, read, monkeypatch)
    assert [(v.path, v.rule) for v in report.violations] == [("docs/b.md", "nightly-pre")]
    assert sorted(read) == ["docs/a.md", "docs/b.md"]  # index.md from the memo
    # the memo keeps what this run used: the edited pages' old findings are gone
    kept = json.loads(memo_file.read_text(encoding="utf-8"))["parts"]
    assert len([slot for slot in kept if slot.startswith("installs docs/a.md ")]) == 1


def test_a_memo_under_another_key_or_unreadable_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, memo_file = _site(tmp_path / "site"), tmp_path / "memo.json"
    _guards(root, memo_file, [], monkeypatch)
    data = json.loads(memo_file.read_text(encoding="utf-8"))
    # a finding planted under another key (another table, say) is not reported
    slot = next(s for s in data["parts"] if s.startswith("installs docs/b.md "))
    data["parts"][slot] = {
        "violations": [{"path": "docs/b.md", "line": 1, "rule": "planted", "message": "x"}],
        "notes": [],
        "uncompiled": [],
    }
    memo_file.write_text(json.dumps({**data, "key": "another"}), encoding="utf-8")
    read: list[str] = []
    assert [v.rule for v in _guards(root, memo_file, read, monkeypatch).violations] == [
        "nightly-pre"
    ]
    assert len(read) == 3
    # under this run's key the planted finding is what the memo says (so the test above could fail)
    memo_file.write_text(
        json.dumps({**data, "key": memo.inputs_key(TABLE, "2.14")}), encoding="utf-8"
    )
    assert "planted" in [v.rule for v in _guards(root, memo_file, [], monkeypatch).violations]
    memo_file.write_text("{not json", encoding="utf-8")
    read = []
    assert [v.rule for v in _guards(root, memo_file, read, monkeypatch).violations] == [
        "nightly-pre"
    ]
    assert len(read) == 3


def test_the_key_follows_the_table_and_the_package(tmp_path: Path) -> None:
    table = tmp_path / "features.toml"
    table.write_bytes(TABLE.read_bytes())
    key = memo.inputs_key(table, "2.14")
    assert memo.inputs_key(table, "2.14") == key
    assert memo.inputs_key(table, "2.15") != key
    table.write_bytes(TABLE.read_bytes() + b"\n# edited\n")
    assert memo.inputs_key(table, "2.14") != key


def test_the_key_follows_the_headers_of_an_extra_include_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    headers = tmp_path / "inc" / "executorch"
    headers.mkdir(parents=True)
    (headers / "a.h").write_text("#pragma once\n", encoding="utf-8")
    monkeypatch.setenv("TRTDOCS_CXX_INCLUDE", str(tmp_path / "inc"))
    key = memo.inputs_key(TABLE, "2.14")
    assert memo.inputs_key(TABLE, "2.14") == key
    # the same folder, a header changed in it (a source checkout moved to another commit)
    (headers / "a.h").write_text("#pragma once\nint changed;\n", encoding="utf-8")
    assert memo.inputs_key(TABLE, "2.14") != key


def test_compiled_blocks_reach_the_report_fresh_and_from_the_memo(tmp_path: Path) -> None:
    """The C++ guard's compiled blocks are what the captions read (drift/captions.py).
    Planted once: they were handed to Report by position, landed in `resolved`, and no
    page said what its blocks compiled against."""
    page = tmp_path / "docs" / "a.md"
    _site(tmp_path)
    page.write_text("# A\n\n```cpp\nint main() { return 0; }\n```\n", encoding="utf-8")
    page_memo = PageMemo.open(tmp_path / "memo.json", memo.inputs_key(TABLE, "2.14"))
    fresh = run.run_guards(tmp_path, table_path=TABLE, guards=("cpp",), page_memo=page_memo)
    page_memo.save()
    assert [(c.path, c.fence_line) for c in fresh.compiled] == [
        ("docs/a.md", 3)
    ] and fresh.resolved == ()
    again = run.run_guards(
        tmp_path,
        table_path=TABLE,
        guards=("cpp",),
        page_memo=PageMemo.open(tmp_path / "memo.json", memo.inputs_key(TABLE, "2.14")),
    )
    assert again.compiled == fresh.compiled and again.resolved == ()

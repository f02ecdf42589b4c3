"""Sources of the features table (features/sources.py): each claim cites what a
reader can open, in a structured form the validator checks; no research labels."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paths import ROOT, ROOTS
from trtdocs.features.sources import SourceError, parse
from trtdocs.features.validate import FeaturesError, load

TABLE = ROOT / "docs" / "features.toml"
FIXTURE = ROOTS / "test-features" / "features.toml"
# What the table used before: "#4927 c2", "PRD", "c3/c6" name a researcher's notes, not a place.
RESEARCH_LABEL = re.compile(r"#\d+\s+c\d+|\bc\d+(?:/c\d+)*\b|\bPRD\b")
# The fixture's run source (a "yes" cell needs one).
RUN = '{ test = "pytorch/TensorRT/tests/test_fixture.py", at = "0123abc" }'


@pytest.mark.parametrize(
    "raw, url, label, text",
    [
        (
            {
                "wheel": "torch-tensorrt==2.14.0",
                "path": "torch_tensorrt/_compile.py",
                "shows": "`save()`",
            },
            "https://pypi.org/project/torch-tensorrt/2.14.0/",
            "torch-tensorrt 2.14.0 wheel",
            "torch-tensorrt 2.14.0 wheel, torch_tensorrt/_compile.py: save()",
        ),
        (
            {"pr": "pytorch/TensorRT#4927", "shows": "the 2.15 guide"},
            "https://github.com/pytorch/TensorRT/pull/4927",
            "pytorch/TensorRT#4927",
            "pytorch/TensorRT#4927: the 2.15 guide",
        ),
        (
            {"issue": "pytorch/executorch#22477"},
            "https://github.com/pytorch/executorch/issues/22477",
            "pytorch/executorch#22477",
            "pytorch/executorch#22477",
        ),
        (
            {"file": "pytorch/TensorRT/cpp/src/a/CMakeLists.txt", "at": "d7f2062810"},
            "https://github.com/pytorch/TensorRT/blob/d7f2062810/cpp/src/a/CMakeLists.txt",
            "pytorch/TensorRT cpp/src/a/CMakeLists.txt at d7f2062810",
            "pytorch/TensorRT cpp/src/a/CMakeLists.txt at d7f2062810",
        ),
        (
            {"commit": "pytorch/TensorRT@e83f4557"},
            "https://github.com/pytorch/TensorRT/commit/e83f4557",
            "pytorch/TensorRT commit e83f4557",
            "pytorch/TensorRT commit e83f4557",
        ),
        (
            {
                "url": "https://pypi.org/project/torch-tensorrt/#history",
                "title": "PyPI release history",
                "shows": "no 2.15 wheel",
            },
            "https://pypi.org/project/torch-tensorrt/#history",
            "PyPI release history",
            "PyPI release history: no 2.15 wheel",
        ),
        # the three kinds that show a run
        (
            {"test": "pytorch/TensorRT/tests/cpp/t.cpp", "at": "0551f6d", "shows": "a GPU test"},
            "https://github.com/pytorch/TensorRT/blob/0551f6d/tests/cpp/t.cpp",
            "pytorch/TensorRT test tests/cpp/t.cpp at 0551f6d",
            "pytorch/TensorRT test tests/cpp/t.cpp at 0551f6d: a GPU test",
        ),
        (
            {"artifact": "torch-tensorrt==2.14.0", "path": "torch_tensorrt/bin/runner"},
            "https://pypi.org/project/torch-tensorrt/2.14.0/",
            "torch-tensorrt 2.14.0 wheel",
            "torch-tensorrt 2.14.0 wheel, torch_tensorrt/bin/runner",
        ),
        (
            {"run": "notebooks/kv-cache"},
            "",
            "this guide's kv-cache page",
            "this guide's kv-cache page",
        ),
    ],
)
def test_each_kind_of_source_links_to_what_it_cites(
    raw: dict, url: str, label: str, text: str
) -> None:
    source = parse(raw)
    assert (source.url, source.label, source.text) == (url, label, text)


@pytest.mark.parametrize(
    "raw, message",
    [
        ("pytorch/TensorRT#4927 c2: the guide", "is an inline table"),  # the old research label
        ({"pr": "pytorch/TensorRT#4927", "wheel": "torch-tensorrt==2.14.0"}, "has exactly one of"),
        ({"shows": "something"}, "has exactly one of"),
        ({"pr": "#4927"}, "must be <owner>/<repo>#<number>"),
        ({"pr": "pytorch/TensorRT#4927", "at": "main"}, "has no key 'at'"),
        ({"wheel": "torch-tensorrt>=2.14"}, "must name one published distribution"),
        ({"file": "pytorch/TensorRT/README.md"}, "needs 'at'"),
        ({"file": "README.md", "at": "main"}, "must be <owner>/<repo>/<path>"),
        ({"commit": "pytorch/TensorRT@main"}, "must be <owner>/<repo>@<sha>"),
        ({"url": "http://example.org", "title": "x"}, "must be an https address"),
        ({"url": "https://example.org"}, "needs 'title'"),
        ({"pr": "pytorch/TensorRT#1", "shows": "an `open span"}, "unclosed `code` span"),
        ({"test": "pytorch/TensorRT/tests/t.py", "at": "main"}, "a test runs at a commit"),
        ({"test": "pytorch/TensorRT/tests/t.py"}, "needs 'at'"),
        ({"artifact": "torch-tensorrt==2.14.0"}, "needs 'path'"),
        ({"run": "notebooks/kv-cache.md"}, "without a suffix"),
    ],
)
def test_a_bad_source_says_what_is_wrong(raw: object, message: str) -> None:
    with pytest.raises(SourceError, match=re.escape(message)):
        parse(raw)


def test_the_validator_names_file_and_entry(tmp_path: Path) -> None:
    good = FIXTURE.read_text(encoding="utf-8")
    bad = tmp_path / "features.toml"
    # planted: a cell citing a research label as a string, as the table once did
    bad.write_text(
        good.replace(
            f'"2.14" = {{ state = "yes", sources = [{RUN}] }}',
            '"2.14" = { state = "yes", sources = ["pytorch/TensorRT#4927 c2"] }',
            1,
        ),
        encoding="utf-8",
    )
    with pytest.raises(FeaturesError) as info:
        load(bad)
    assert str(info.value).startswith(f"{bad}: features[0] 'old'.cells.'2.14'.sources[0]: ")
    bad.write_text(
        good.replace(
            f'"2.14" = {{ state = "yes", sources = [{RUN}] }}',
            '"2.14" = { state = "yes", evidence = "a wheel" }',
            1,
        ),
        encoding="utf-8",
    )
    with pytest.raises(FeaturesError, match="unknown key 'evidence'"):
        load(bad)
    bad.write_text(
        good.replace('sources = [{ pr = "pytorch/TensorRT#1" }]\npins', "sources = []\npins", 1),
        encoding="utf-8",
    )
    with pytest.raises(
        FeaturesError, match=r"releases.'2.14'.sources: must name at least one source"
    ):
        load(bad)


def test_the_real_table_cites_no_research_label() -> None:
    table = load(TABLE)
    cited = [
        (f"{f.id} {key}", s)
        for f in table.features
        for key, cell in f.cells.items()
        for s in cell.sources
    ]
    cited += [(f"release {r.key}", s) for r in table.releases.values() for s in r.sources]
    assert cited
    labels = [f"{where}: {s.text}" for where, s in cited if RESEARCH_LABEL.search(s.text)]
    assert not labels, "\n".join(labels)
    assert all(s.url.startswith("https://") for _, s in cited if s.kind != "run")
    # the planted old form is caught by the same pattern
    assert RESEARCH_LABEL.search("pytorch/TensorRT#4927 c2: the 2.15 guide")

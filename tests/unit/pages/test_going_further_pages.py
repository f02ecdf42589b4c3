"""Checks of the 'Going further' pages (issue 6) and their data files.

Static checks only: the pages themselves are executed by the site build.
"""

from __future__ import annotations

import re
import tomllib
from itertools import pairwise

import pytest

from paths import ROOT

DATA = ROOT / "docs" / "data"
PAGES = (
    "runtime-options",
    "gpu-resident-io",
    "performance",
    "kv-cache",
    "dynamic-shapes",
    "troubleshooting",
    "pte-vs-pt2",
)

# The feature ids of the features-table contract (COMMON.md). When the features
# table is present, its ids are used instead.
CONTRACT_FEATURES = frozenset(
    """
pte-save edge-export-api multi-method lowering-kwargs target-device-per-partition
cuda-backend-coalesce gpu-resident-io gpu-resident-io-python dynamic-shapes multi-profile
weight-streaming kv-cache-alias zero-copy-kv caller-stream green-context cuda-graphs
cuda-graphs-on-scratch shared-scratch shared-engines external-engine-data
refuse-weightless-engines runtime-options-cpp runtime-options-python python-runtime-0.1
python-runtime-register extra-brings-delegate windows-delegate prebuilt-runner
cmake-from-source cmake-wheel-package etrecord blob-format save-keeps-compiled-graph
""".split()
)

CELL = re.compile(r"^```\{code-cell\} ipython3\n(?P<body>.*?)^```", re.S | re.M)
FEATURE_USE = re.compile(
    r"\{feature-note\}\s+(?P<a>[\w.-]+)|\{feature\}`(?P<b>[\w.-]+)`|feature:(?P<c>[\w.-]+)"
)
# A Torch-TensorRT or runtime-wheel version typed by hand (2.14, 2.15, 0.1.0, ...).
HAND_VERSION = re.compile(r"\b2\.1[3-9]\b|\b0\.[1-3]\.\d\b")


def known_features() -> frozenset[str]:
    table = ROOT / "docs" / "features.toml"
    if table.exists():
        return frozenset(f["id"] for f in tomllib.loads(table.read_text())["features"])
    return CONTRACT_FEATURES


def page(name: str) -> str:
    return (ROOT / "notebooks" / f"{name}.md").read_text()


def load(name: str) -> dict:
    return tomllib.loads((DATA / name).read_text())


def strings(value: object):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


@pytest.mark.parametrize(
    "name, key, fields",
    [
        (
            "runtime-options.toml",
            "options",
            ("name", "type", "default", "scope", "cpp", "python", "feature", "meaning"),
        ),
        ("errors.toml", "errors", ("symptom", "when", "cause", "fix")),
        ("pte-vs-pt2.toml", "rows", ("aspect", "pte", "pt2")),
    ],
)
def test_data_entries_are_complete(name: str, key: str, fields: tuple[str, ...]) -> None:
    entries = load(name)[key]
    assert entries, f"{name}: no [[{key}]] entries"
    for i, entry in enumerate(entries):
        missing = [f for f in fields if not str(entry.get(f, "")).strip()]
        assert not missing, f"{name}: [[{key}]] #{i + 1} lacks {missing}"


def test_runtime_options_match_the_brief() -> None:
    options = {o["name"]: o for o in load("runtime-options.toml")["options"]}
    assert set(options) == {
        "weight_streaming_budget",
        "use_cuda_graphs",
        "use_shared_activation_scratch",
        "use_shared_engines",
    }
    assert all(o["scope"] in {"load", "process", "load or process"} for o in options.values())
    # The documented release has only the weight-streaming load option (facts A5).
    assert options["weight_streaming_budget"]["scope"] == "load"
    assert options["use_shared_engines"]["scope"] == "load"
    assert options["use_shared_activation_scratch"]["scope"] == "process"


def test_data_feature_ids_exist() -> None:
    known = known_features()
    for name in ("runtime-options.toml", "errors.toml", "pte-vs-pt2.toml", "save-options.toml"):
        data = load(name)
        for entries in data.values():
            if not isinstance(entries, list):
                continue
            for i, entry in enumerate(entries):
                for key in ("feature", "python"):
                    if entry.get(key):
                        assert entry[key] in known, (
                            f"{name} entry #{i + 1}: unknown feature {entry[key]!r}"
                        )


def test_reproduced_errors_point_at_labels() -> None:
    labels = {m for p in PAGES for m in re.findall(r"^\((?P<l>[\w-]+)\)=$", page(p), re.M)}
    shown = [e["shown"] for e in load("errors.toml")["errors"] if "shown" in e]
    assert shown, "errors.toml marks no error as reproduced"
    assert not set(shown) - labels, (
        f"errors.toml 'shown' names no label in the pages: {set(shown) - labels}"
    )


WHEN = ("install", "export", "load", "first run", "run")  # the order troubleshooting.md promises


def out_of_order(entries: list[dict]) -> list[str]:
    """Anchors of the errors whose `when` comes before the entry above them."""
    ranks = [WHEN.index(e["when"]) for e in entries]
    return [
        e["anchor"]
        for e, (above, rank) in zip(entries[1:], pairwise(ranks), strict=True)
        if rank < above
    ]


def test_errors_run_in_the_order_a_reader_meets_them() -> None:
    entries = load("errors.toml")["errors"]
    assert out_of_order(entries) == []
    planted = [entries[-1], *entries[:-1]]  # a run-time error moved to the top
    assert out_of_order(planted) == [entries[0]["anchor"]]


@pytest.mark.parametrize("name", PAGES)
def test_page_is_a_text_notebook(name: str) -> None:
    text = page(name)
    assert text.startswith("---\njupytext:"), f"notebooks/{name}.md lacks the jupytext header"
    assert "format_name: myst" in text.split("---", 2)[1]


@pytest.mark.parametrize("name", PAGES)
def test_page_features_exist(name: str) -> None:
    known = known_features()
    text = page(name)
    for m in FEATURE_USE.finditer(text):
        fid = m.group("a") or m.group("b") or m.group("c")
        line = text.count("\n", 0, m.start()) + 1
        assert fid in known, f"notebooks/{name}.md:{line}: unknown feature id {fid!r}"


@pytest.mark.parametrize("name", PAGES)
def test_tensorrt_cells_are_gated(name: str) -> None:
    text = page(name)
    for m in CELL.finditer(text):
        body = m.group("body")
        line = text.count("\n", 0, m.start()) + 1
        uses_trt = re.search(
            r"^\s*(import torch_tensorrt\b(?!_)|from torch_tensorrt[\s.])", body, re.M
        )
        if not uses_trt:
            continue
        options = re.match(r"^:requires:\s*(.*)$", body, re.M)
        assert options, f"notebooks/{name}.md:{line}: cell uses torch_tensorrt without :requires:"
        assert "cuda" in options.group(1) and "tensorrt" in options.group(1), (
            f"notebooks/{name}.md:{line}: cell uses torch_tensorrt but requires {options.group(1)}"
        )


@pytest.mark.parametrize("name", PAGES)
def test_no_hand_typed_release_numbers(name: str) -> None:
    text = page(name)
    for m in HAND_VERSION.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        pytest.fail(
            f"notebooks/{name}.md:{line}: release number {m.group()!r} typed by hand; "
            "use {feature-note} or {feature}"
        )


def test_data_has_no_hand_typed_release_numbers() -> None:
    for path in sorted(DATA.glob("*.toml")):
        if path.name not in {
            "runtime-options.toml",
            "errors.toml",
            "pte-vs-pt2.toml",
            "save-options.toml",
        }:
            continue
        for s in strings(tomllib.loads(path.read_text())):
            assert not HAND_VERSION.search(s), f"{path.name}: release number typed by hand in {s!r}"


def test_expected_errors_are_tagged() -> None:
    # Every page that shows a real error tags the cell; the build fails otherwise.
    for name in ("gpu-resident-io", "dynamic-shapes", "troubleshooting"):
        assert ":tags: [raises-exception]" in page(name), (
            f"notebooks/{name}.md shows no expected error"
        )


# C++ blocks are compiled by the drift guard (tests/unit/drift/test_drift_cpp.py), which lists
# every block it cannot compile with the missing header.

"""API guard: names and keywords of notebook cells against griffe's view of the packages."""

from __future__ import annotations

import sys

import pytest

from paths import FIXTURES, ROOT
from trtdocs.api.index import ApiIndex
from trtdocs.drift import api
from trtdocs.features.validate import load as load_features
from trtdocs.pages.blocks import page_paths

REAL_TABLE = ROOT / "docs" / "features.toml"


@pytest.fixture(scope="module")
def index():
    return ApiIndex.load()


@pytest.fixture(scope="module")
def features():
    return load_features(REAL_TABLE).requirement


def test_nothing_is_imported(index):
    assert "torch_tensorrt" not in sys.modules
    assert index.versions["torch_tensorrt"] == "2.14.0"


def test_save_kwargs_come_from_the_source(index):
    popped = index.popped_kwargs["torch_tensorrt._compile.save"]
    assert popped == {
        "partitioners",
        "compile_specs",
        "backend_config",
        "constant_methods",
        "transform_passes",
        "compile_config",
        "generate_etrecord",
        "weight_streaming_budget_per_engine",
    }
    accepted = index.accepted_keywords(index.lookup("torch_tensorrt.save"))
    assert {"retrace", "output_format", "arg_inputs"} | popped <= accepted
    assert "use_cuda_graphs" not in accepted


def test_good_notebook_passes(index, features):
    findings = api.check_notebook(
        FIXTURES / "drift-api" / "good.md", index, root=FIXTURES, features=features
    )
    errors = [str(f.violation) for f in findings if not f.gated]
    assert errors == []
    # inherited members (CudaBackend from a folder without __init__.py) and Optional returns resolve
    # the cell gated on feature:cuda-graphs (since 2.15) uses a 2.15 keyword: a note, not an error
    assert [(f.violation.cell, f.violation.rule) for f in findings if f.gated] == [
        (4, "unknown-keyword")
    ]


def test_planted_defects_fail(index, features):
    findings = api.check_notebook(
        FIXTURES / "drift-api" / "bad.md", index, root=FIXTURES, features=features
    )
    assert not any(f.gated for f in findings)
    got = sorted(
        ((f.violation.cell, f.violation.line, f.violation.rule) for f in findings),
        key=lambda g: (g[0] is None, g[0] or 0, g[1]),
    )
    assert got == [
        (2, 24, "unknown-keyword"),  # save(use_cuda_graphs=...) in 2.14.0
        (3, 29, "unknown-keyword"),  # export(zero_copy_kv=...)
        (4, 33, "unknown-keyword"),  # Runtime.load_program(data_path=...) in executorch 1.4.1
        (4, 34, "unknown-keyword"),  # Method.execute(clone_outputs=...), through return annotations
        (5, 39, "missing-name"),  # torch_tensorrt_executorch_runtime.register (0.2.x)
        (5, 40, "missing-name"),  # torch_tensorrt.executorch.check_zero_copy_kv
        # blocks shown as text: a {code-block} with the
        # cells' names, and a fence with its own import
        (None, 47, "unknown-keyword"),  # save(use_cuda_graphs=...), torch_tensorrt bound by cell 1
        (None, 52, "missing-name"),  # torch_tensorrt.executorch.zero_copy_backend_config
    ]
    text = "\n".join(str(f.violation) for f in findings)
    assert (
        "drift-api/bad.md:24 (cell 2): [unknown-keyword] torch_tensorrt.save() has no keyword "
        "'use_cuda_graphs' in installed torch_tensorrt 2.14.0" in text
    )


def test_version_gate_accepts_a_pep508_requirement(index):
    assert api.gated_newer(["torch_tensorrt>=2.15"], index, None)
    assert not api.gated_newer(["torch_tensorrt>=2.14", "cuda", "tensorrt"], index, None)


def test_real_notebooks(index):
    features = load_features(REAL_TABLE)
    notebooks = [p for p in page_paths(ROOT) if p.is_relative_to(ROOT / "notebooks")]
    assert notebooks
    findings = api.check_notebooks(notebooks, index, root=ROOT, features=features.requirement)
    errors = [str(f.violation) for f in findings if not f.gated]
    assert errors == [], "\n".join(errors)

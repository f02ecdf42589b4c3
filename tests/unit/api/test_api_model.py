"""The API model the reference and the drift guards share (griffe, no import):
one model per process, source links that follow the installed version, what it
covers, and the data files checked against it (errata, features, options).
The reference built from it: tests/build/test_api_reference.py."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from api_copies import planted_copy
from api_fixtures import (  # noqa: F401 -- pytest finds a module's fixtures among its names
    DATA,
    ERRATA,
    model_fixture,
    table_fixture,
)
from trtdocs.api import data as apidata
from trtdocs.api import index as api_index
from trtdocs.api import model as apimodel


def test_one_model_for_the_guards_and_the_reference(model):
    assert apimodel.load() is model  # loaded once per process
    index = api_index.ApiIndex.load()
    assert index.modules is model.modules and index.versions is model.versions
    assert "torch_tensorrt" not in sys.modules  # nothing was imported
    assert model.versions["torch_tensorrt"] == "2.14.0"
    assert model.versions["torch_tensorrt_executorch_runtime"] == "0.1.0"


@pytest.fixture(scope="module")
def planted(tmp_path_factory, model) -> apimodel.ApiModel:
    """The model of a copy of the wheels with the planted changes, one griffe load for
    every test here (a load of torch_tensorrt takes seconds): version 2.14.1, a
    sentence of save()'s docstring that an erratum quotes, and each sentence of
    :data:`CHANGED_SENTENCES`."""
    copy = planted_copy(tmp_path_factory.mktemp("planted"), model, "2.14.1")
    changes = [
        ("_compile.py", "to override the default target device", "to pick the GPU"),
        *((file, old, new) for _, file, old, new in CHANGED_SENTENCES),
    ]
    for file, old, new in changes:
        source = copy / "torch_tensorrt" / file
        text = source.read_text(encoding="utf-8")
        assert old in text, (file, old)
        source.write_text(text.replace(old, new), encoding="utf-8")
    return apimodel.load([copy, *model.search_paths])


def test_a_new_version_moves_the_source_links(planted):
    assert planted.versions["torch_tensorrt"] == "2.14.1"
    save = apimodel.public_objects(planted)["torch_tensorrt.save"]
    url = apimodel.source_url(planted, save)
    assert (
        url
        == f"https://github.com/pytorch/TensorRT/blob/v2.14.1/py/torch_tensorrt/_compile.py#L{save.lineno}"
    )
    assert apimodel.site_relative(planted, save) == "torch_tensorrt/_compile.py"


def test_coverage_is_the_modules_all(model):
    objects = apimodel.public_objects(model)
    for module in (
        "torch_tensorrt.executorch",
        "torch_tensorrt_executorch_runtime",
        "torch_tensorrt_executorch_runtime.runtime",
    ):
        exports = apimodel.get(model, module).exports
        assert exports and all(f"{module}.{n}" in objects for n in exports)
    assert {"torch_tensorrt.save", "torch_tensorrt.load"} <= set(objects)


# -- errata and mapping checks ----------------------------------------------------


def test_an_erratum_whose_sentence_changed_fails(planted, table):
    with pytest.raises(
        apidata.ApiDataError,
        match=r"api-errata\.toml: errata\[0\] 'save-target-device': "
        r"the installed docstring of torch_tensorrt\.save",
    ):
        apidata.load_data(DATA, ERRATA, planted, table)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_mapping_problems_name_file_and_entry(tmp_path, model, table):
    base = DATA.read_text(encoding="utf-8")
    cases = {
        # a parameter neither the installed save() has nor a later release's feature explains
        '"torch_tensorrt.save:no_such_option" = ["cuda-backend-coalesce"]': (
            r"features\.'torch_tensorrt\.save:no_such_option'.*"
            r"feature 'cuda-backend-coalesce' is in 2\.14"
        ),
        '"torch_tensorrt.save:retrace" = ["no-such-feature"]': (
            r"features\.'torch_tensorrt\.save:retrace'.*unknown feature 'no-such-feature'"
        ),
        '"torch_tensorrt.no_such_function" = ["pte-save"]': (
            r"features\.'torch_tensorrt\.no_such_function'.*feature 'pte-save' is in 2\.14"
        ),
    }
    for line, message in cases.items():
        bad = base.replace('"torch_tensorrt.save:retrace" = ["save-keeps-compiled-graph"]', line)
        path = _write(tmp_path / "api.toml", bad)
        with pytest.raises(apidata.ApiDataError, match=re.escape(str(path)) + ": " + message):
            apidata.load_data(path, ERRATA, model, table)


def test_options_must_match_the_source(tmp_path, model, table):
    base = DATA.read_text(encoding="utf-8")
    missing = _write(tmp_path / "missing.toml", re.sub(r"(?m)^generate_etrecord = .*\n", "", base))
    with pytest.raises(apidata.ApiDataError, match=r"no description for 'generate_etrecord'"):
        apidata.load_data(missing, ERRATA, model, table)
    extra = _write(
        tmp_path / "extra.toml",
        base.replace(
            '[options."torch_tensorrt.save".text]\n',
            '[options."torch_tensorrt.save".text]\nuse_cuda_graphs = "x"\n',
        ),
    )
    with pytest.raises(
        apidata.ApiDataError,
        match=r"text\.use_cuda_graphs: the installed source pops no such option",
    ):
        apidata.load_data(extra, ERRATA, model, table)


# The errata added for issue 22, each with a change of its docstring sentence in
# the installed torch_tensorrt file (retrace's recommendation first).
CHANGED_SENTENCES = [
    (
        "save-retrace-recommended",
        "_compile.py",
        "This is the recommended approach",
        "This is one approach",
    ),
    (
        "compile-inputs-required",
        "_compile.py",
        "This argument is required.",
        "Pass it or arg_inputs.",
    ),
    (
        "dynamo-compile-torchscript",
        "dynamo/_compiler.py",
        "Takes a existing TorchScript",
        "Takes an exported",
    ),
    (
        "partitioner-non-default-gpu",
        "executorch/partitioner.py",
        "should pre-populate",
        "may fill in",
    ),
]


def _only(erratum: str, path: Path) -> Path:
    """The errata file with ``erratum``'s entry alone (the check stops at the first
    entry that fails, and the planted copy changes every sentence at once)."""
    head, *entries = ERRATA.read_text(encoding="utf-8").split("\n[[errata]]\n")
    (entry,) = [e for e in entries if e.startswith(f'id = "{erratum}"\n')]
    return _write(path, f"{head}\n[[errata]]\n{entry}")


@pytest.mark.parametrize("erratum", [c[0] for c in CHANGED_SENTENCES])
def test_each_new_erratum_fails_when_its_docstring_changes(
    tmp_path, model, planted, table, erratum
):
    alone = _only(erratum, tmp_path / "api-errata.toml")
    assert apidata.load_data(DATA, alone, model, table)  # the installed sentence holds
    with pytest.raises(
        apidata.ApiDataError,
        match=rf"api-errata\.toml: errata\[0\] '{erratum}': "
        r"the installed docstring of \S+ \(.*\) no longer says",
    ):
        apidata.load_data(DATA, alone, planted, table)


@pytest.mark.parametrize("erratum", ["runtime-concurrent", "runtime-load-program-trt"])
def test_executorchs_errata_are_checked_against_its_docstrings(tmp_path, model, table, erratum):
    """executorch's docstrings are too many files to copy: the planted change is to
    the erratum's quote, which the check compares with the installed docstring."""
    text = ERRATA.read_text(encoding="utf-8")
    start = text.index(f'id = "{erratum}"')
    quote = text.index("quote = ", start)
    planted = _write(
        tmp_path / "api-errata.toml",
        text[:quote] + 'quote = "Not a sentence it has. "' + text[text.index("\n", quote) :],
    )
    with pytest.raises(
        apidata.ApiDataError,
        match=rf"errata\[\d+\] '{erratum}': the installed docstring of "
        r"executorch\.runtime\.\S+ \(.*\) no longer says",
    ):
        apidata.load_data(DATA, planted, model, table)
    assert apidata.load_data(DATA, ERRATA, model, table)  # the real quotes hold

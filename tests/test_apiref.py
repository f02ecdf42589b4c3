"""The API reference: entries generated from the installed wheels (griffe, no
import), the kwargs options, feature notes, errata, and code literals as
cross-references. Expected values come from griffe's model, not typed here."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from sitebuild import REPO, copy_fixture, log, sphinx_build

from trtdocs.api import data as apidata
from trtdocs.api import index as api_index
from trtdocs.api import model as apimodel
from trtdocs.api import render
from trtdocs.features.validate import load as load_features

DATA = REPO / "docs" / "data" / "api.toml"
ERRATA = REPO / "docs" / "data" / "api-errata.toml"
ENV = {"TRTDOCS_REPO": str(REPO)}


@pytest.fixture(scope="module")
def model() -> apimodel.ApiModel:
    return apimodel.load()


@pytest.fixture(scope="module")
def table():
    return load_features(REPO / "docs" / "features.toml")


@pytest.fixture(scope="module")
def data(model, table) -> apidata.ApiData:
    return apidata.load_data(DATA, ERRATA, model, table)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture site, built strictly (-W -n); its HTML folder."""
    root = copy_fixture("api-site", tmp_path_factory.mktemp("api"))
    result = sphinx_build(root, root / "_build", env=ENV)
    assert result.returncode == 0, log(result)[-6000:]
    return root / "_build" / "html"


@pytest.fixture(scope="module")
def page(site: Path) -> BeautifulSoup:
    return BeautifulSoup((site / "api.html").read_text(encoding="utf-8"), "html.parser")


def _entry(page: BeautifulSoup, path: str):
    """The <dl> of one entry (its signature's id is the dotted path)."""
    sig = page.find(id=path)
    assert sig is not None, f"no entry for {path}"
    return sig.parent


def _body(dl):
    """The entry's description (its signature may hold a <dl> of its own)."""
    return dl.find("dd", recursive=False)


def _planted_copy(tmp_path: Path, model: apimodel.ApiModel, version: str | None = None) -> Path:
    """The two wheels' Python sources and metadata, copied to ``tmp_path``; the
    rest of site-packages stays on the search path behind it."""
    site = Path(model.search_paths[0])
    for name, dist in (("torch_tensorrt", "torch_tensorrt"),
                       ("torch_tensorrt_executorch_runtime", "torch_tensorrt_executorch_runtime")):
        shutil.copytree(site / name, tmp_path / name, ignore=lambda d, names: [
            n for n in names if not n.endswith(".py") and not (Path(d) / n).is_dir()])
        info = next(site.glob(f"{dist}-*.dist-info"))
        shutil.copytree(info, tmp_path / info.name)
    if version is not None:
        meta = next(tmp_path.glob("torch_tensorrt-*.dist-info")) / "METADATA"
        meta.write_text(re.sub(r"(?m)^Version: .*$", f"Version: {version}", meta.read_text()))
    return tmp_path


# -- one model -------------------------------------------------------------------


def test_one_model_for_the_guards_and_the_reference(model):
    assert apimodel.load() is model  # loaded once per process
    index = api_index.ApiIndex.load()
    assert index.modules is model.modules and index.versions is model.versions
    assert "torch_tensorrt" not in sys.modules  # nothing was imported
    assert model.versions["torch_tensorrt"] == "2.14.0"
    assert model.versions["torch_tensorrt_executorch_runtime"] == "0.1.0"


def test_a_new_version_moves_the_source_links(tmp_path, model):
    planted = apimodel.load([_planted_copy(tmp_path, model, "2.14.1"), *model.search_paths])
    assert planted.versions["torch_tensorrt"] == "2.14.1"
    save = apimodel.public_objects(planted)["torch_tensorrt.save"]
    url = apimodel.source_url(planted, save)
    assert url == f"https://github.com/pytorch/TensorRT/blob/v2.14.1/py/torch_tensorrt/_compile.py#L{save.lineno}"
    assert apimodel.site_relative(planted, save) == "torch_tensorrt/_compile.py"


def test_coverage_is_the_modules_all(model):
    objects = apimodel.public_objects(model)
    for module in ("torch_tensorrt.executorch", "torch_tensorrt_executorch_runtime",
                   "torch_tensorrt_executorch_runtime.runtime"):
        exports = apimodel.get(model, module).exports
        assert exports and all(f"{module}.{n}" in objects for n in exports)
    assert {"torch_tensorrt.save", "torch_tensorrt.load"} <= set(objects)


# -- entries -----------------------------------------------------------------------


def test_every_entry_is_a_python_domain_object(page, model):
    for path, obj in apimodel.public_objects(model).items():
        if obj.is_module:
            assert page.find(id=f"module-{path}") is not None, path
            continue
        dl = _entry(page, path)
        assert "py" in dl["class"], path
        kind = "exception" if obj.is_class and any(str(b).endswith("Error") for b in obj.bases) else None
        if kind:
            assert kind in dl["class"]


def test_signatures_carry_the_installed_defaults(page, model):
    for path, obj in apimodel.public_objects(model).items():
        params = apimodel.params(obj)
        if not params:
            continue
        sig = page.find(id=path)
        shown = {}
        for em in sig.find_all("em", class_="sig-param"):
            if em.find("span", class_="n") is None:
                continue  # the bare * before keyword-only parameters
            name = em.find("span", class_="n").get_text()
            default = em.find("span", class_="default_value")
            shown[name.lstrip("*")] = default.get_text() if default else None
        for p in params:
            assert p.name in shown, f"{path}: {p.name} missing from the signature"
            if p.kind in (p.kind.var_keyword, p.kind.var_positional):
                assert shown[p.name] is None
            else:
                want = render.default_text(model, p) if p.default is not None else None
                assert shown[p.name] == want, f"{path}({p.name}): {shown[p.name]!r} != {want!r}"


def test_defaults_named_by_a_constant_show_its_value(page, model):
    """dynamo.compile's defaults are module constants (``_defaults.MIN_BLOCK_SIZE``):
    the signature shows their values, read from griffe's model of that module."""
    constants = apimodel.get(model, "torch_tensorrt.dynamo._defaults").members
    sig = page.find(id="torch_tensorrt.dynamo.compile")
    shown = {em.find("span", class_="n").get_text(): em.find("span", class_="default_value").get_text()
             for em in sig.find_all("em", class_="sig-param")
             if em.find("span", class_="n") is not None and em.find("span", class_="default_value") is not None}
    assert shown["min_block_size"] == str(constants["MIN_BLOCK_SIZE"].value) == "5"
    assert shown["engine_capability"] == "_defaults.ENGINE_CAPABILITY"  # not a literal: the source's text
    assert str(constants["ENGINE_CAPABILITY"].value) == "EngineCapability.STANDARD"


def test_source_links_follow_the_installed_version(page, site, model):
    html = (site / "api.html").read_text(encoding="utf-8")
    for root in model.search_paths:
        assert root not in html  # no build-machine path
    for path, obj in apimodel.public_objects(model).items():
        if obj.is_module:
            continue
        source = _body(_entry(page, path)).find("div", class_="trtdocs-api-source", recursive=False)
        assert source is not None, path
        link = source.find("a")
        assert link["href"] == apimodel.source_url(model, obj)
        root = path.split(".")[0]
        upstream = apimodel.UPSTREAM[root]
        tag = model.version_of(upstream.tag_of)  # the runtime wheel is built from torch_tensorrt's tag
        assert link["href"].startswith(f"{upstream.repo}/blob/v{tag}/") and link["href"].endswith(f"#L{obj.lineno}")
        assert apimodel.site_relative(model, obj) in source.get_text() and model.versions[root] in source.get_text()


def _field_labels(entry) -> set[str]:
    return {dt.get_text(strip=True).rstrip(":") for fields in _body(entry).find_all("dl", class_="field-list",
                                                                                   recursive=False)
            for dt in fields.find_all("dt", recursive=False)}


def test_docstring_sections_become_field_lists(page):
    assert "Parameters" in _field_labels(_entry(page, "torch_tensorrt.save"))
    export = _field_labels(_entry(page, "torch_tensorrt.executorch.export"))
    assert export == {"Parameters", "Returns", "Return type"}  # every field is one the domain knows
    assert "Raises" in _field_labels(_entry(page, "torch_tensorrt.load"))
    for path in apimodel.public_objects(apimodel.load()):
        if page.find(id=path) is not None:
            assert _field_labels(_entry(page, path)) <= {"Parameters", "Returns", "Return type", "Raises"}, path


def test_save_kwargs_options_are_documented(page, model):
    save = apimodel.public_objects(model)["torch_tensorrt.save"]
    popped = apimodel.popped_options(save)
    assert set(popped) == api_index.kwargs_popped(save)  # what the drift guard accepts
    entry = _entry(page, "torch_tensorrt.save")
    rubric = next(p for p in entry.find_all("p", class_="rubric") if "Options for" in p.get_text())
    assert 'output_format="executorch"' in rubric.get_text()
    terms = {dt.find("code").get_text(): dt for dt in rubric.find_next("dl").find_all("dt", recursive=False)}
    assert set(terms) == set(popped)
    for name, default in popped.items():
        assert f"(default {default})" in " ".join(terms[name].get_text().split())


def _field_item(entry, name: str):
    for strong in entry.find_all("strong"):
        if strong.get_text() == name:
            return strong.find_parent(["li", "dd", "p"])
    for dt in entry.find_all("dt"):
        code = dt.find("code")
        if code is not None and code.get_text() == name:
            return dt.find_next_sibling("dd")
    return None


def test_feature_notes_sit_on_their_parameters(page, data, table):
    for key, ids in data.features.items():
        path, _, param = key.partition(":")
        if key in data.absent and not param:  # a later release's name: listed under its module
            holder = next(c for c in page.find_all("code") if c.get_text() == path).find_parent("li")
            entry = None
        else:
            entry = _entry(page, path)
        if entry is None:
            pass
        elif key in data.absent:
            where = entry.find(string=re.compile(re.escape(param)))
            assert where is not None, key
            holder = where.find_parent("li")
        elif param:
            holder = _field_item(entry, param)
        else:
            holder = _body(entry)
        assert holder is not None, key
        for fid in ids:
            link = holder.find("a", href=re.compile(f"#feature-{re.escape(fid)}$"))
            assert link is not None, f"{key}: no note of {fid}"
            feature = table.feature(fid)
            assert table.note_text(feature) in link.get_text()


def test_errata_render_their_notes(page, data):
    assert {e.id for e in data.errata} >= {"save-target-device", "save-generate-etrecord"}
    for erratum in data.errata:
        entry = _entry(page, erratum.object)
        notes = [" ".join(div.get_text().replace("\u2019", "'").split())
                 for div in entry.find_all("div", class_="caution")]
        note_words = " ".join(erratum.note.replace("`", "").split())
        assert any(note_words in n for n in notes), erratum.id


# -- errata and mapping checks ----------------------------------------------------


def test_an_erratum_whose_sentence_changed_fails(tmp_path, model, table):
    planted = _planted_copy(tmp_path, model)
    compile_py = planted / "torch_tensorrt" / "_compile.py"
    text = compile_py.read_text(encoding="utf-8")
    assert "to override the default target device" in text
    compile_py.write_text(text.replace("to override the default target device", "to pick the GPU"),
                          encoding="utf-8")
    changed = apimodel.load([planted, *model.search_paths])
    with pytest.raises(apidata.ApiDataError, match=r"api-errata\.toml: errata\[0\] 'save-target-device': "
                                                  r"the installed docstring of torch_tensorrt\.save"):
        apidata.load_data(DATA, ERRATA, changed, table)


def test_a_build_against_a_changed_docstring_fails_naming_the_erratum(tmp_path, model):
    planted = _planted_copy(tmp_path / "site-packages", model)
    partitioner = planted / "torch_tensorrt" / "executorch" / "partitioner.py"
    text = partitioner.read_text(encoding="utf-8")
    partitioner.write_text(text.replace("is auto-appended", "is added"), encoding="utf-8")
    root = copy_fixture("api-site", tmp_path)
    result = sphinx_build(root, root / "_build", "-D",
                          f"trtdocs_api_search_paths={planted},{model.search_paths[0]}", env=ENV)
    assert result.returncode != 0
    assert "'partitioner-default-device'" in log(result) and "api-errata.toml" in log(result)



# The errata added for issue 22, each with a change of its docstring sentence in
# the installed torch_tensorrt file (retrace's recommendation first).
CHANGED_SENTENCES = [
    ("save-retrace-recommended", "_compile.py", "This is the recommended approach", "This is one approach"),
    ("compile-inputs-required", "_compile.py", "This argument is required.", "Pass it or arg_inputs."),
    ("dynamo-compile-torchscript", "dynamo/_compiler.py", "Takes a existing TorchScript", "Takes an exported"),
    ("partitioner-non-default-gpu", "executorch/partitioner.py", "should pre-populate", "may fill in"),
]


@pytest.mark.parametrize(("erratum", "file", "old", "new"), CHANGED_SENTENCES, ids=[c[0] for c in CHANGED_SENTENCES])
def test_each_new_erratum_fails_when_its_docstring_changes(tmp_path, model, table, erratum, file, old, new):
    planted = _planted_copy(tmp_path, model)
    source = planted / "torch_tensorrt" / file
    text = source.read_text(encoding="utf-8")
    assert old in text, (file, old)
    source.write_text(text.replace(old, new), encoding="utf-8")
    changed = apimodel.load([planted, *model.search_paths])
    with pytest.raises(apidata.ApiDataError, match=rf"api-errata\.toml: errata\[\d+\] '{erratum}': "
                                                  r"the installed docstring of \S+ \(.*\) no longer says"):
        apidata.load_data(DATA, ERRATA, changed, table)


@pytest.mark.parametrize("erratum", ["runtime-concurrent", "runtime-load-program-trt"])
def test_executorchs_errata_are_checked_against_its_docstrings(tmp_path, model, table, erratum):
    """executorch's docstrings are too many files to copy: the planted change is to
    the erratum's quote, which the check compares with the installed docstring."""
    text = ERRATA.read_text(encoding="utf-8")
    start = text.index(f'id = "{erratum}"')
    quote = text.index("quote = ", start)
    planted = _write(tmp_path / "api-errata.toml", text[:quote] + 'quote = "Not a sentence it has. "' +
                     text[text.index("\n", quote):])
    with pytest.raises(apidata.ApiDataError, match=rf"errata\[\d+\] '{erratum}': the installed docstring of "
                                                  r"executorch\.runtime\.\S+ \(.*\) no longer says"):
        apidata.load_data(DATA, planted, model, table)
    assert apidata.load_data(DATA, ERRATA, model, table)  # the real quotes hold

def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_mapping_problems_name_file_and_entry(tmp_path, model, table):
    base = DATA.read_text(encoding="utf-8")
    cases = {
        # a parameter neither the installed save() has nor a later release's feature explains
        '"torch_tensorrt.save:no_such_option" = ["cuda-backend-coalesce"]':
            r"features\.'torch_tensorrt\.save:no_such_option'.*feature 'cuda-backend-coalesce' is in 2\.14",
        '"torch_tensorrt.save:retrace" = ["no-such-feature"]':
            r"features\.'torch_tensorrt\.save:retrace'.*unknown feature 'no-such-feature'",
        '"torch_tensorrt.no_such_function" = ["pte-save"]':
            r"features\.'torch_tensorrt\.no_such_function'.*feature 'pte-save' is in 2\.14",
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
    extra = _write(tmp_path / "extra.toml", base.replace(
        "[options.\"torch_tensorrt.save\".text]\n", "[options.\"torch_tensorrt.save\".text]\nuse_cuda_graphs = \"x\"\n"))
    with pytest.raises(apidata.ApiDataError, match=r"text\.use_cuda_graphs: the installed source pops no such option"):
        apidata.load_data(extra, ERRATA, model, table)


# -- cross-references ---------------------------------------------------------------


def test_prose_literals_link_to_their_entries(site):
    prose = BeautifulSoup((site / "prose.html").read_text(encoding="utf-8"), "html.parser")
    targets = {a["href"].split("#", 1)[1] for a in prose.find_all("a", href=re.compile(r"^api\.html#"))}
    assert {"torch_tensorrt.save", "torch_tensorrt.executorch.export", "torch_tensorrt.load",
            "torch_tensorrt_executorch_runtime.runtime.Program",
            "torch_tensorrt.executorch.TensorRTPartitioner"} <= targets
    # an undocumented but real name, and a later release's mapped name, stay literals
    for name in ("torch_tensorrt.Device", "torch_tensorrt_executorch_runtime.register()"):
        code = prose.find("code", string=name) or next(
            c for c in prose.find_all("code") if c.get_text() == name)
        assert code.find_parent("a") is None


def test_a_planted_nonexistent_name_fails_the_build(tmp_path):
    root = copy_fixture("api-site", tmp_path)
    prose = root / "prose.md"
    prose.write_text(prose.read_text(encoding="utf-8") + "\n\nPlanted: `torch_tensorrt.executorch.no_such_thing()`.\n",
                     encoding="utf-8")
    result = sphinx_build(root, root / "_build", env=ENV)
    assert result.returncode != 0
    assert re.search(r"prose\.md:\d+: ERROR: `torch_tensorrt\.executorch\.no_such_thing\(\)` names nothing "
                     r"in installed torch_tensorrt 2\.14\.0", log(result)), log(result)[-3000:]

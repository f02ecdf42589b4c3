"""The API reference (tests/roots/test-api), built in this process: entries
generated from the installed wheels (griffe, no import), the kwargs options,
feature notes, errata, and code literals as cross-references. Expected values
come from griffe's model, not typed here. A build that shows no API page never
loads the model."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from api_copies import planted_copy
from api_fixtures import (  # noqa: F401 -- pytest finds a module's fixtures among its names
    DATA,
    ERRATA,
    model_fixture,
    table_fixture,
)
from sites import Built, build, copy_root, guide_parts
from trtdocs import state
from trtdocs.api import cache, render
from trtdocs.api import data as apidata
from trtdocs.api import index as api_index
from trtdocs.api import model as apimodel


@pytest.fixture(scope="module")
def data(model, table) -> apidata.ApiData:
    return apidata.load_data(DATA, ERRATA, model, table)


@pytest.fixture(scope="module")
def api_build(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The fixture site, built strictly (-W -n)."""
    root = copy_root("api", tmp_path_factory.mktemp("api"))
    result = build(root, root / "_build")
    assert result.returncode == 0, result.log[-6000:]
    return result


@pytest.fixture(scope="module")
def site(api_build: Built) -> Path:
    """Its HTML folder."""
    return api_build.outdir


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


# -- entries -----------------------------------------------------------------------


def test_every_entry_is_a_python_domain_object(page, model):
    for path, obj in apimodel.public_objects(model).items():
        if obj.is_module:
            assert page.find(id=f"module-{path}") is not None, path
            continue
        dl = _entry(page, path)
        assert "py" in dl["class"], path
        kind = (
            "exception"
            if obj.is_class and any(str(b).endswith("Error") for b in obj.bases)
            else None
        )
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
    shown = {
        em.find("span", class_="n").get_text(): em.find("span", class_="default_value").get_text()
        for em in sig.find_all("em", class_="sig-param")
        if em.find("span", class_="n") is not None
        and em.find("span", class_="default_value") is not None
    }
    assert shown["min_block_size"] == str(constants["MIN_BLOCK_SIZE"].value) == "5"
    assert (
        shown["engine_capability"] == "_defaults.ENGINE_CAPABILITY"
    )  # not a literal: the source's text
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
        tag = model.version_of(
            upstream.tag_of
        )  # the runtime wheel is built from torch_tensorrt's tag
        assert link["href"].startswith(f"{upstream.repo}/blob/v{tag}/") and link["href"].endswith(
            f"#L{obj.lineno}"
        )
        assert (
            apimodel.site_relative(model, obj) in source.get_text()
            and model.versions[root] in source.get_text()
        )


def _field_labels(entry) -> set[str]:
    return {
        dt.get_text(strip=True).rstrip(":")
        for fields in _body(entry).find_all("dl", class_="field-list", recursive=False)
        for dt in fields.find_all("dt", recursive=False)
    }


def test_docstring_sections_become_field_lists(page):
    assert "Parameters" in _field_labels(_entry(page, "torch_tensorrt.save"))
    export = _field_labels(_entry(page, "torch_tensorrt.executorch.export"))
    assert export == {"Parameters", "Returns", "Return type"}  # every field is one the domain knows
    assert "Raises" in _field_labels(_entry(page, "torch_tensorrt.load"))
    for path in apimodel.public_objects(apimodel.load()):
        if page.find(id=path) is not None:
            assert _field_labels(_entry(page, path)) <= {
                "Parameters",
                "Returns",
                "Return type",
                "Raises",
            }, path


def test_save_kwargs_options_are_documented(page, model):
    save = apimodel.public_objects(model)["torch_tensorrt.save"]
    popped = apimodel.popped_options(save)
    assert set(popped) == api_index.kwargs_popped(save)  # what the drift guard accepts
    entry = _entry(page, "torch_tensorrt.save")
    rubric = next(p for p in entry.find_all("p", class_="rubric") if "Options for" in p.get_text())
    assert 'output_format="executorch"' in rubric.get_text()
    terms = {
        dt.find("code").get_text(): dt
        for dt in rubric.find_next("dl").find_all("dt", recursive=False)
    }
    assert set(terms) == set(popped)
    for name, default in popped.items():
        assert f"(default {default})" in " ".join(terms[name].get_text().split())


def _field_item(entry, name: str):
    for strong in entry.find_all("strong"):
        if strong.get_text() == name:
            return strong.find_parent(["li", "dd"])  # its paragraph, and the blocks after it
    for dt in entry.find_all("dt"):
        code = dt.find("code")
        if code is not None and code.get_text() == name:
            return dt.find_next_sibling("dd")
    return None


def test_feature_notes_sit_on_their_parameters(page, data, table):
    for key, ids in data.features.items():
        path, _, param = key.partition(":")
        if key in data.absent and not param:  # a later release's name: listed under its module
            holder = next(c for c in page.find_all("code") if c.get_text() == path).find_parent(
                "li"
            )
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
        notes = [
            " ".join(div.get_text().replace("\u2019", "'").split())
            for div in entry.find_all("div", class_="caution")
        ]
        note_words = " ".join(erratum.note.replace("`", "").split())
        assert any(note_words in n for n in notes), erratum.id


def test_a_build_against_a_changed_docstring_fails_naming_the_erratum(tmp_path, model):
    planted = planted_copy(tmp_path / "site-packages", model)
    partitioner = planted / "torch_tensorrt" / "executorch" / "partitioner.py"
    text = partitioner.read_text(encoding="utf-8")
    partitioner.write_text(text.replace("is auto-appended", "is added"), encoding="utf-8")
    root = copy_root("api", tmp_path)
    result = build(
        root, root / "_build", trtdocs_api_search_paths=[str(planted), model.search_paths[0]]
    )
    assert result.returncode != 0
    assert "'partitioner-default-device'" in result.log and "api-errata.toml" in result.log


# -- cross-references ---------------------------------------------------------------


def test_prose_literals_link_to_their_entries(site):
    prose = BeautifulSoup((site / "prose.html").read_text(encoding="utf-8"), "html.parser")
    targets = {
        a["href"].split("#", 1)[1] for a in prose.find_all("a", href=re.compile(r"^api\.html#"))
    }
    assert {
        "torch_tensorrt.save",
        "torch_tensorrt.executorch.export",
        "torch_tensorrt.load",
        "torch_tensorrt_executorch_runtime.runtime.Program",
        "torch_tensorrt.executorch.TensorRTPartitioner",
    } <= targets
    # an undocumented but real name, and a later release's mapped name, stay literals
    for name in ("torch_tensorrt.Device", "torch_tensorrt_executorch_runtime.register()"):
        code = prose.find("code", string=name) or next(
            c for c in prose.find_all("code") if c.get_text() == name
        )
        assert code.find_parent("a") is None


def test_a_planted_nonexistent_name_fails_the_build(tmp_path):
    root = copy_root("api", tmp_path)
    prose = root / "prose.md"
    prose.write_text(
        prose.read_text(encoding="utf-8")
        + "\n\nPlanted: `torch_tensorrt.executorch.no_such_thing()`.\n",
        encoding="utf-8",
    )
    result = build(root, root / "_build")
    assert result.returncode != 0
    assert re.search(
        r"prose\.md:\d+: ERROR: `torch_tensorrt\.executorch\.no_such_thing\(\)` names nothing "
        r"in installed torch_tensorrt 2\.14\.0",
        result.log,
    ), result.log[-3000:]


def _loaded(built: Built) -> bool:
    """Whether the build asked its installed API for the model (a cached property)."""
    assert built.app is not None
    site = state.of(built.app.env).api
    return site is not None and "model" in vars(site)


def test_a_build_without_api_pages_never_loads_the_model(tmp_path: Path, api_build: Built) -> None:
    """The gating root with every part of trtdocs the guide lists set up, the API
    reference too, has no API page, no API literal and no code that names the
    packages. The drift guards stay off: they read the packages in a child
    process of their own and want an evidence file per page."""
    root = copy_root("gating", tmp_path)
    where = tmp_path / "cache"
    result = build(
        root,
        tmp_path / "out",
        env={"TRTDOCS_CACHE_DIR": str(where)},
        extensions=["myst_nb", *guide_parts()],
        trtdocs_drift=False,
    )
    assert result.returncode == 0, result.log[-4000:]
    assert not _loaded(result)
    assert not (where / cache.FOLDER).exists(), sorted((where / cache.FOLDER).iterdir())
    assert _loaded(api_build)  # the check sees a build that does load it

"""The API reference, generated from the installed wheels' sources.

``{api-module} <module>`` renders the public names of one module of
:data:`COVERED` as Python-domain objects (``py:function``, ``py:class``,
``py:method``, ``py:property``, ``py:data``, ``py:exception``), so ``:py:func:``
roles, the Python module index and the general index know them. Everything
comes from :func:`trtdocs.apimodel.load`, the model the drift guards check the
notebooks against:

* signatures with annotations and defaults;
* docstrings, parsed with griffe's Google-style parser (what the 2.14.0
  sources use), their sections rendered as the domain's field lists, their
  inline markup as reStructuredText;
* a link to the file and line at the upstream tag of the installed version,
  and the file's path inside site-packages.

``docs/data/api.toml`` adds what the docstrings lack: the options a function
reads from ``**kwargs`` (names and defaults from the source), features of the
features table per parameter, and upstream ``:ref:`` labels.
``docs/data/api-errata.toml`` holds the notes on docstring sentences the guide
shows to be wrong; each must still find its sentence in the installed
docstring. Both files are validated when the build starts; every problem names
the file and the entry.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import griffe
from docutils import nodes
from docutils.parsers.rst import Parser as RSTParser
from docutils.parsers.rst import roles
from docutils.utils import Reporter, new_document
from packaging.version import Version
from sphinx import addnodes
from sphinx.errors import ExtensionError
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

from . import apimodel
from . import features as features_mod
from .features import NIGHTLY, FeaturesTable

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

# Module -> the names the reference covers; None = the module's __all__.
COVERED: Mapping[str, tuple[str, ...] | None] = MappingProxyType({
    "torch_tensorrt": ("save", "load"),  # as they concern the executorch format
    "torch_tensorrt.executorch": None,
    "torch_tensorrt_executorch_runtime": None,
    "torch_tensorrt_executorch_runtime.runtime": None,
})
DOCSTRING_STYLE = "google"  # Arguments:/Keyword Arguments:/Returns:/Raises: in 2.14.0
# The data files beside this extension (docs/data), so that any site built with it
# (the tests' fixture sites too) reads the same; relative values are from the confdir.
_DOCS = Path(__file__).resolve().parents[2]
DATA_FILE = str(_DOCS / "data" / "api.toml")
ERRATA_FILE = str(_DOCS / "data" / "api-errata.toml")
SIG_MARK = "trtdocs_api_signature"  # on xrefs of signatures and types: unresolved ones render as text

_DATA_KEYS = frozenset({"options", "features", "upstream_refs"})
_OPTIONS_KEYS = frozenset({"applies", "evidence", "text"})
_ERRATUM_KEYS = frozenset({"id", "object", "param", "quote", "note", "evidence"})
_ID = re.compile(r"[a-z0-9][a-z0-9-]*\Z")


class ApiDataError(ValueError):
    """A problem in the API data files; the message names the file and entry."""


# -- Data ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Options:
    """Options a function reads from **kwargs (``[options."<object>"]``)."""

    applies: str  # the call they concern, e.g. output_format="executorch"
    evidence: str
    defaults: Mapping[str, str]  # name -> default's source text, in source order
    text: Mapping[str, str]  # name -> description (`code` in backticks)


@dataclasses.dataclass(frozen=True, slots=True)
class Erratum:
    id: str
    object: str  # public dotted path of the documented object
    param: str  # parameter or option carrying the note; "" = the entry
    quote: str  # the docstring sentence, as in the source
    note: str
    evidence: str


@dataclasses.dataclass(frozen=True, slots=True)
class ApiData:
    """The validated data files."""

    data_path: Path
    errata_path: Path
    options: Mapping[str, Options]  # object -> its kwargs options
    features: Mapping[str, tuple[str, ...]]  # "object" or "object:param" -> feature ids
    absent: frozenset[str]  # keys of ``features`` the installed wheel lacks (later releases)
    upstream_refs: Mapping[str, str]  # upstream :ref: label -> docname of this guide
    errata: tuple[Erratum, ...]

    def features_of(self, obj: str, param: str = "") -> tuple[str, ...]:
        return self.features.get(f"{obj}:{param}" if param else obj, ())

    def later_params(self, obj: str) -> list[str]:
        return [k.split(":", 1)[1] for k in self.features if k in self.absent and k.startswith(obj + ":")]


def public_objects(model: apimodel.ApiModel) -> dict[str, griffe.Object]:
    """Every object the reference documents: public dotted path -> griffe object
    (aliases followed); modules and the public members of classes included."""
    out: dict[str, griffe.Object] = {}
    for module_path, names in COVERED.items():
        module = _get(model, module_path)
        out[module_path] = module
        for name in names if names is not None else module.exports or ():
            obj = _target(module.members[name])
            path = f"{module_path}.{name}"
            out[path] = obj
            if obj.is_class:
                for member, value in _class_members(obj):
                    out[f"{path}.{member}"] = value
    return out


def _get(model: apimodel.ApiModel, path: str) -> griffe.Object:
    root, *parts = path.split(".")
    obj: griffe.Object = model.modules[root]
    for part in parts:
        obj = _target(obj.members[part])
    return obj


def _target(obj: griffe.Object | griffe.Alias) -> griffe.Object:
    return obj.final_target if obj.is_alias else obj


def _class_members(cls: griffe.Object) -> Iterator[tuple[str, griffe.Object]]:
    """Public methods and properties defined in the class (inherited ones are
    the base's API, not this package's)."""
    for name, member in cls.members.items():
        if name.startswith("_") or member.is_alias:
            continue
        if member.is_function or (member.is_attribute and "property" in member.labels):
            yield name, member


def _params(obj: griffe.Object) -> list[griffe.Parameter]:
    if obj.is_class:
        init = obj.members.get("__init__")
        obj = init if init is not None and init.is_function else None
        if obj is None:
            return []
    if not obj.is_function:
        return []
    return [p for p in obj.parameters if p.name not in ("self", "cls")]


def load_data(data_path: Path, errata_path: Path, model: apimodel.ApiModel,
              features: FeaturesTable) -> ApiData:
    """Read and check both files against the model and the features table."""
    data = _toml(data_path)
    objects = public_objects(model)
    fail = lambda entry, problem: ApiDataError(f"{data_path}: {entry}: {problem}")  # noqa: E731
    if unknown := sorted(set(data) - _DATA_KEYS):
        raise fail("top level", f"unknown key {unknown[0]!r}; allowed: {sorted(_DATA_KEYS)}")

    options: dict[str, Options] = {}
    for obj_path, raw in data.get("options", {}).items():
        entry = f"options.{obj_path!r}"
        if obj_path not in objects or not objects[obj_path].is_function:
            raise fail(entry, "names no function the reference documents")
        if not isinstance(raw, dict) or set(raw) != _OPTIONS_KEYS:
            raise fail(entry, f"needs exactly the keys {sorted(_OPTIONS_KEYS)}")
        popped = apimodel.popped_options(objects[obj_path])
        text = raw["text"]
        if not isinstance(text, dict) or not all(isinstance(v, str) and v.strip() for v in text.values()):
            raise fail(f"{entry}.text", "must map each option to a non-empty string")
        if missing := [n for n in popped if n not in text]:
            raise fail(f"{entry}.text", f"no description for {missing[0]!r}, which the installed "
                                        f"source pops from kwargs")
        if extra := sorted(set(text) - set(popped)):
            raise fail(f"{entry}.text.{extra[0]}", f"the installed source pops no such option "
                                                   f"(it pops: {', '.join(popped)})")
        options[obj_path] = Options(str(raw["applies"]), str(raw["evidence"]), popped,
                                    MappingProxyType(dict(text)))

    installed = model.versions.get("torch_tensorrt")
    feature_map: dict[str, tuple[str, ...]] = {}
    absent: set[str] = set()
    for key, ids in data.get("features", {}).items():
        entry = f"features.{key!r}"
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise fail(entry, "must be a non-empty list of feature ids")
        for fid in ids:
            try:
                features.feature(fid)
            except KeyError:
                raise fail(entry, f"unknown feature {fid!r}: {features.path} has no such id") from None
        obj_path, _, param = key.partition(":")
        exists = obj_path in objects and (not param or param in _param_names(objects[obj_path])
                                          or param in options.get(obj_path, Options("", "", {}, {})).defaults)
        if not exists:
            if param and obj_path not in objects:
                raise fail(entry, f"{obj_path} is not an object the reference documents")
            old = [f for f in ids if not _newer(features.feature(f).since, installed)]
            if old:
                raise fail(entry, f"installed torch_tensorrt {installed} has no {key.replace(':', ' parameter ')}, "
                                  f"yet feature {old[0]!r} is in {features.feature(old[0]).since}")
            absent.add(key)
        feature_map[key] = tuple(ids)

    upstream = data.get("upstream_refs", {})
    if not isinstance(upstream, dict) or not all(isinstance(v, str) for v in upstream.values()):
        raise fail("upstream_refs", "must map labels to docnames")

    errata = _errata(errata_path, objects, options)
    return ApiData(data_path, errata_path, MappingProxyType(options), MappingProxyType(feature_map),
                   frozenset(absent), MappingProxyType(dict(upstream)), errata)


def _newer(since: str, installed: str | None) -> bool:
    if since == NIGHTLY:
        return True
    if installed is None:
        return False
    v = Version(installed)
    return Version(since) > Version(f"{v.major}.{v.minor}")


def _param_names(obj: griffe.Object) -> set[str]:
    return {p.name for p in _params(obj)}


def _errata(path: Path, objects: Mapping[str, griffe.Object], options: Mapping[str, Options]) -> tuple[Erratum, ...]:
    raw = _toml(path)
    if set(raw) - {"errata"} or not isinstance(raw.get("errata", []), list):
        raise ApiDataError(f"{path}: top level: only an array [[errata]] is allowed")
    out: list[Erratum] = []
    seen: set[str] = set()
    for i, item in enumerate(raw.get("errata", [])):
        entry = f"errata[{i}]" + (f" {item['id']!r}" if isinstance(item, dict) and "id" in item else "")
        fail = lambda problem: ApiDataError(f"{path}: {entry}: {problem}")  # noqa: E731, B023
        if not isinstance(item, dict):
            raise fail("must be a table")
        if unknown := sorted(set(item) - _ERRATUM_KEYS):
            raise fail(f"unknown key {unknown[0]!r}; allowed: {sorted(_ERRATUM_KEYS)}")
        if missing := sorted(_ERRATUM_KEYS - {"param"} - set(item)):
            raise fail(f"missing key {missing[0]!r}")
        if not all(isinstance(item[k], str) and item[k].strip() for k in item):
            raise fail("every value must be a non-empty string")
        erratum = Erratum(item["id"], item["object"], item.get("param", ""), item["quote"], item["note"],
                          item["evidence"])
        if not _ID.match(erratum.id) or erratum.id in seen:
            raise fail("the id must be unique, lower-case letters, digits and '-'")
        seen.add(erratum.id)
        obj = objects.get(erratum.object)
        if obj is None:
            raise fail(f"{erratum.object} is not an object the reference documents")
        if erratum.param and erratum.param not in _param_names(obj) | set(
                options.get(erratum.object, Options("", "", {}, {})).defaults):
            raise fail(f"{erratum.object} has no parameter or option {erratum.param!r}")
        docstring = obj.docstring.value if obj.docstring else ""
        if _words(erratum.quote) not in _words(docstring):
            raise fail(f"the installed docstring of {erratum.object} ({_where(obj)}) no longer says "
                       f"{erratum.quote!r}: check whether the note still applies, then update or remove "
                       f"the erratum")
        out.append(erratum)
    return tuple(out)


def _words(text: str) -> str:
    return " ".join(text.split())


def _where(obj: griffe.Object) -> str:
    return f"{obj.relative_package_filepath.as_posix()}:{obj.lineno}"


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ApiDataError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ApiDataError(f"{path}: not valid TOML: {exc}") from None


# -- reStructuredText of the entries --------------------------------------------


def _code(text: str) -> str:
    """The data files' `code` spans as reStructuredText literals."""
    return re.sub(r"(?<!`)`([^`]+)`(?!`)", r"``\1``", text)


def _indent(text: str, prefix: str) -> list[str]:
    return [prefix + line if line.strip() else "" for line in text.splitlines()]


def _field(name: str, body: str, prefix: str) -> list[str]:
    lines = body.strip().splitlines() or [""]
    out = [f"{prefix}:{name}: {lines[0]}".rstrip()]
    out += _indent("\n".join(lines[1:]), prefix + "   ")
    return out


def _annotation(expr: object) -> str:
    text = str(expr)
    if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]  # a quoted forward reference
    return text


def signature(obj: griffe.Object, name: str) -> str:
    """``name(params) -> returns`` with annotations and defaults, from the source."""
    parts: list[str] = []
    star = False
    params = _params(obj)
    for i, p in enumerate(params):
        kind = p.kind
        if kind is griffe.ParameterKind.keyword_only and not star:
            parts.append("*")
            star = True
        text = {griffe.ParameterKind.var_positional: "*", griffe.ParameterKind.var_keyword: "**"}.get(kind, "")
        text += p.name
        if kind is griffe.ParameterKind.var_positional:
            star = True
        if p.annotation is not None:
            text += f": {_annotation(p.annotation)}"
        if p.default is not None and kind not in (griffe.ParameterKind.var_positional,
                                                  griffe.ParameterKind.var_keyword):
            text += f" = {p.default}" if p.annotation is not None else f"={p.default}"
        parts.append(text)
        if kind is griffe.ParameterKind.positional_only and (
                i + 1 == len(params) or params[i + 1].kind is not griffe.ParameterKind.positional_only):
            parts.append("/")
    out = f"{name}({', '.join(parts)})"
    if obj.is_function and obj.returns is not None:
        out += f" -> {_annotation(obj.returns)}"
    return out


class _Renderer:
    """One module's entries as reStructuredText for the Python domain."""

    def __init__(self, model: apimodel.ApiModel, data: ApiData, valid: Callable[[str], bool]) -> None:
        self.model, self.data, self.valid = model, data, valid

    def module(self, path: str) -> list[str]:
        module = _get(self.model, path)
        names = COVERED[path]
        lines = [f".. py:module:: {path}", ""]
        if names is None and module.docstring:  # the whole module's API: its own words too
            lines += [*module.docstring.value.splitlines(), ""]
        for name in names if names is not None else module.exports or ():
            lines += self.entry(f"{path}.{name}", _target(module.members[name]), "")
        later = [k for k in self.data.features if k in self.data.absent and ":" not in k
                 and k.rsplit(".", 1)[0] == path]
        if later:
            lines += [".. rubric:: Not in the installed release", "",
                      f"The installed release of ``{path}`` has none of these names.", ""]
            lines += [f"* ``{k}`` " + " ".join(f":api-feature:`{f}`" for f in self.data.features[k])
                      for k in later]
            lines.append("")
        return lines

    def entry(self, path: str, obj: griffe.Object, prefix: str) -> list[str]:
        name = path.rsplit(".", 1)[1]
        body = prefix + "   "
        if obj.is_class:
            exception = any(str(b).endswith(("Error", "Exception")) for b in obj.bases)
            kind = "exception" if exception else "class"
            head = [f"{prefix}.. py:{kind}:: {signature(obj, name) if _params(obj) else name}"]
        elif obj.is_function:
            method = prefix != ""
            kind = "method" if method else "function"
            head = [f"{prefix}.. py:{kind}:: {signature(obj, name)}"]
            if "staticmethod" in obj.labels:
                head.append(f"{body}:staticmethod:")
        elif obj.is_attribute and "property" in obj.labels:
            head = [f"{prefix}.. py:property:: {name}"]
            if obj.annotation is not None:
                head.append(f"{body}:type: {_annotation(obj.annotation)}")
        elif obj.is_attribute:
            head = [f"{prefix}.. py:data:: {name}"]
            if obj.value is not None:
                head.append(f"{body}:value: {obj.value}")
        else:
            raise ExtensionError(f"{path}: griffe kind {obj.kind.value!r} has no rendering in the API reference")
        lines = [*head, ""]
        if obj.is_class and obj.bases:
            lines += [f"{body}Bases: " + ", ".join(f"``{b}``" for b in obj.bases), ""]
        for fid in self.data.features_of(path):
            lines += [f"{body}:api-feature:`{fid}`", ""]
        lines += self.docstring(path, obj, body)
        lines += self.options(path, body)
        lines += self.later(path, body)
        for erratum in self.data.errata:
            if erratum.object == path and not erratum.param:
                lines += self.erratum(erratum, body)
        url = apimodel.source_url(self.model, obj)
        where = f"``{apimodel.site_relative(self.model, obj)}``, line {obj.lineno}"
        dist = apimodel.PACKAGES[path.split(".")[0]]
        version = self.model.versions.get(path.split(".")[0], "?")
        source = f"`Source <{url}>`__" if url else "Source"
        lines += [f"{body}.. container:: trtdocs-api-source", "",
                  f"{body}   {source}: {where}, in {dist} {version}", ""]
        if obj.is_class:
            for member, value in _class_members(obj):
                lines += self.entry(f"{path}.{member}", value, body)
        return lines

    def docstring(self, path: str, obj: griffe.Object, body: str) -> list[str]:
        lines: list[str] = []
        sections = obj.docstring.parse(DOCSTRING_STYLE) if obj.docstring else []
        documented: set[str] = set()
        for section in sections:
            kind = section.kind.value
            if kind == "text":
                lines += self.text(section.value, body)
            elif kind in ("parameters", "other parameters"):
                # Sphinx 9 lists keyword fields under Parameters too; the
                # signature's * shows which are keyword-only
                for p in section.value:
                    documented.add(p.name)
                    lines += self.param(path, "param", p.name, p.description, p.annotation, body)
            elif kind == "raises":
                for r in section.value:
                    lines += _field(f"raises {r.annotation}", r.description, body)
            elif kind == "returns":
                for r in section.value:
                    lines += _field("returns", r.description, body)
                    if r.annotation is not None:
                        lines += [f"{body}:rtype: ``{_annotation(r.annotation)}``"]
            elif kind == "examples":
                for sub_kind, text in section.value:
                    if sub_kind.value == "examples":
                        lines += [f"{body}.. code-block:: pycon", "", *_indent(text, body + "   ")]
                    else:
                        lines += _indent(text, body)
                    lines.append("")
            elif kind == "admonition":
                lines += [f"{body}.. admonition:: {section.title or section.value.annotation}", "",
                          *_indent(section.value.description, body + "   ")]
            else:
                raise ExtensionError(f"{path}: docstring section {kind!r} ({_where(obj)}) has no rendering "
                                     f"in the API reference")
            lines.append("")
        # parameters the data files annotate that the docstring leaves out
        for p in _params(obj):
            if p.name not in documented and (self.data.features_of(path, p.name) or self._errata_of(path, p.name)):
                lines += [*self.param(path, "param", p.name, "", p.annotation, body), ""]
        return lines

    def text(self, text: str, body: str) -> list[str]:
        """A text section; one that is not valid reStructuredText is shown as
        written, and says so."""
        if self.valid(text):
            return [*_indent(text, body), ""]
        return [f"{body}The installed docstring continues with text that is not valid "
                "reStructuredText, shown as written:", "",
                f"{body}.. code-block:: text", "", *_indent(text, body + "   "), ""]

    def param(self, path: str, field: str, name: str, description: str, annotation: object,
              body: str) -> list[str]:
        text = description.strip()
        notes = " ".join(f":api-feature:`{f}`" for f in self.data.features_of(path, name))
        if notes:
            text = f"{text} {notes}" if text else notes
        lines = _field(f"{field} {name}", text or "\\", body)
        for erratum in self._errata_of(path, name):
            lines += [""] + self.erratum(erratum, body + "   ")
        if annotation is not None:
            lines += [f"{body}:type {name}: ``{_annotation(annotation)}``"]
        return lines

    def _errata_of(self, path: str, param: str) -> list[Erratum]:
        return [e for e in self.data.errata if e.object == path and e.param == param]

    def options(self, path: str, body: str) -> list[str]:
        options = self.data.options.get(path)
        if options is None:
            return []
        lines = [f"{body}.. rubric:: Options for ``{options.applies}``", "",
                 f"{body}Passed as keyword arguments; the function reads them from ``**kwargs``.", ""]
        for name, default in options.defaults.items():
            lines += [f"{body}``{name}`` (default ``{default}``)"]
            text = _code(options.text[name])
            notes = " ".join(f":api-feature:`{f}`" for f in self.data.features_of(path, name))
            lines += _indent(f"{text} {notes}".strip(), body + "   ")
            for erratum in self._errata_of(path, name):
                lines += [""] + self.erratum(erratum, body + "   ")
            lines.append("")
        return lines

    def later(self, path: str, body: str) -> list[str]:
        names = self.data.later_params(path)
        if not names:
            return []
        lines = [f"{body}.. rubric:: Not in the installed release", "",
                 f"{body}The installed release has none of these keyword arguments.", ""]
        for name in names:
            notes = " ".join(f":api-feature:`{f}`" for f in self.data.features_of(path, name))
            lines += [f"{body}* ``{name}`` {notes}"]
        return [*lines, ""]

    def erratum(self, erratum: Erratum, prefix: str) -> list[str]:
        return [f"{prefix}.. admonition:: Erratum of the installed docstring", f"{prefix}   :class: caution",
                "", *_indent(f"The docstring says: “{erratum.quote}”", prefix + "   "), "",
                *_indent(_code(erratum.note), prefix + "   "), ""]


# -- Sphinx ----------------------------------------------------------------------


def data_of(env: BuildEnvironment) -> ApiData:
    return env.app.trtdocs_api_data


def model_of(app: Sphinx) -> apimodel.ApiModel:
    return apimodel.load([Path(app.confdir) / p for p in app.config.trtdocs_api_search_paths] or None)


class ApiModule(SphinxDirective):
    """``{api-module} <module>``: the module's entries (a module of :data:`COVERED`)."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        path = self.arguments[0].strip()
        if path not in COVERED:
            raise self.error(f"{path} is not a module the API reference covers ({', '.join(COVERED)})")
        app = self.env.app
        data = data_of(self.env)
        for f in (data.data_path, data.errata_path):
            self.env.note_dependency(str(f))
        self.env.trtdocs_api_docs.add(self.env.docname)
        text = "\n".join(_Renderer(model_of(app), data, self._valid).module(path))
        out = self._parse(text)
        for ref in (n for top in out for n in top.findall(addnodes.pending_xref)):
            if _feature_note(ref):
                continue
            if ref.get("refdomain") == "std" and ref.get("reftype") == "ref":
                label = ref["reftarget"]
                if label not in data.upstream_refs:
                    logger.error("a docstring links to upstream label %r, which %s does not map to a page "
                                 "(upstream_refs)", label, data.data_path, location=self.get_location(),
                                 type="trtdocs", subtype="api")
                    continue
                ref["reftype"], ref["reftarget"] = "doc", "/" + data.upstream_refs[label]
            elif _in_signature_or_type(ref):
                ref[SIG_MARK] = True
        return out

    def _valid(self, text: str) -> bool:
        """Whether docutils parses ``text`` without a warning or error."""
        problems: list[nodes.system_message] = []
        self._parse(text, problems)
        return not problems

    def _parse(self, text: str, problems: list[nodes.system_message] | None = None) -> list[nodes.Node]:
        """Parse generated reStructuredText in the host page (MyST or reST), the
        way MyST's eval-rst does, with `code` as the default role (docstrings
        use single backquotes for code)."""
        document = self.state.document
        sub = new_document(document["source"], document.settings)
        if problems is None:
            sub.reporter = document.reporter
        else:  # a trial parse: collect what docutils reports, print nothing
            sub.reporter = Reporter(document["source"], Reporter.SEVERE_LEVEL + 1, Reporter.SEVERE_LEVEL + 1,
                                    stream=False)
            sub.reporter.attach_observer(lambda msg: problems.append(msg) if msg["level"] >= 2 else None)
        saved = roles._roles.get("")
        roles._roles[""] = roles.code_role
        try:
            RSTParser().parse(text, sub)
        finally:
            if saved is None:
                roles._roles.pop("", None)
            else:
                roles._roles[""] = saved
        return list(sub.children)


def _feature_note(ref: addnodes.pending_xref) -> bool:
    """A link of a feature note to the support matrix."""
    return isinstance(ref.parent, nodes.inline) and "trtdocs-feature" in ref.parent["classes"]


class ApiFeatureRole(SphinxRole):
    """``:api-feature:`<id>``` in generated entries: the feature's title and its
    note from the features table, as a link to its row of the support matrix
    (the {feature} role gives the note alone, which prose puts next to the name)."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        feature = features_mod._use(self.env, self.text.strip(), self.get_location())
        if feature is None:
            return [], []
        table = features_mod.table_of(self.env)
        wrapper = nodes.inline(classes=["trtdocs-feature"])
        wrapper += nodes.Text("(")
        wrapper += features_mod._matrix_ref(self.env, feature, f"{feature.title}: {table.note_text(feature)}")
        wrapper += nodes.Text(")")
        return [wrapper], []


def _in_signature_or_type(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, addnodes.desc_signature):
            return True
        if isinstance(parent, nodes.field_body):
            return False
        parent = parent.parent
    return False


def _annotation_as_text(app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref,
                        contnode: nodes.Element) -> nodes.Element | None:
    """An annotation naming something outside the reference (``torch.Tensor``,
    ``Optional``, an undocumented torch_tensorrt class) renders as text."""
    if node.get(SIG_MARK):
        return contnode
    return None


def _load(app: Sphinx) -> None:
    features: FeaturesTable = app.trtdocs_features
    model = model_of(app)
    root = Path(app.confdir)
    try:
        app.trtdocs_api_data = load_data(root / app.config.trtdocs_api_data_file,
                                         root / app.config.trtdocs_api_errata_file, model, features)
    except ApiDataError as exc:
        raise ExtensionError(str(exc)) from None
    env = app.env
    if not hasattr(env, "trtdocs_api_docs"):
        env.trtdocs_api_docs = set()


def model_digest(model: apimodel.ApiModel) -> str:
    """Versions and the source files of the documented objects."""
    h = hashlib.sha256(repr(sorted(model.versions.items())).encode())
    for f in sorted({str(o.filepath) for o in public_objects(model).values() if not isinstance(o.filepath, list)}):
        h.update(f.encode())
        h.update(Path(f).read_bytes())
    return h.hexdigest()


def _outdated(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str],
              removed: set[str]) -> list[str]:
    """Pages made from the model (the reference, prose whose literals were
    checked against it) are read again when the installed sources change."""
    digest = model_digest(model_of(app))
    if getattr(env, "trtdocs_api_digest", None) == digest:
        return []
    env.trtdocs_api_digest = digest
    return sorted(env.trtdocs_api_docs - removed)


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    env.trtdocs_api_docs.discard(docname)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    env.trtdocs_api_docs |= other.trtdocs_api_docs & docnames


def setup(app: Sphinx) -> ExtensionMetadata:
    # needs trtdocs.features (set up beside it by trtdocs, or listed before it)
    app.add_config_value("trtdocs_api_data_file", DATA_FILE, "env", types=(str,))
    app.add_config_value("trtdocs_api_errata_file", ERRATA_FILE, "env", types=(str,))
    # [] = this interpreter's site-packages; tests point it at a planted copy
    app.add_config_value("trtdocs_api_search_paths", [], "env", types=(list,))
    app.connect("builder-inited", _load, priority=350)
    app.connect("env-get-outdated", _outdated)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("missing-reference", _annotation_as_text)
    app.add_directive("api-module", ApiModule)
    app.add_role("api-feature", ApiFeatureRole())
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

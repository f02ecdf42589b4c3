"""The API reference's own data, read and checked against the installed API
and the features table. Pure: no Sphinx.

``docs/data/api.toml`` adds what the docstrings lack: the options a function
reads from ``**kwargs`` (names and defaults from the source), features of the
features table per parameter, upstream ``:ref:`` labels, and what a call
returns for one keyword's value where the annotation says ``Any``
(:mod:`.returns`).
``docs/data/api-errata.toml`` holds the notes on docstring sentences the guide
shows to be wrong; each must still find its sentence in the installed
docstring. :func:`load_data` checks both; every problem names the file and the
entry.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import griffe
from packaging.version import Version

from .. import tomlfile
from ..features.model import FeaturesTable
from ..vocab import NIGHTLY
from . import model
from .index import ApiIndex
from .model import ApiModel, params, public_objects
from .returns import Returns, ReturnsError, load_returns

_DATA_KEYS = frozenset({"options", "features", "upstream_refs", "returns"})
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
    returns: tuple[Returns, ...] = ()  # [[returns]]: a call's class for one keyword's value

    def features_of(self, obj: str, param: str = "") -> tuple[str, ...]:
        return self.features.get(f"{obj}:{param}" if param else obj, ())

    def later_params(self, obj: str) -> list[str]:
        return [
            k.split(":", 1)[1]
            for k in self.features
            if k in self.absent and k.startswith(obj + ":")
        ]


def load_data(
    data_path: Path, errata_path: Path, api: ApiModel, features: FeaturesTable
) -> ApiData:
    """Read and check both files against the model and the features table."""
    data = _toml(data_path)
    objects = public_objects(api)
    fail = functools.partial(_problem, data_path)
    if unknown := sorted(set(data) - _DATA_KEYS):
        raise fail("top level", f"unknown key {unknown[0]!r}; allowed: {sorted(_DATA_KEYS)}")

    options: dict[str, Options] = {}
    for obj_path, raw in data.get("options", {}).items():
        entry = f"options.{obj_path!r}"
        func = objects.get(obj_path)
        if not isinstance(func, griffe.Function):
            raise fail(entry, "names no function the reference documents")
        if not isinstance(raw, dict) or set(raw) != _OPTIONS_KEYS:
            raise fail(entry, f"needs exactly the keys {sorted(_OPTIONS_KEYS)}")
        popped = model.popped_options(func)
        text = raw["text"]
        if not isinstance(text, dict) or not all(
            isinstance(v, str) and v.strip() for v in text.values()
        ):
            raise fail(f"{entry}.text", "must map each option to a non-empty string")
        if missing := [n for n in popped if n not in text]:
            raise fail(
                f"{entry}.text",
                f"no description for {missing[0]!r}, which the installed source pops from kwargs",
            )
        if extra := sorted(set(text) - set(popped)):
            raise fail(
                f"{entry}.text.{extra[0]}",
                f"the installed source pops no such option (it pops: {', '.join(popped)})",
            )
        options[obj_path] = Options(
            str(raw["applies"]), str(raw["evidence"]), popped, MappingProxyType(dict(text))
        )

    installed = api.versions.get("torch_tensorrt")
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
                raise fail(
                    entry, f"unknown feature {fid!r}: {features.path} has no such id"
                ) from None
        obj_path, _, param = key.partition(":")
        exists = obj_path in objects and (
            not param
            or param in param_names(objects[obj_path])
            or param in options.get(obj_path, Options("", "", {}, {})).defaults
        )
        if not exists:
            if param and obj_path not in objects:
                raise fail(entry, f"{obj_path} is not an object the reference documents")
            old = [f for f in ids if not _newer(features.feature(f).since, installed)]
            if old:
                raise fail(
                    entry,
                    f"installed torch_tensorrt {installed} has no "
                    f"{key.replace(':', ' parameter ')}, yet feature {old[0]!r} is in "
                    f"{features.feature(old[0]).since}",
                )
            absent.add(key)
        feature_map[key] = tuple(ids)

    upstream = data.get("upstream_refs", {})
    if not isinstance(upstream, dict) or not all(isinstance(v, str) for v in upstream.values()):
        raise fail("upstream_refs", "must map labels to docnames")

    errata = _errata(errata_path, objects, options)
    try:
        returns = load_returns(data_path, data.get("returns", []), ApiIndex.of(api), objects)
    except ReturnsError as exc:
        raise ApiDataError(str(exc)) from None
    return ApiData(
        data_path,
        errata_path,
        MappingProxyType(options),
        MappingProxyType(feature_map),
        frozenset(absent),
        MappingProxyType(dict(upstream)),
        errata,
        returns,
    )


def _problem(path: Path, entry: str, problem: str) -> ApiDataError:
    return ApiDataError(f"{path}: {entry}: {problem}")


def _newer(since: str, installed: str | None) -> bool:
    if since == NIGHTLY:
        return True
    if installed is None:
        return False
    v = Version(installed)
    return Version(since) > Version(f"{v.major}.{v.minor}")


def param_names(obj: griffe.Object) -> set[str]:
    """The names of a function's (or a class's ``__init__``'s) parameters."""
    return {p.name for p in params(obj)}


def _errata(
    path: Path, objects: Mapping[str, griffe.Object], options: Mapping[str, Options]
) -> tuple[Erratum, ...]:
    raw = _toml(path)
    if set(raw) - {"errata"} or not isinstance(raw.get("errata", []), list):
        raise ApiDataError(f"{path}: top level: only an array [[errata]] is allowed")
    out: list[Erratum] = []
    seen: set[str] = set()
    for i, item in enumerate(raw.get("errata", [])):
        entry = f"errata[{i}]" + (
            f" {item['id']!r}" if isinstance(item, dict) and "id" in item else ""
        )
        fail = functools.partial(_problem, path, entry)
        if not isinstance(item, dict):
            raise fail("must be a table")
        if unknown := sorted(set(item) - _ERRATUM_KEYS):
            raise fail(f"unknown key {unknown[0]!r}; allowed: {sorted(_ERRATUM_KEYS)}")
        if missing := sorted(_ERRATUM_KEYS - {"param"} - set(item)):
            raise fail(f"missing key {missing[0]!r}")
        if not all(isinstance(item[k], str) and item[k].strip() for k in item):
            raise fail("every value must be a non-empty string")
        erratum = Erratum(
            item["id"],
            item["object"],
            item.get("param", ""),
            item["quote"],
            item["note"],
            item["evidence"],
        )
        if not _ID.match(erratum.id) or erratum.id in seen:
            raise fail("the id must be unique, lower-case letters, digits and '-'")
        seen.add(erratum.id)
        obj = objects.get(erratum.object)
        if obj is None:
            raise fail(f"{erratum.object} is not an object the reference documents")
        if erratum.param and erratum.param not in param_names(obj) | set(
            options.get(erratum.object, Options("", "", {}, {})).defaults
        ):
            raise fail(f"{erratum.object} has no parameter or option {erratum.param!r}")
        docstring = obj.docstring.value if obj.docstring else ""
        if _words(erratum.quote) not in _words(docstring):
            raise fail(
                f"the installed docstring of {erratum.object} ({where(obj)}) no longer says "
                f"{erratum.quote!r}: check whether the note still applies, then update or remove "
                f"the erratum"
            )
        out.append(erratum)
    return tuple(out)


def _words(text: str) -> str:
    return " ".join(text.split())


def where(obj: griffe.Object) -> str:
    """``<file in its package>:<line>`` of an object, for messages."""
    return f"{obj.relative_package_filepath.as_posix()}:{obj.lineno}"


def _toml(path: Path) -> dict[str, Any]:
    return tomlfile.read(path, ApiDataError)

"""The API reference's entries as reStructuredText for Sphinx's Python domain
(``py:function``, ``py:class``, ``py:method``, ``py:property``, ``py:data``,
``py:exception``), the way autodoc writes them, and the parser that reads them.

:class:`Renderer` writes one module's entries from the griffe model:
signatures with annotations and defaults; docstrings, parsed with griffe's
Google-style parser (what the 2.14.0 sources use), their sections as the
domain's field lists and their inline markup as reStructuredText; a link to the
file and line at the upstream tag of the installed version; and what
``docs/data`` adds (options, feature notes, errata).

:func:`parse` reads such text into nodes with docutils' reStructuredText
parser and an inliner whose default role is ``code`` (docstrings use single
backquotes for code); docutils' global role table is left alone.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Final

import griffe
from docutils import nodes
from docutils.parsers.rst import Parser as RSTParser
from docutils.parsers.rst import roles
from docutils.parsers.rst.states import Inliner
from docutils.utils import Reporter, new_document
from sphinx.errors import ExtensionError

from ..vocab import PACKAGES
from . import model
from .data import ApiData, Erratum, where
from .model import ApiModel, class_members, exported, get, params, target

DOCSTRING_STYLE: Final = "google"  # Arguments:/Keyword Arguments:/Returns:/Raises: in 2.14.0
# What a signature writes before a parameter of each kind.
_STARS: dict[griffe.ParameterKind | None, str] = {
    griffe.ParameterKind.var_positional: "*",
    griffe.ParameterKind.var_keyword: "**",
}


class _CodeInliner(Inliner):
    """docutils' inliner, with ``code`` as the role of `interpreted text` that names none."""

    # Inliner.init_customizations fills its patterns from the attributes of the
    # instance's own class (``vars(self.__class__)``), not of its bases: repeat them.
    vars().update({name: value for name, value in vars(Inliner).items() if isinstance(value, str)})

    def interpreted(self, rawsource: str, text: str, role: str, lineno: int) -> tuple[list, list]:
        if role:
            return super().interpreted(rawsource, text, role, lineno)
        return roles.code_role(role, rawsource, text, lineno, self)


def parse(
    text: str, document: nodes.document, problems: list[nodes.system_message] | None = None
) -> list[nodes.Node]:
    """Nodes of the reStructuredText ``text``, parsed for ``document`` (a MyST or a
    reST page) the way MyST's eval-rst does. With ``problems``, a trial parse:
    what docutils reports goes there and nothing is printed."""
    sub = new_document(document["source"], document.settings)
    if problems is None:
        sub.reporter = document.reporter
    else:
        sub.reporter = Reporter(
            document["source"], Reporter.SEVERE_LEVEL + 1, Reporter.SEVERE_LEVEL + 1, stream=False
        )
        sub.reporter.attach_observer(
            lambda msg: problems.append(msg) if msg["level"] >= 2 else None
        )
    RSTParser(inliner=_CodeInliner()).parse(text, sub)
    return list(sub.children)


def _code(text: str) -> str:
    """The data files' `code` spans as reStructuredText literals."""
    return re.sub(r"(?<!`)`([^`]+)`(?!`)", r"``\1``", text)


def _indent(text: str, prefix: str) -> list[str]:
    return [prefix + line if line.strip() else "" for line in text.splitlines()]


def _field(name: str, body: str, prefix: str) -> list[str]:
    body = body.strip()
    if (
        "\n\n" in body
    ):  # blocks: the body starts on its own line, so that its indentation is the field's
        return [f"{prefix}:{name}:", *_indent(body, prefix + "   "), ""]
    lines = body.splitlines() or [""]
    out = [f"{prefix}:{name}: {lines[0]}".rstrip()]
    out += _indent("\n".join(lines[1:]), prefix + "   ")
    return out


def _escaped(name: str) -> str:
    """A parameter's name in a field (``**kwargs``: stars are markup there)."""
    return name.replace("*", "\\*")


def _annotation(expr: object) -> str:
    text = str(expr)
    if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]  # a quoted forward reference
    return text


def default_text(api: ApiModel, param: griffe.Parameter) -> str:
    """A parameter's default as the signature shows it: the value of a module
    constant it names (``_defaults.MIN_BLOCK_SIZE`` shows ``5``) when that
    value is a literal, else its source text."""
    path = getattr(param.default, "canonical_path", None)
    if path and path.split(".")[0] in api.modules:
        try:
            constant = get(api, path)
        except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return str(param.default)
        if isinstance(constant, griffe.Attribute) and constant.value is not None:
            try:
                ast.literal_eval(str(constant.value))
            except (ValueError, SyntaxError):
                return str(param.default)
            return str(constant.value)
    return str(param.default)


def signature(obj: griffe.Object, name: str, api: ApiModel) -> str:
    """``name(params) -> returns`` with annotations and defaults, from the source."""
    parts: list[str] = []
    star = False
    plist = params(obj)
    for i, p in enumerate(plist):
        kind = p.kind
        if kind is griffe.ParameterKind.keyword_only and not star:
            parts.append("*")
            star = True
        text = _STARS.get(kind, "") + p.name
        if kind is griffe.ParameterKind.var_positional:
            star = True
        if p.annotation is not None:
            text += f": {_annotation(p.annotation)}"
        if p.default is not None and kind not in (
            griffe.ParameterKind.var_positional,
            griffe.ParameterKind.var_keyword,
        ):
            default = default_text(api, p)
            text += f" = {default}" if p.annotation is not None else f"={default}"
        parts.append(text)
        if kind is griffe.ParameterKind.positional_only and (
            i + 1 == len(plist) or plist[i + 1].kind is not griffe.ParameterKind.positional_only
        ):
            parts.append("/")
    out = f"{name}({', '.join(parts)})"
    if isinstance(obj, griffe.Function) and obj.returns is not None:
        out += f" -> {_annotation(obj.returns)}"
    return out


class Renderer:
    """One module's entries as reStructuredText for the Python domain."""

    def __init__(self, api: ApiModel, data: ApiData, valid: Callable[[str], bool]) -> None:
        self.model, self.data, self.valid = api, data, valid

    def module(self, path: str) -> list[str]:
        module = get(self.model, path)
        names = model.COVERED[path]
        lines = [f".. py:module:: {path}", ""]
        if names is None and module.docstring:  # the whole module's API: its own words too
            lines += [*module.docstring.value.splitlines(), ""]
        for name in names if names is not None else exported(module):
            lines += self.entry(f"{path}.{name}", target(module.members[name]), "")
        later = [
            k
            for k in self.data.features
            if k in self.data.absent and ":" not in k and k.rsplit(".", 1)[0] == path
        ]
        if later:
            lines += [
                ".. rubric:: Not in the installed release",
                "",
                f"The installed release of ``{path}`` has none of these names.",
                "",
            ]
            lines += [
                f"* ``{k}`` " + " ".join(f":api-feature:`{f}`" for f in self.data.features[k])
                for k in later
            ]
            lines.append("")
        return lines

    def entry(self, path: str, obj: griffe.Object, prefix: str) -> list[str]:
        name = path.rsplit(".", 1)[1]
        body = prefix + "   "
        if isinstance(obj, griffe.Class):
            exception = any(str(b).endswith(("Error", "Exception")) for b in obj.bases)
            kind = "exception" if exception else "class"
            head = [
                f"{prefix}.. py:{kind}:: "
                f"{signature(obj, name, self.model) if params(obj) else name}"
            ]
        elif isinstance(obj, griffe.Function):
            method = prefix != ""
            kind = "method" if method else "function"
            head = [f"{prefix}.. py:{kind}:: {signature(obj, name, self.model)}"]
            if "staticmethod" in obj.labels:
                head.append(f"{body}:staticmethod:")
        elif isinstance(obj, griffe.Attribute) and "property" in obj.labels:
            head = [f"{prefix}.. py:property:: {name}"]
            if obj.annotation is not None:
                head.append(f"{body}:type: {_annotation(obj.annotation)}")
        elif isinstance(obj, griffe.Attribute):
            head = [f"{prefix}.. py:data:: {name}"]
            if obj.value is not None:
                head.append(f"{body}:value: {obj.value}")
        else:
            raise ExtensionError(
                f"{path}: griffe kind {obj.kind.value!r} has no rendering in the API reference"
            )
        lines = [*head, ""]
        if isinstance(obj, griffe.Class) and obj.bases:
            lines += [f"{body}Bases: " + ", ".join(f"``{b}``" for b in obj.bases), ""]
        for fid in self.data.features_of(path):
            lines += [f"{body}:api-feature:`{fid}`", ""]
        lines += self.docstring(path, obj, body)
        lines += self.options(path, body)
        lines += self.later(path, body)
        for erratum in self.data.errata:
            if erratum.object == path and not erratum.param:
                lines += self.erratum(erratum, body)
        url = model.source_url(self.model, obj)
        where = f"``{model.site_relative(self.model, obj)}``, line {obj.lineno}"
        dist = PACKAGES[path.split(".")[0]]
        version = self.model.versions.get(path.split(".")[0], "?")
        source = f"`Source <{url}>`__" if url else "Source"
        lines += [
            f"{body}.. container:: trtdocs-api-source",
            "",
            f"{body}   {source}: {where}, in {dist} {version}",
            "",
        ]
        if obj.is_class:
            for member, value in class_members(obj):
                lines += self.entry(f"{path}.{member}", value, body)
        return lines

    def docstring(self, path: str, obj: griffe.Object, body: str) -> list[str]:
        lines: list[str] = []
        sections = obj.docstring.parse(DOCSTRING_STYLE, warnings=False) if obj.docstring else []
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
                    lines += _field(f"raises {r.annotation}", self.prose(r.description), body)
            elif kind == "returns":
                for r in section.value:
                    lines += _field("returns", self.prose(r.description), body)
                    if r.annotation is not None:
                        lines += [f"{body}:rtype: ``{_annotation(r.annotation)}``"]
            elif kind == "examples":
                for sub_kind, text in section.value:
                    if sub_kind.value == "examples":
                        lines += [f"{body}.. code-block:: pycon", "", *_indent(text, body + "   ")]
                    else:
                        lines += _indent(text, body)
                    lines.append("")
            elif kind == "attributes":
                lines += [f"{body}.. rubric:: Attributes", ""]
                for a in section.value:
                    head = f"``{a.name}``" + (
                        f" (``{_annotation(a.annotation)}``)" if a.annotation is not None else ""
                    )
                    lines += [
                        f"{body}{head}",
                        *_indent(a.description.strip() or "\\", body + "   "),
                        "",
                    ]
            elif kind == "admonition":
                lines += [
                    f"{body}.. admonition:: {section.title or section.value.annotation}",
                    "",
                    *_indent(section.value.description, body + "   "),
                ]
            else:
                raise ExtensionError(
                    f"{path}: docstring section {kind!r} ({where(obj)}) has no rendering "
                    f"in the API reference"
                )
            lines.append("")
        # parameters the data files annotate that the docstring leaves out
        for p in params(obj):
            if p.name not in documented and (
                self.data.features_of(path, p.name) or self._errata_of(path, p.name)
            ):
                lines += [*self.param(path, "param", p.name, "", p.annotation, body), ""]
        return lines

    def text(self, text: str, body: str) -> list[str]:
        """A text section; one that is not valid reStructuredText is shown as
        written, and says so."""
        if self.valid(text):
            return [*_indent(text, body), ""]
        return [
            f"{body}The installed docstring continues with text that is not valid "
            "reStructuredText, shown as written:",
            "",
            f"{body}.. code-block:: text",
            "",
            *_indent(text, body + "   "),
            "",
        ]

    def prose(self, text: str) -> str:
        """A field's description as reStructuredText: as written when it is valid
        in its field, else as a literal block, so that its text is shown as it is."""
        text = text.strip()
        if not text or self.valid("\n".join(_field("field", text, ""))):
            return text
        return "Shown as the installed docstring writes it::\n\n" + "\n".join(_indent(text, "   "))

    def param(
        self, path: str, field: str, name: str, description: str, annotation: object, body: str
    ) -> list[str]:
        text = self.prose(description)
        notes = " ".join(f":api-feature:`{f}`" for f in self.data.features_of(path, name))
        if notes:
            text = f"{text} {notes}" if text else notes
        lines = _field(f"{field} {_escaped(name)}", text or "\\", body)
        for erratum in self._errata_of(path, name):
            lines += [""] + self.erratum(erratum, body + "   ")
        if annotation is not None:
            lines += [f"{body}:type {_escaped(name)}: ``{_annotation(annotation)}``"]
        return lines

    def _errata_of(self, path: str, param: str) -> list[Erratum]:
        return [e for e in self.data.errata if e.object == path and e.param == param]

    def options(self, path: str, body: str) -> list[str]:
        options = self.data.options.get(path)
        if options is None:
            return []
        lines = [
            f"{body}.. rubric:: Options for ``{options.applies}``",
            "",
            f"{body}Passed as keyword arguments; the function reads them from ``**kwargs``.",
            "",
        ]
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
        lines = [
            f"{body}.. rubric:: Not in the installed release",
            "",
            f"{body}The installed release has none of these keyword arguments.",
            "",
        ]
        for name in names:
            notes = " ".join(f":api-feature:`{f}`" for f in self.data.features_of(path, name))
            lines += [f"{body}* ``{name}`` {notes}"]
        return [*lines, ""]

    def erratum(self, erratum: Erratum, prefix: str) -> list[str]:
        return [
            f"{prefix}.. admonition:: Erratum of the installed docstring",
            f"{prefix}   :class: caution",
            "",
            *_indent(f"The docstring says: “{erratum.quote}”", prefix + "   "),
            "",
            *_indent(_code(erratum.note), prefix + "   "),
            "",
        ]

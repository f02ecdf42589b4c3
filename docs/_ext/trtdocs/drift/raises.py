"""The failure register: the errors the installed sources raise on the guide's
calls and options, and where the guide names each one (issue 27).

``docs/evidence/failures.toml`` holds two kinds of table:

* ``[[scope]]``: a call the guide documents and the functions of one installed
  file that it reaches (``call``, ``dist = "name==version"``, ``path`` inside
  site-packages, ``functions`` by qualified name, ``"<module>"`` for module
  code). Every ``raise`` that starts an error in those functions needs an
  entry; a re-raise of a caught error does not.
* ``[[failure]]``: one error. ``call`` (and ``option``) it belongs to;
  ``error``, the exception or error code and a fragment of its message;
  ``site = {dist, path, function, fragment}``, where ``fragment`` is a
  verbatim piece of the ``raise`` (or ``assert``) statement inside
  ``function`` of the installed ``path``; for compiled code ``path`` is the
  binary, ``function`` is left out and ``fragment`` is the logged message,
  found in the binary's bytes, with ``upstream = {repo, commit, path,
  function}`` naming the source (an error return that logs nothing has no
  ``site``, only ``upstream`` with its ``fragment``). ``reach`` is ``"user"`` (the call's input,
  its files or its machine can cause it) or ``"internal"`` (a guard against
  a state the call itself does not produce; ``why`` says so). A user entry
  is ``named`` (``{anchor = "error-..."}`` in docs/data/errors.toml, or
  ``{page = "notebooks/x.md", text = "..."}`` in that page's source) or
  ``left_out`` with the reason.

:func:`check` reads the installed files through ``importlib.metadata`` of
this interpreter (nothing is imported; :mod:`.raisesites` finds their
raise statements) and returns :class:`Violation` objects
with the register's line. Pure: no Sphinx.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .. import tomlfile
from ..pages import Violation
from ..tomlfile import TomlFileError
from .raisesites import MODULE, Site, defines, installed_file, sites_of, suggest

REGISTER = "docs/evidence/failures.toml"
ERRORS = "docs/data/errors.toml"
REACH = frozenset({"user", "internal"})
TOP_KEYS = frozenset({"scope", "failure"})
SCOPE_KEYS = frozenset({"call", "dist", "path", "functions"})
FAILURE_KEYS = frozenset(
    {"call", "option", "error", "site", "upstream", "reach", "why", "named", "left_out"}
)
SITE_KEYS = frozenset({"dist", "path", "function", "fragment"})
UPSTREAM_KEYS = frozenset({"repo", "commit", "path", "function", "fragment"})
RULES: Mapping[str, str] = MappingProxyType(
    {
        "failures-toml": "the register is valid TOML",
        "failures-keys": "[[scope]] and [[failure]] tables with their keys only, each of the right "
        "type",
        "failures-version": "the register's dist versions are the installed ones",
        "failures-site": "each site's fragment occurs in a raise or assert of its function in the "
        "installed file (in the binary's bytes for compiled code)",
        "failures-scope": "each raise in a scope's functions has an entry",
        "failures-named": "each named target exists: the anchor in docs/data/errors.toml, the text "
        "in the page",
        "failures-reach": "reach is user or internal; a user entry is named or left out, an "
        "internal one says why",
    }
)
_WS = re.compile(r"\s+")


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    line: int  # the register line of its table header
    data: dict[str, Any]


def _headers(raw: str) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {k: [] for k in TOP_KEYS}
    for n, text in enumerate(raw.splitlines(), start=1):
        if m := re.fullmatch(r"\[\[(\w+)\]\]", text.strip()):
            out.setdefault(m[1], []).append(n)
    return out


def load(path: Path, rel: str) -> tuple[list[Entry], list[Entry], list[Violation]]:
    """The register's scopes and failures, and what is wrong with its shape."""
    raw = path.read_text(encoding="utf-8")
    try:
        data = tomlfile.parse(raw, path)
    except TomlFileError as exc:
        return [], [], [Violation(rel, exc.line, "failures-toml", exc.problem)]
    problems: list[Violation] = []
    if unknown := set(data) - TOP_KEYS:
        problems.append(
            Violation(rel, 1, "failures-keys", f"unknown top-level key(s) {sorted(unknown)}")
        )
    headers = _headers(raw)
    tables: dict[str, list[Entry]] = {}
    for kind, keys in (("scope", SCOPE_KEYS), ("failure", FAILURE_KEYS)):
        tables[kind] = []
        items = data.get(kind, [])
        for n, item in enumerate(items if isinstance(items, list) else []):
            line = headers[kind][n] if n < len(headers[kind]) else 1
            if bad := _shape(kind, item, keys):
                problems.append(Violation(rel, line, "failures-keys", bad))
            else:
                tables[kind].append(Entry(line, item))
    return tables["scope"], tables["failure"], problems


def _shape(kind: str, item: object, keys: frozenset[str]) -> str | None:
    """What is wrong with one table's keys and types, or None."""
    if not isinstance(item, dict):
        return f"a [[{kind}]] must be a table"
    if unknown := set(item) - keys:
        return f"unknown key(s) {sorted(unknown)}; a [[{kind}]] has {', '.join(sorted(keys))}"
    need = ["call", "dist", "path"] if kind == "scope" else ["call", "error", "reach"]
    if missing := [k for k in need if not isinstance(item.get(k), str) or not item[k].strip()]:
        return f"{', '.join(missing)} missing or empty"
    if kind == "scope":
        funcs = item.get("functions")
        ok = isinstance(funcs, list) and funcs and all(isinstance(f, str) and f for f in funcs)
        return None if ok else "functions must be a non-empty list of names"
    site, upstream = item.get("site"), item.get("upstream")
    if upstream is not None and (
        not isinstance(upstream, dict)
        or set(upstream) - UPSTREAM_KEYS
        or not all(
            isinstance(upstream.get(k), str) and upstream[k]
            for k in ("repo", "commit", "path", "function")
        )
    ):
        return (
            "upstream must be a table with repo, commit, path, function (and fragment): "
            f"{upstream!r}"
        )
    if site is None and not (upstream and upstream.get("fragment")):
        return (
            "site missing: only an error with no message in the binary goes without one, with "
            "upstream.fragment"
        )
    if site is not None and (
        not isinstance(site, dict)
        or set(site) - SITE_KEYS
        or not all(isinstance(site.get(k), str) and site[k] for k in ("dist", "path", "fragment"))
    ):
        return f"site must be a table with dist, path, fragment (and function): {site!r}"
    named = item.get("named")
    if named is not None and not (
        isinstance(named, dict)
        and (set(named) == {"anchor"} or set(named) == {"page", "text"})
        and all(isinstance(v, str) and v for v in named.values())
    ):
        return f"named must be {{anchor = ...}} or {{page = ..., text = ...}}: {named!r}"
    for key in ("option", "why", "left_out"):
        if key in item and (not isinstance(item[key], str) or not item[key].strip()):
            return f"{key} must be a non-empty string"
    return None


def _pages(root: Path, rel: str, cache: dict[str, str | None]) -> str | None:
    if rel not in cache:
        page = root / rel
        cache[rel] = _WS.sub(" ", page.read_text(encoding="utf-8")) if page.is_file() else None
    return cache[rel]


def files_read(root: Path, register: str = REGISTER) -> list[Path]:
    """The repository files :func:`check` reads: the register, the errors table, the named pages."""
    out = [root / register, root / ERRORS]
    try:
        failures = tomlfile.read(root / register).get("failure", [])
    except TomlFileError:  # check() reports it
        return out
    pages = {
        f["named"]["page"]
        for f in failures
        if isinstance(f, dict)
        and isinstance(f.get("named"), dict)
        and isinstance(f["named"].get("page"), str)
    }
    return out + [root / p for p in sorted(pages)]


def check(root: Path, register: str = REGISTER) -> list[Violation]:
    """Every rule of :data:`RULES` on the register at ``root/register``."""
    root = root.resolve()
    path = root / register
    if not path.is_file():
        return []
    scopes, failures, violations = load(path, register)
    anchors = (
        {e.get("anchor") for e in tomlfile.read(root / ERRORS).get("errors", [])}
        if (root / ERRORS).is_file()
        else set()
    )
    versions: dict[str, Any] = {}
    parsed: dict[Path, list[Site]] = {}
    binaries: dict[Path, bytes] = {}
    pages: dict[str, str | None] = {}
    covered: dict[tuple[Path, int], bool] = {}
    for entry in failures:
        violations += _check_failure(root, register, entry, anchors, pages)
        site = entry.data.get("site")
        if site is None:
            # a silent error return of compiled code: upstream names it (tests check it there)
            continue
        file, why = installed_file(site["dist"], site["path"], versions)
        if file is None:
            rule = "failures-version" if "is installed" in (why or "") else "failures-site"
            violations.append(Violation(register, entry.line, rule, str(why)))
            continue
        if file.suffix != ".py":
            binaries.setdefault(file, file.read_bytes())
            if site["fragment"].encode() not in binaries[file]:
                violations.append(
                    Violation(
                        register,
                        entry.line,
                        "failures-site",
                        f"{site['fragment']!r} is not in {site['path']} of {site['dist']}",
                    )
                )
            continue
        found = sites_of(file, parsed)
        hits = [
            s for s in found if s.function == site.get("function") and site["fragment"] in s.text
        ]
        if not hits:
            violations.append(
                Violation(
                    register,
                    entry.line,
                    "failures-site",
                    f"no raise or assert of {site.get('function')!r} in {site['path']} "
                    f"({site['dist']}) holds {site['fragment']!r}",
                )
            )
        for s in hits:
            covered[(file, s.line)] = True
    for scope in scopes:
        violations += _check_scope(register, scope, versions, parsed, covered)
    return violations


def _check_failure(
    root: Path, register: str, entry: Entry, anchors: set[Any], pages: dict[str, str | None]
) -> Iterator[Violation]:
    data, line = entry.data, entry.line
    if data["reach"] not in REACH:
        yield Violation(
            register,
            line,
            "failures-reach",
            f"reach {data['reach']!r} is not one of {sorted(REACH)}",
        )
    elif data["reach"] == "user" and "named" not in data and "left_out" not in data:
        yield Violation(
            register,
            line,
            "failures-reach",
            f"{data['error']!r} can be hit by a user: name it (named) or say why not (left_out)",
        )
    elif data["reach"] == "internal" and "why" not in data:
        yield Violation(
            register, line, "failures-reach", f"{data['error']!r} is internal: say why (why)"
        )
    named = data.get("named")
    if named and "anchor" in named and named["anchor"] not in anchors:
        yield Violation(
            register, line, "failures-named", f"no errors entry {named['anchor']!r} in {ERRORS}"
        )
    elif named and "page" in named:
        text = _pages(root, named["page"], pages)
        if text is None:
            yield Violation(register, line, "failures-named", f"no page {named['page']}")
        elif _WS.sub(" ", named["text"]).strip() not in text:
            yield Violation(
                register,
                line,
                "failures-named",
                f"{named['text']!r} does not occur in {named['page']}: name the error there again",
            )


def _check_scope(
    register: str,
    scope: Entry,
    versions: dict[str, Any],
    parsed: dict[Path, list[Site]],
    covered: dict[tuple[Path, int], bool],
) -> Iterator[Violation]:
    data = scope.data
    file, why = installed_file(data["dist"], data["path"], versions)
    if file is None:
        yield Violation(
            register,
            scope.line,
            "failures-version" if "is installed" in (why or "") else "failures-site",
            str(why),
        )
        return
    found = sites_of(file, parsed)
    names = {s.function for s in found} | {MODULE}
    for func in data["functions"]:
        if func not in names and not defines(file, func):
            yield Violation(
                register, scope.line, "failures-scope", f"{data['path']} has no function {func!r}"
            )
    for s in found:
        if s.starts and s.function in data["functions"] and not covered.get((file, s.line)):
            yield Violation(
                register,
                scope.line,
                "failures-scope",
                f"{data['path']}:{s.line} ({s.function}) raises with no entry: "
                f"{_WS.sub(' ', s.text)[:100]!r}; add a [[failure]] with fragment "
                f"{suggest(s)!r}",
            )

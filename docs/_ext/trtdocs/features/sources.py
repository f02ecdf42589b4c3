"""Where a claim of the features table comes from: one source, as data a
reader can follow (a link) and a maintainer can check.

Pure: no Sphinx. A source in ``docs/features.toml`` is an inline table with
exactly one of the keys of :data:`KINDS`, and ``shows``, what it shows
(MyST inline text, code in backticks)::

    { wheel = "torch-tensorrt==2.14.0", path = "torch_tensorrt/_compile.py", shows = "`save()`" }
    { pr = "pytorch/TensorRT#4927", shows = "the 2.15 guide's export section" }
    { issue = "pytorch/executorch#22477", shows = "..." }
    { file = "pytorch/TensorRT/cpp/src/.../CMakeLists.txt", at = "d7f2062810", shows = "..." }
    { commit = "pytorch/TensorRT@e83f4557", shows = "..." }
    { url = "https://pypi.org/project/torch-tensorrt/#history", title = "PyPI", shows = "..." }

Three kinds show a run (:data:`RUNS`), which a "yes" cell needs:

    { test = "pytorch/TensorRT/.github/scripts/verify.sh", at = "d7f2062810", shows = "..." }
        an upstream test or CI step that runs the feature, at a commit (never a branch)
    { artifact = "torch-tensorrt==2.14.0", path = "torch_tensorrt/bin/example_executorch_runner" }
        a file of a published distribution that itself does it (a program, not code for it)
    { run = "notebooks/kv-cache", shows = "..." }
        a page of this guide with a cell gated on the feature: the build that executes it
        (the GPU build, whose record the deployed site shows) runs it

:func:`parse` checks one and raises :class:`SourceError` with what is wrong;
the validator adds the file and the entry.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from packaging.requirements import InvalidRequirement, Requirement

# Kind -> what its value names, in words (the error messages say it).
KINDS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "wheel": "a published distribution as <name>==<version>, with `path` inside it (optional)",
        "pr": "a pull request as <owner>/<repo>#<number>",
        "issue": "an issue as <owner>/<repo>#<number>",
        "file": "a file of a GitHub repository as <owner>/<repo>/<path>, with `at` (a commit, tag "
        "or branch)",
        "commit": "a commit as <owner>/<repo>@<sha>",
        "url": "any https address, with `title` (the link's text)",
        "test": "an upstream test that runs the feature, as <owner>/<repo>/<path>, with `at` (a "
        "commit)",
        "artifact": "a file of a published distribution that does it, as <name>==<version>, with "
        "`path`",
        "run": "a page of this guide whose cell gated on the feature runs it, as its document name",
    }
)
# The kinds that show a run; a "yes" cell names at least one (vocab.STATES).
RUNS: Final = frozenset({"test", "artifact", "run"})
# The kinds that show code of the release (a run shows its code too).
CODE: Final = frozenset({"wheel", "file", "commit"}) | RUNS
# Keys a source may have besides its kind, per kind; `shows` is always allowed.
EXTRA_KEYS: Final[Mapping[str, frozenset[str]]] = MappingProxyType(
    {
        "wheel": frozenset({"path"}),
        "pr": frozenset(),
        "issue": frozenset(),
        "file": frozenset({"at"}),
        "commit": frozenset(),
        "url": frozenset({"title"}),
        "test": frozenset({"at"}),
        "artifact": frozenset({"path"}),
        "run": frozenset(),
    }
)
REQUIRED_EXTRA: Final[Mapping[str, frozenset[str]]] = MappingProxyType(
    {
        "file": frozenset({"at"}),
        "url": frozenset({"title"}),
        "test": frozenset({"at"}),
        "artifact": frozenset({"path"}),
    }
)

_REPO = r"(?P<repo>[\w.-]+/[\w.-]+)"
_NUMBERED = re.compile(_REPO + r"#(?P<number>\d+)\Z")
_FILE = re.compile(_REPO + r"/(?P<path>[^\s]+)\Z")
_COMMIT = re.compile(_REPO + r"@(?P<sha>[0-9a-f]{7,40})\Z")
_REF = re.compile(r"[\w./-]+\Z")
_SHA = re.compile(r"[0-9a-f]{7,40}\Z")
_DOCNAME = re.compile(r"[a-z0-9][\w-]*(/[\w-]+)*\Z")


class SourceError(ValueError):
    """A source that names nothing a reader can open."""


@dataclasses.dataclass(frozen=True, slots=True)
class Source:
    """One source of a claim: what it is (``label``), where it is (``url``), what it shows."""

    kind: str  # one of KINDS
    value: str  # the kind's value, as written
    # where a reader opens it; "" for a page of this guide (a run: the matrix links the page)
    url: str
    label: str  # the link's text
    path: str = ""  # wheel, artifact: the file inside it; file, test: the file; run: the page
    shows: str = ""  # MyST inline text; "" = the source itself is the point

    @property
    def text(self) -> str:
        """The source in plain words (a tooltip, a check of the table's prose)."""
        where = (
            f"{self.label}, {self.path}"
            if self.kind in ("wheel", "artifact") and self.path
            else self.label
        )
        return f"{where}: {self.shows}".replace("`", "") if self.shows else where


def parse(raw: object) -> Source:
    """The source of one inline table; :class:`SourceError` says what is wrong."""
    if not isinstance(raw, dict):
        raise SourceError(
            f'a source is an inline table such as {{ pr = "owner/repo#1", shows = "..." }}, '
            f"not {raw!r}"
        )
    kinds = [k for k in KINDS if k in raw]
    if len(kinds) != 1:
        raise SourceError(
            f"a source has exactly one of {', '.join(KINDS)}; this one has "
            f"{', '.join(kinds) or 'none'}"
        )
    kind = kinds[0]
    allowed = {kind, "shows", *EXTRA_KEYS[kind]}
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise SourceError(f"a {kind} source has no key {unknown[0]!r}; allowed: {sorted(allowed)}")
    missing = sorted(REQUIRED_EXTRA.get(kind, frozenset()) - set(raw))
    if missing:
        raise SourceError(f"a {kind} source needs {missing[0]!r}")
    for key, value in raw.items():
        if not isinstance(value, str) or "\n" in value:
            raise SourceError(f"{key} must be a one-line string, not {value!r}")
    shows = raw.get("shows", "").strip()
    if shows.count("`") % 2:
        raise SourceError(f"shows has an unclosed `code` span: {shows!r}")
    value = raw[kind].strip()
    build = _BUILDERS[kind]
    return build(value, raw, shows)


def _wheel(value: str, raw: dict, shows: str) -> Source:
    try:
        req = Requirement(value)
        [spec] = req.specifier
        if spec.operator != "==" or req.extras or req.marker or req.url:
            raise ValueError
    except (InvalidRequirement, ValueError):
        raise SourceError(
            f"wheel {value!r} must name one published distribution as <name>==<version>"
        ) from None
    path = raw.get("path", "").strip().strip("/")
    return Source(
        "wheel",
        value,
        f"https://pypi.org/project/{req.name}/{spec.version}/",
        f"{req.name} {spec.version} wheel",
        path,
        shows,
    )


def _numbered(kind: str, route: str):
    def build(value: str, raw: dict, shows: str) -> Source:
        m = _NUMBERED.match(value)
        if m is None:
            raise SourceError(f"{kind} {value!r} must be {KINDS[kind].split(' as ')[1]}")
        return Source(
            kind,
            value,
            f"https://github.com/{m['repo']}/{route}/{m['number']}",
            f"{m['repo']}#{m['number']}",
            "",
            shows,
        )

    return build


def _file(value: str, raw: dict, shows: str) -> Source:
    m = _FILE.match(value)
    ref = raw["at"].strip()
    if m is None:
        raise SourceError(f"file {value!r} must be <owner>/<repo>/<path>")
    if not _REF.match(ref):
        raise SourceError(f"at {ref!r} is not a commit, tag or branch name")
    return Source(
        "file",
        value,
        f"https://github.com/{m['repo']}/blob/{ref}/{m['path']}",
        f"{m['repo']} {m['path']} at {ref}",
        m["path"],
        shows,
    )


def _commit(value: str, raw: dict, shows: str) -> Source:
    m = _COMMIT.match(value)
    if m is None:
        raise SourceError(f"commit {value!r} must be <owner>/<repo>@<sha> (7 to 40 hex digits)")
    return Source(
        "commit",
        value,
        f"https://github.com/{m['repo']}/commit/{m['sha']}",
        f"{m['repo']} commit {m['sha'][:10]}",
        "",
        shows,
    )


def _url(value: str, raw: dict, shows: str) -> Source:
    if not value.startswith("https://") or any(c.isspace() for c in value):
        raise SourceError(f"url {value!r} must be an https address")
    title = raw["title"].strip()
    if not title:
        raise SourceError("a url source needs a non-empty title")
    return Source("url", value, value, title, "", shows)


def _test(value: str, raw: dict, shows: str) -> Source:
    if not _SHA.match(raw["at"].strip()):
        raise SourceError(
            f"a test runs at a commit: at {raw['at']!r} must be 7 to 40 hex digits, "
            "not a branch or tag, which move"
        )
    source = _file(value, raw, shows)
    repo = value[: len(value) - len(source.path) - 1]
    return dataclasses.replace(
        source, kind="test", label=f"{repo} test {source.path} at {raw['at'].strip()}"
    )


def _artifact(value: str, raw: dict, shows: str) -> Source:
    source = _wheel(value, raw, shows)
    if not source.path:
        raise SourceError(
            "an artifact source names the file that does it: `path` must not be empty"
        )
    return dataclasses.replace(source, kind="artifact")


def _run(value: str, raw: dict, shows: str) -> Source:
    if not _DOCNAME.match(value):
        raise SourceError(
            f"run {value!r} must be a page of this guide as its document name "
            "(notebooks/kv-cache), without a suffix"
        )
    return Source("run", value, "", f"this guide's {value.rsplit('/', 1)[-1]} page", value, shows)


_BUILDERS = MappingProxyType(
    {
        "wheel": _wheel,
        "pr": _numbered("pr", "pull"),
        "issue": _numbered("issue", "issues"),
        "file": _file,
        "commit": _commit,
        "url": _url,
        "test": _test,
        "artifact": _artifact,
        "run": _run,
    }
)

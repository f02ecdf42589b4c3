"""One install command resolved by the real resolver: ``pip install --dry-run
--report`` into an empty ``--target`` folder, with ``--ignore-installed``.

The resolution is the reader's, not this machine's: pip runs with
``PIP_CONFIG_FILE`` set to the null device and no ``PIP_*`` variable, so no
configuration file (a constraint file capping torch, a local wheel folder or
index) and no setting of this machine takes part. ``--retries`` and ``--timeout``
bound the wait on a network that does not answer; they change no outcome.

The resolver is the venv's pip, pinned in requirements-docs.txt (:data:`RESOLVER`
names it): pip 23.2.1 downloads every wheel of a dry run (pypa/pip#12603): 3.0 GB
for ``torch==2.14.*`` here, since this machine's index serves no PEP 658
metadata. pip 26.3 reads only metadata: a PEP 658 file where the index serves
one, else the wheel's ``METADATA`` through HTTP range requests
(``--use-feature=fast-deps``), a few MB in all.

Outcomes (:data:`STATUSES`); :mod:`.resolved` checks the versions and caches the result.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, NotRequired, TypedDict, Unpack

from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename

# the pip that resolves: the venv's, which requirements-docs.txt pins
RESOLVER: Final = metadata.version("pip")
RESOLVED, FAILED, UNREACHABLE, NOT_RESOLVED = "resolved", "failed", "unreachable", "not resolved"
STATUSES: Mapping[str, str] = MappingProxyType(
    {
        RESOLVED: "the resolver finished: the versions it would install are known",
        FAILED: "the resolver stopped on something a reader meets too (no version, a conflict, a "
        "broken build)",
        UNREACHABLE: "an index the resolution needs does not answer from this machine: marked, not "
        "failed",
        NOT_RESOLVED: "this build does not resolve this command (another installer or platform): "
        "marked",
    }
)
# Failures pip's output names; a resolution that failed otherwise (pip did not start, an
# error this module does not know) fails its build but is never kept for the day.
CAUSES: Mapping[str, str] = MappingProxyType(
    {
        "metadata": "a package's metadata could not be generated (its source distribution's build "
        "failed)",
        "no-version": "no version on the index satisfies a requirement",
        "conflict": "the requirements conflict (ResolutionImpossible)",
    }
)
PROBE_TIMEOUT_S: Final = 10
RUN_TIMEOUT_S: Final = 600
# Options of a page's command that have no meaning in a dry run into a folder of its own.
_DROPPED_WITH_VALUE = frozenset({"-t", "--target", "--report"})
_DROPPED = frozenset({"--user", "--system", "-q", "--quiet", "-v", "--verbose", "--dry-run"})
# pip's words for a connection that failed (urllib3's and requests' exception names).
_NETWORK = re.compile(
    r"NewConnectionError|NameResolutionError|Failed to establish a new connection|"
    r"ConnectTimeoutError|Temporary failure in name resolution|ProxyError|"
    r"Max retries exceeded"
)
_URL = re.compile(r"https?://[A-Za-z0-9.-]+(?::\d+)?/")


class Made(TypedDict):
    """Who made a :class:`Resolution`, for what, when, and how long it took: the same
    for every outcome."""

    resolver: str
    target: str
    day: str
    seconds: NotRequired[float]


@dataclasses.dataclass(frozen=True, slots=True)
class Resolution:
    """What the resolver made of one command."""

    status: str  # a key of STATUSES
    versions: Mapping[str, str] = dataclasses.field(
        default_factory=dict
    )  # canonical name -> version
    reason: str = ""  # why it failed or was not resolved, in words
    stopped_at: str = ""  # the requirement or package the resolver stopped at
    cause: str = ""  # a failure's kind, one of CAUSES; "" for an outcome pip's output does not name
    # versions the resolver had picked when it stopped: not a resolution, never checked
    provisional: Mapping[str, str] = dataclasses.field(default_factory=dict)
    resolver: str = ""  # "pip 26.3"
    target: str = ""  # the interpreter and platform it resolved for
    day: str = ""  # UTC day of the resolution (YYYY-MM-DD)
    seconds: float = 0.0  # how long the resolver ran

    def to_json(self) -> dict[str, Any]:
        return {
            **dataclasses.asdict(self),
            "versions": dict(self.versions),
            "provisional": dict(self.provisional),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Resolution:
        return cls(**data)


def target_words() -> str:
    """The interpreter and platform a resolution here is for: 'CPython 3.11, Linux x86_64'."""
    return (
        f"{platform.python_implementation()} {sys.version_info.major}.{sys.version_info.minor}, "
        f"{platform.system()} {platform.machine()}"
    )


def today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


def clean_env() -> dict[str, str]:
    """This process's environment with no ``PIP_*`` variable and no pip configuration file."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull  # pip reads no configuration file at all
    return env


@functools.cache
def unreachable(url: str) -> str | None:
    """Why ``url``'s host does not answer, or None when it answers (any HTTP status).
    Asked once a run: a host that does not answer costs its timeout once."""
    try:
        urllib.request.urlopen(
            urllib.request.Request(url, method="HEAD"),  # http(s) only
            timeout=PROBE_TIMEOUT_S,
        ).close()
    except urllib.error.HTTPError:
        return None  # it answered
    except (urllib.error.URLError, OSError) as exc:
        return str(getattr(exc, "reason", exc))
    return None


def pip_args(args: Sequence[str]) -> list[str]:
    """A page command's words after ``install``, less what a dry run into its own folder
    replaces."""
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        name = arg.partition("=")[0]
        if name in _DROPPED_WITH_VALUE:
            skip = "=" not in arg
            continue
        if arg not in _DROPPED:
            out.append(arg)
    return out


def resolve(
    args: Sequence[str], index_urls: Sequence[str], python: str = sys.executable
) -> Resolution:
    """Resolve one command (``args``: its words after ``install``) with the venv's pinned pip."""
    common: Made = {"resolver": f"pip {RESOLVER}", "target": target_words(), "day": today()}
    for url in index_urls:
        if (why := unreachable(url)) is not None:
            return Resolution(UNREACHABLE, reason=f"index unreachable: {url} ({why})", **common)
    with tempfile.TemporaryDirectory(prefix="resolve-") as tmp:
        report = Path(tmp) / "report.json"
        command = [
            python,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--ignore-installed",
            "--report",
            str(report),
            "--target",
            str(Path(tmp) / "target"),
            "--no-cache-dir",
            "--use-feature=fast-deps",
            "--retries",
            "1",
            "--timeout",
            "30",
            "--progress-bar",
            "off",
            *pip_args(args),
        ]
        start = time.monotonic()
        try:
            run = subprocess.run(
                command,
                capture_output=True,
                text=True,
                env=clean_env(),
                timeout=RUN_TIMEOUT_S,
                cwd=tmp,
            )
        except subprocess.TimeoutExpired:
            return Resolution(
                UNREACHABLE, reason=f"the resolver ran past {RUN_TIMEOUT_S} s", **common
            )
        common["seconds"] = round(time.monotonic() - start, 1)
        data = json.loads(report.read_text(encoding="utf-8")) if run.returncode == 0 else None
    return classify(run.returncode, run.stdout + run.stderr, data, **common)


def classify(
    returncode: int,
    output: str,
    report: Mapping[str, Any] | None,
    *,
    probe: Any = unreachable,
    **common: Unpack[Made],
) -> Resolution:
    """pip's exit status, output and ``--report`` JSON as a :class:`Resolution`.
    ``probe(url)`` says why a host named in a failure does not answer (None: it does)."""
    if returncode == 0 and report is not None:
        return Resolution(RESOLVED, versions=report_versions(report), **common)
    picked = provisional(output)
    if m := re.search(
        r"Encountered error while generating package metadata\.\s*╰─>\s*(\S+)", output
    ):
        package = m[1]
        for url in dict.fromkeys(_URL.findall(output)):
            if (why := probe(url)) is not None:
                return Resolution(
                    UNREACHABLE,
                    reason=f"index unreachable: {url} ({why}), which the metadata "
                    f"step of {package} downloads from",
                    stopped_at=package,
                    provisional=picked,
                    **common,
                )
        return Resolution(
            FAILED,
            reason=f"the metadata of {package} could not be generated: {_tail(output)}",
            stopped_at=package,
            cause="metadata",
            provisional=picked,
            **common,
        )
    if _NETWORK.search(output):
        hosts = [u for u in dict.fromkeys(_URL.findall(output)) if probe(u) is not None]
        where = ", ".join(hosts) or "a host pip names in its output"
        return Resolution(
            UNREACHABLE, reason=f"index unreachable: {where}", provisional=picked, **common
        )
    if m := re.search(r"No matching distribution found for (\S+)", output):
        return Resolution(
            FAILED,
            reason=f"no version on the index satisfies {m[1]}",
            stopped_at=m[1],
            cause="no-version",
            provisional=picked,
            **common,
        )
    if "ResolutionImpossible" in output or "conflicting dependencies" in output:
        cause = re.search(r"The conflict is caused by:\n(.*?)\n\n", output, re.S)
        return Resolution(
            FAILED,
            reason="conflicting requirements: "
            + " ".join((cause[1] if cause else _tail(output)).split()),
            cause="conflict",
            provisional=picked,
            **common,
        )
    return Resolution(
        FAILED,
        reason=f"pip exited with {returncode}: {_tail(output)}",
        provisional=picked,
        **common,
    )


def settled(found: Resolution) -> bool:
    """Whether ``found`` holds for its day: resolved, or failed for a cause pip names."""
    return found.status == RESOLVED or (found.status == FAILED and found.cause in CAUSES)


def report_versions(report: Mapping[str, Any]) -> dict[str, str]:
    """Canonical name -> version of everything a ``--report`` would install."""
    return {
        canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"]
        for item in report.get("install", ())
    }


def provisional(output: str) -> dict[str, str]:
    """The versions pip had picked so far, from its progress lines ('Obtaining dependency
    information from torch 2.14.1', 'Downloading tensorrt_cu13-11.1.0.106.tar.gz')."""
    picked: dict[str, str] = {}
    for name, version in re.findall(r"Obtaining dependency information from (\S+) (\S+)", output):
        picked[canonicalize_name(name)] = version
    for filename in re.findall(r"Downloading (\S+\.(?:whl|tar\.gz|zip))\b", output):
        try:
            name, version = (
                parse_wheel_filename(filename)[:2]
                if filename.endswith(".whl")
                else parse_sdist_filename(filename)
            )
        except ValueError:
            continue  # not a distribution's file name
        picked.setdefault(canonicalize_name(name), str(version))
    return picked


def _tail(output: str, lines: int = 6) -> str:
    """The last non-empty lines of pip's output, on one line."""
    kept = [line.strip() for line in output.splitlines() if line.strip()][-lines:]
    return " ".join(kept)

"""The documented release's requirements, resolved against PyPI's metadata.

This reads the pins' metadata directly: the version list from PyPI's JSON
simple API (PEP 691/700), and each pinned wheel's ``METADATA`` through HTTP
range requests into the wheel (this machine's index serves no PEP 658
``.metadata`` files). Only a few KiB are fetched. The whole command, resolved
by pip, is :mod:`.resolved`'s; it stops where TensorRT's libraries, a source
distribution that downloads its wheel from NVIDIA's index, cannot be reached.
"""

from __future__ import annotations

import email.message
import email.parser
import io
import json
import urllib.request
import zipfile
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename
from packaging.version import Version

from ..features.releases import Release
from ..vocab import TORCH_TENSORRT

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

SIMPLE = "https://pypi.org/simple/{name}/"
ACCEPT = "application/vnd.pypi.simple.v1+json"
TIMEOUT_S = 60
# Wheel tags preferred when reading metadata (the build machines' platform first).
PREFERRED_TAGS = ("cp311-cp311-manylinux_2_28_x86_64", "py3-none-any", "cp311-cp311-manylinux")


def _get(url: str, headers: dict[str, str] | None = None) -> bytes:
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:  # https only
        return resp.read()


@cache
def project(name: str) -> dict:
    return json.loads(_get(SIMPLE.format(name=canonicalize_name(name)), {"Accept": ACCEPT}))


def versions(name: str) -> list[Version]:
    """Versions with at least one wheel or sdist that is not yanked (TensorRT's
    packages are sdist stubs that download the libraries from NVIDIA)."""
    found: set[Version] = set()
    for f in project(name)["files"]:
        if f.get("yanked"):
            continue
        if f["filename"].endswith(".whl"):
            found.add(parse_wheel_filename(f["filename"])[1])
        elif f["filename"].endswith((".tar.gz", ".zip")):
            found.add(parse_sdist_filename(f["filename"])[1])
    return sorted(found)


class _RangeFile(io.RawIOBase):
    """A read-only file over HTTP range requests, enough for :mod:`zipfile`."""

    def __init__(self, url: str, size: int) -> None:
        self.url, self.size, self.pos = url, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = {0: offset, 1: self.pos + offset, 2: self.size + offset}[whence]
        return self.pos

    def read(self, n: int = -1) -> bytes:
        end = self.size if n is None or n < 0 else min(self.size, self.pos + n)
        if end <= self.pos:
            return b""
        data = _get(self.url, {"Range": f"bytes={self.pos}-{end - 1}"})
        self.pos += len(data)
        return data

    def readinto(self, b: WriteableBuffer) -> int:
        view = memoryview(b).cast("B")
        data = self.read(len(view))
        view[: len(data)] = data
        return len(data)


@cache
def wheel_metadata(name: str, version: str) -> email.message.Message:
    files = [
        f
        for f in project(name)["files"]
        if f["filename"].endswith(".whl")
        and parse_wheel_filename(f["filename"])[1] == Version(version)
    ]
    if not files:
        raise LookupError(f"{name} {version} has no wheel on PyPI")
    files.sort(
        key=lambda f: next((i for i, t in enumerate(PREFERRED_TAGS) if t in f["filename"]), 99)
    )
    chosen = files[0]
    with zipfile.ZipFile(_RangeFile(chosen["url"], int(chosen["size"]))) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return email.parser.Parser().parsestr(zf.read(meta).decode())


def requires(name: str, version: str, extras: Iterable[str] = ()) -> list[Requirement]:
    """Requires-Dist of one release, with the markers of ``extras`` applied (Linux, CPython
    3.11)."""
    env = {
        "sys_platform": "linux",
        "platform_system": "Linux",
        "python_version": "3.11",
        "platform_machine": "x86_64",
    }
    out: list[Requirement] = []
    for raw in wheel_metadata(name, version).get_all("Requires-Dist") or ():
        req = Requirement(raw)
        if req.marker is None or any(
            req.marker.evaluate({**env, "extra": e}) for e in ("", *extras)
        ):
            out.append(req)
    return out


def check_release(release: Release, extras: Iterable[str] = ("executorch",)) -> list[str]:
    """Problems with one released entry: a pin PyPI lacks, or pins that disagree with
    the pinned wheels' own requirements."""
    problems: list[str] = []
    pinned: dict[str, Version] = {}
    pins = release.distribution_pins  # CUDA and Python are not on PyPI
    for name, pin in pins.items():
        spec = SpecifierSet(pin if pin[:1] in "<>=!~" else f"=={pin}")
        matching = [v for v in versions(name) if spec.contains(v, prereleases=False)]
        if not matching:
            problems.append(f"{name} {spec}: no version on PyPI satisfies it")
            continue
        pinned[name] = matching[-1]  # what pip picks for a range
    for name, version in pinned.items():
        if not pins[name][:1].isdigit() and not pins[name].startswith("=="):
            continue  # a range: its newest match stands in, but its requirements are not pins
        for req in requires(name, str(version), extras if name == TORCH_TENSORRT else ()):
            other = canonicalize_name(req.name)
            if other in pinned and not req.specifier.contains(pinned[other], prereleases=True):
                problems.append(
                    f"{name} {version} requires {req} but the table pins {other} "
                    f"{pins[other]} (resolves to {pinned[other]})"
                )
    return problems

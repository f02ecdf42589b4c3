"""What a notebook or a cell needs in order to run, and whether this machine has it.

A notebook declares ``requires:`` in its front matter and a cell declares
``:requires:`` in its options. Each entry is one of:

* a capability of :data:`trtdocs.vocab.CAPABILITIES` (``cuda``, ``tensorrt``,
  ``source-build``);
* ``feature:<id>``, a feature of the features table, which becomes a minimum
  Torch-TensorRT version;
* a PEP 508 requirement on one of the packages the probe reports, such as
  ``torch_tensorrt>=2.15``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from ..features.model import FeatureRequirement
from ..vocab import CAPABILITIES, FEATURE_PREFIX, PACKAGES, SOURCE_BUILD, RequirementError
from . import sourcebuild
from .environment import Environment

# Canonical distribution name -> key in Environment.versions
_VERSION_KEYS: Mapping[str, str] = {canonicalize_name(d): k for k, d in PACKAGES.items() if d}


@dataclasses.dataclass(frozen=True, slots=True)
class Unmet:
    """One requirement this machine does not meet."""

    requirement: str  # as written in the notebook
    needs: str  # what it asks for, in words
    reason: str  # what the probe found instead
    # the installed version of the package is older than any it admits: a newer
    # release (or the nightly channel) has what it needs, this one cannot run it
    newer: bool = False


# Resolves a feature id to the Torch-TensorRT requirement it implies
# (the features table's FeaturesTable.requirement).
FeatureResolver = Callable[[str], Requirement]


def _no_features(feature_id: str) -> Requirement:
    raise RequirementError(f"unknown feature {feature_id!r}: no features table is loaded")


def parse(value: object) -> tuple[str, ...]:
    """Normalise a ``requires`` value (a string or a list of strings)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise RequirementError(f"'requires' must be a string or a list of strings, not {value!r}")


def check(requirement: str, features: FeatureResolver = _no_features) -> None:
    """Raise :class:`RequirementError` unless ``requirement`` is well formed and known."""
    _resolve(requirement, features)


def describe(requirement: str, features: FeatureResolver = _no_features) -> str:
    """What ``requirement`` asks for, in words (for page banners)."""
    return _needs(_resolve(requirement, features))


def _resolve(requirement: str, features: FeatureResolver) -> str | Requirement:
    if requirement in CAPABILITIES:
        return requirement
    if requirement.startswith(FEATURE_PREFIX):
        return features(requirement[len(FEATURE_PREFIX) :])
    try:
        req: Requirement | None = Requirement(requirement)
    except InvalidRequirement:
        req = None
    if req is None or canonicalize_name(req.name) not in _VERSION_KEYS:
        raise RequirementError(
            f"unknown requirement {requirement!r}: use a capability {sorted(CAPABILITIES)}, "
            f"'{FEATURE_PREFIX}<id>', or a requirement on a probed package "
            f"{sorted(_VERSION_KEYS)} such as 'torch_tensorrt>=2.15'"
        )
    return req


def evaluate(
    requirements: Iterable[str],
    env: Environment,
    *,
    features: FeatureResolver = _no_features,
    disabled: Iterable[str] = (),
    pins: Mapping[str, str] = MappingProxyType({}),
) -> list[Unmet]:
    """The requirements ``env`` does not meet, each with the probed reason;
    ``pins``: the documented release's (probe key -> specifier, recorded.Freshness),
    which the source build's TensorRT SDK must meet."""
    disabled = frozenset(disabled)
    unmet: list[Unmet] = []
    for requirement in requirements:
        resolved = _resolve(requirement, features)
        if requirement in disabled:
            unmet.append(
                Unmet(requirement, _needs(resolved), "disabled for this build (TRTDOCS_DISABLE)")
            )
            continue
        reason = _unmet_reason(resolved, env, pins)
        if reason is not None:
            unmet.append(Unmet(requirement, _needs(resolved), reason, _needs_newer(resolved, env)))
    return unmet


def _needs(resolved: str | Requirement) -> str:
    if isinstance(resolved, FeatureRequirement):
        return resolved.needs  # also names the feature
    if isinstance(resolved, Requirement):
        return str(resolved)
    return CAPABILITIES[resolved].needs


def _unmet_reason(
    resolved: str | Requirement, env: Environment, pins: Mapping[str, str]
) -> str | None:
    if resolved == "cuda":
        return None if env.cuda_available else (env.cuda_error or "no CUDA GPU")
    if resolved == "tensorrt":
        if env.torch_tensorrt_imports:
            return None
        if env.versions.get("torch_tensorrt") is None:
            return "torch_tensorrt is not installed"
        return (
            f"torch_tensorrt {env.versions['torch_tensorrt']} is installed but does not "
            f"import: {env.torch_tensorrt_error}"
        )
    if resolved == SOURCE_BUILD:
        sdk = sdk_outside(env.source_build.get("tensorrt_sdk"), pins.get("tensorrt"))
        return "; ".join([*sourcebuild.missing(env.source_build), *([sdk] if sdk else [])]) or None
    assert isinstance(resolved, Requirement)
    key = _VERSION_KEYS[canonicalize_name(resolved.name)]
    installed = env.versions.get(key)
    if installed is None:
        return f"{resolved.name} is not installed"
    try:
        ok = resolved.specifier.contains(Version(installed), prereleases=True)
    except InvalidVersion:
        return f"{resolved.name} {installed} is not a PEP 440 version"
    return None if ok else f"{resolved.name} {installed} is installed"


def sdk_outside(found: str | None, spec: str | None) -> str | None:
    """Why the TensorRT SDK found at TensorRT_ROOT is not the release's TensorRT
    (its pin, from the features table), naming the version found; None when it is,
    or when no SDK or no pin is there (:func:`sourcebuild.missing` says the former)."""
    if not found or not spec:
        return None
    try:
        ok = SpecifierSet(spec).contains(Version(found), prereleases=True)
        what = f"TensorRT SDK {found}"
    except InvalidVersion:  # "version unknown": no NvInferVersion.h to read
        ok, what = False, "a TensorRT SDK of unknown version (no NvInferVersion.h)"
    return (
        None
        if ok
        else f"{sourcebuild.TENSORRT_ROOT_ENV} names {what}; the release's TensorRT is {spec}"
    )


def _needs_newer(resolved: str | Requirement, env: Environment) -> bool:
    """Whether ``resolved`` is a version requirement whose lower bound lies above
    the installed version (``feature:`` ids resolve to one): what the installed
    release lacks, not what this machine lacks."""
    if not isinstance(resolved, Requirement):
        return False
    installed = env.versions.get(_VERSION_KEYS[canonicalize_name(resolved.name)])
    try:
        version = Version(installed) if installed is not None else None
    except InvalidVersion:
        return False
    return version is not None and above(resolved.specifier, version)


def above(specifier: SpecifierSet, version: Version) -> bool:
    """Whether ``version`` fails ``specifier`` only by being too old: each clause
    it fails is a lower bound (``>=``, ``>``, ``~=``, ``==``) above it."""
    failed = [s for s in specifier if not s.contains(version, prereleases=True)]
    return bool(failed) and all(
        s.operator in (">=", ">", "~=", "==", "===") and _bound(s.version) > version for s in failed
    )


def _bound(text: str) -> Version:
    """The version a clause names (``2.15.*`` names 2.15)."""
    try:
        return Version(text.removesuffix(".*"))
    except InvalidVersion:  # an arbitrary `===` string: no bound
        return Version("0")

"""The guide's words, each said once: distributions, release statuses,
feature cell states (the evidence standard), platforms, pins, install tools,
and what a requirement may name.

Everything here is a frozen constant; the features table (``docs/features.toml``)
may use exactly these words, and every page, mark, guard and probe reads them
from here. Standard library only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

# -- Distributions ---------------------------------------------------------------

TORCH: Final = "torch"
TORCH_TENSORRT: Final = "torch-tensorrt"
RUNTIME: Final = "torch-tensorrt-executorch-runtime"  # the TensorRT delegate's runtime wheel
EXECUTORCH: Final = "executorch"
TENSORRT: Final = "tensorrt-cu13"  # the TensorRT that the 2.14 wheels pull in (11.1)

# Import name (or probe key) -> its distribution; "python" is the interpreter itself.
PACKAGES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "python": "",
        "torch": TORCH,
        "torch_tensorrt": TORCH_TENSORRT,
        "tensorrt": TENSORRT,
        "executorch": EXECUTORCH,
        "torch_tensorrt_executorch_runtime": RUNTIME,
    }
)
# The packages whose API the guide documents and checks (loaded with griffe, never imported).
API_PACKAGES: Final = ("torch_tensorrt", "torch_tensorrt_executorch_runtime", "executorch")
# The distributions the install-command guard knows as one family.
FAMILY: Final = (TORCH_TENSORRT, RUNTIME, EXECUTORCH, TORCH)
# The package a feature's requirement (``feature:<id>``) is on.
FEATURE_PACKAGE: Final = "torch_tensorrt"

# -- Releases --------------------------------------------------------------------

NIGHTLY: Final = "nightly"  # the release key of the nightly channel; also a feature's `since`


@dataclasses.dataclass(frozen=True, slots=True)
class Status:
    """What a release's ``status`` means to a reader."""

    words: str  # how the matrix heads the release and the switcher names it
    unpinned: str  # what the pins column says when the release has no pins
    # what a version note says of a feature of this release ({release}: "2.15"): one of
    # the three states a reader sees; the evidence stays in the support matrix
    state: str


STATUSES: Final[Mapping[str, Status]] = MappingProxyType(
    {
        "released": Status("released", "none stated", "In {release}"),
        "described": Status(
            "not released",
            "unknown: not released, so no published metadata states them",
            "In {release}, not released",
        ),
        "nightly": Status("nightly builds", "set by each nightly build", "Nightly builds only"),
    }
)


@dataclasses.dataclass(frozen=True, slots=True)
class State:
    """What one release cell of a feature says (``cells.<release>.state``), and
    what its sources must show for it (the support matrix's legend prints this)."""

    word: str  # the matrix's word beside the mark
    mark: str  # one character, read at a glance
    needs: str  # what the cell's sources must show, in a reader's words
    evidence: str  # the sources it needs: "run", "code", "any", or "" (none needed)


# The evidence standard, written once: a state is earned by what its sources show.
STATES: Final[Mapping[str, State]] = MappingProxyType(
    {
        "yes": State(
            "yes",
            "\u2713",
            "a run is shown: an upstream test that runs it at a named commit (one that skips on "
            "some machines, with a log of it passing), a published file that does it, or a cell "
            "of this guide that runs it",
            "run",
        ),
        "in-code": State(
            "in code",
            "\u25cb",
            "the release's code has it (a file of its published wheel, or an "
            "upstream file at a commit); no run is shown",
            "code",
        ),
        "described": State(
            "described",
            "\u270e",
            "a pull request or document describes it; nothing released shows it",
            "any",
        ),
        "broken": State(
            "broken", "!", "the release has it, and a source reports that it fails", "any"
        ),
        "no": State("no", "\u2717", "a source shows that the release lacks it", "any"),
        "unknown": State("unknown", "?", "no source shows whether the release has it", ""),
    }
)
# The states a release older than a feature's `since` may have.
STATES_BEFORE_SINCE: Final = frozenset({"no", "unknown"})

# Platform name -> label in notes and the matrix.
PLATFORMS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "linux-x86_64": "Linux x86-64",
        "linux-aarch64": "Linux aarch64",
        "windows-x86_64": "Windows x86-64",
    }
)


@dataclasses.dataclass(frozen=True, slots=True)
class Pin:
    """One pin of a release (a key of ``[releases.<key>.pins]``)."""

    label: str  # what the matrix calls it
    distribution: str | None  # the distribution it pins; None: not a distribution (CUDA, Python)
    probed: str | None  # the probe's versions key a record is compared on; None: not compared

    def name(self, key: str) -> str:
        """What a release's pins are keyed by: the distribution, else the table's key."""
        return self.distribution or key


PINS: Final[Mapping[str, Pin]] = MappingProxyType(
    {
        "torch": Pin("PyTorch", TORCH, "torch"),
        "executorch": Pin("ExecuTorch", EXECUTORCH, "executorch"),
        "tensorrt": Pin("TensorRT", TENSORRT, "tensorrt"),
        "runtime": Pin(RUNTIME, RUNTIME, "torch_tensorrt_executorch_runtime"),
        # the CUDA the release was built for, which the probe does not report
        "cuda": Pin("CUDA", None, None),
        "python": Pin("Python", None, "python"),
    }
)

# Metadata field a pin is read from -> what it holds (core metadata names).
PIN_FIELDS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "Requires-Dist": "a requirement on the pinned distribution",
        "Requires-Python": "the Python versions the distribution supports",
        "Version": "the pinned distribution's own version",
        "Description": "the project description (README), for versions no other field states",
    }
)

# -- Install commands --------------------------------------------------------------

PYPI_SIMPLE: Final = "https://pypi.org/simple"
INSTALL_TOOLS: Final = ("pip", "uv")  # installers a generated command can be written for
INSTALL_PLATFORMS: Final = ("linux", "windows")  # platforms a generated command can be for
# uv takes each package from the first index that has it; with several indexes the
# nightly (or CUDA) wheels only win when uv compares versions across all of them.
UV_INDEX_STRATEGY: Final = "unsafe-best-match"
# The feature whose first release makes the [executorch] extra bring the delegate.
EXTRA_BRINGS_DELEGATE: Final = "extra-brings-delegate"

# -- Code blocks shown as text -------------------------------------------------------

# Languages of fenced blocks, grouped as the guards check them and the banner counts them.
SHELL_LANGUAGES: Final = frozenset({"bash", "sh", "shell", "console", "shell-session", "zsh"})
CPP_LANGUAGES: Final = frozenset({"cpp", "c++", "cxx"})
CMAKE_LANGUAGES: Final = frozenset({"cmake"})
PYTHON_LANGUAGES: Final = frozenset({"python", "python3", "py", "ipython3", "ipython"})
# What a reader calls each group.
BLOCK_KINDS: Final[Mapping[str, frozenset[str]]] = MappingProxyType(
    {
        "shell": SHELL_LANGUAGES,
        "Python": PYTHON_LANGUAGES,
        "C++": CPP_LANGUAGES,
        "CMake": CMAKE_LANGUAGES,
    }
)

# -- Requirements (a notebook's ``requires:``, a cell's ``:requires:``) ---------------

FEATURE_PREFIX: Final = "feature:"  # feature:<id> names a feature of the features table
SOURCE_BUILD: Final = (
    "source-build"  # the capability of a machine that can build the delegate from source
)


@dataclasses.dataclass(frozen=True, slots=True)
class Capability:
    """Something of the machine a cell may need."""

    needs: str  # what a reader needs, in words (banners, the build report)
    short: str  # the same in a cell's one-line mark


CAPABILITIES: Final[Mapping[str, Capability]] = MappingProxyType(
    {
        "cuda": Capability("a CUDA GPU", "a CUDA GPU"),
        "tensorrt": Capability("Torch-TensorRT with TensorRT (import torch_tensorrt)", "TensorRT"),
        # what the delegate's C++ source build reads besides the Python packages
        # (probed by trtdocs.notebooks.sourcebuild)
        SOURCE_BUILD: Capability(
            "the source build's inputs (the CUDA toolkit, a TensorRT SDK at TensorRT_ROOT, "
            "the release's libtorchtrt.tar.gz at LIBTORCHTRT_TARBALL)",
            "the CUDA toolkit, a TensorRT SDK and libtorchtrt.tar.gz",
        ),
    }
)
# Requirements a mark names together, in fewer words than each alone (the larger group first).
JOINED_NEEDS: Final[Mapping[frozenset[str], str]] = MappingProxyType(
    {
        frozenset(
            {"cuda", "tensorrt", SOURCE_BUILD}
        ): "a CUDA GPU with TensorRT, the CUDA toolkit, a TensorRT SDK and libtorchtrt.tar.gz",
        frozenset({"cuda", "tensorrt"}): "a CUDA GPU with TensorRT",
    }
)


class RequirementError(ValueError):
    """A requirement that names nothing the guide knows."""

"""The first cell of each page's ``.ipynb`` download: in Google Colab it sets the
runtime up for the page; anywhere else it does nothing.

In Colab (where ``google.colab`` imports) the cell checks for a GPU, where the
page needs one, and says in one sentence how to switch the runtime to one; checks
that the driver runs the CUDA major version the release's wheels are built for
(torch-tensorrt 2.14.0 requires ``tensorrt-cu13``: CUDA 13) and stops before
installing anything where it does not; runs the install page's command, the one
``{install-command}`` prints from the features table for the documented release
(:meth:`~trtdocs.features.model.FeaturesTable.install_command`, pip on Linux), so
the two never differ; and prints the versions it installed. It says how many of
the page's cells need a newer release than the one it installs, or the source
build's inputs, which it does not set up. ``COLAB_SETUP_DRY_RUN=1`` prints the
commands and runs none (the tests run the cell so, with a stand-in
``google.colab``).

The note before each cell that did not run in the build says where it runs
(:func:`note`). Pure: no Sphinx.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Sequence

import nbformat
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from ..features.model import FeaturesTable
from ..vocab import CAPABILITIES, FEATURE_PREFIX, PACKAGES, SOURCE_BUILD, TORCH_TENSORRT
from .plan import PagePlan, SkippedCell

CELL_ID = "colab-setup"  # the cell's id in the download; tests find it by it
DRY_RUN = "COLAB_SETUP_DRY_RUN"
COLUMNS = 88  # the pages' code column
GPU = frozenset({"cuda", "tensorrt", SOURCE_BUILD})  # requirements a Colab GPU runtime meets


@dataclasses.dataclass(frozen=True, slots=True)
class Setup:
    """What one page's setup cell does."""

    release: str  # "Torch-TensorRT 2.14.0"
    commands: tuple[str, ...]  # the install page's commands, as it prints them
    cuda_major: int | None  # the CUDA major version the release's wheels need; None: unchecked
    tensorrt: str  # the TensorRT distribution the release requires ("tensorrt-cu13")
    distributions: tuple[str, ...]  # whose versions it prints after installing
    needs_gpu: bool  # the page has a cell that needs a CUDA GPU
    newer: int  # code cells that need a newer release than it installs
    source_build: int  # code cells that need the source build's inputs

    @classmethod
    def of(cls, table: FeaturesTable, plan: PagePlan) -> Setup:
        """The setup of a page of the documented release."""
        release = table.documented_release
        cuda = release.pins.get("cuda", "")
        major = cuda.lstrip("<>=!~ ").split(".", 1)[0]
        pinned = tuple(release.distribution_pins)
        requires = [*plan.requires, *plan.cell_requires]
        return cls(
            release=f"Torch-TensorRT {release.version or release.label}",
            commands=(table.install_command(release.key, "pip", "linux"),),
            cuda_major=int(major) if major.isdigit() else None,
            tensorrt=next((n for n in pinned if n.startswith("tensorrt")), ""),
            distributions=(TORCH_TENSORRT, *pinned),
            needs_gpu=any(r in GPU for r in requires),
            newer=sum(needs_newer((*plan.requires, *cell), table) for cell in plan.cell_needs),
            source_build=sum(SOURCE_BUILD in (*plan.requires, *cell) for cell in plan.cell_needs),
        )


def needs_newer(requirements: Sequence[str], table: FeaturesTable) -> bool:
    """Whether a cell's requirements ask for a newer Torch-TensorRT than the documented
    release (a feature it lacks, or a version requirement it fails)."""
    version = table.documented_release.version
    for text in requirements:
        if text in CAPABILITIES:
            continue
        try:
            if text.startswith(FEATURE_PREFIX):
                req: Requirement = table.requirement(text[len(FEATURE_PREFIX) :])
            else:
                req = Requirement(text)
        except (InvalidRequirement, ValueError):
            continue  # the gating reports it
        if canonicalize_name(req.name) == TORCH_TENSORRT and not (
            version and req.specifier.contains(version, prereleases=True)
        ):
            return True
    return False


def note(skipped: SkippedCell, requirements: Sequence[str], table: FeaturesTable) -> str:
    """The sentence the download's note before a cell that did not run ends with: where
    it runs."""
    if needs_newer(requirements, table) or skipped.newer:
        return (
            " It needs a newer release than the one this notebook's first cell installs "
            "in Google Colab."
        )
    if not skipped.needs:
        return " It runs where the cell whose result it reads runs."
    if SOURCE_BUILD in skipped.needs:
        return (
            f" It runs on a GPU machine with {CAPABILITIES[SOURCE_BUILD].short}, which this "
            "notebook's first cell does not set up."
        )
    if set(skipped.needs) <= GPU:
        return (
            " It runs on a GPU runtime such as Google Colab's, which this notebook's first "
            "cell sets up."
        )
    return ""


def prepare(nb: nbformat.NotebookNode, plan: PagePlan, table: FeaturesTable | None) -> None:
    """The page's download made ready for Colab: the note before each cell that did not
    run ends with where it runs (the note sits right before the cell), and the setup
    cell comes first."""
    assert table is not None, "trtdocs.features is not set up"
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and not is_setup(c)]
    for skipped in plan.skipped:
        at = code[skipped.number - 1]
        before = nb.cells[at - 1] if at else None
        if before is None or before.cell_type != "markdown":
            raise ValueError(f"no note before code cell {skipped.number}")
        own = plan.cell_needs[skipped.number - 1] if plan.cell_needs else ()
        requires = (*plan.requires, *own)
        said = before.source.rstrip()
        where = note(skipped, requires, table)
        if where and not said.endswith("."):
            said += "."
        before.source = said + where
    prepend(nb, Setup.of(table, plan))


def cell(setup: Setup) -> nbformat.NotebookNode:
    made = nbformat.v4.new_code_cell(source(setup))
    made["id"] = CELL_ID
    return made


def prepend(nb: nbformat.NotebookNode, setup: Setup) -> None:
    """``nb`` with the setup cell first (once)."""
    nb.cells = [cell(setup), *(c for c in nb.cells if c.get("id") != CELL_ID)]


def is_setup(made: nbformat.NotebookNode) -> bool:
    return made.get("id") == CELL_ID


def page_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The page's own cells: every cell but the setup cell."""
    return [c for c in nb.cells if not is_setup(c)]


# -- the cell's code ---------------------------------------------------------------------------


def _quoted(text: str, f: bool = False) -> str:
    """A Python string literal of ``text``, double-quoted where it can be (ruff's style);
    ``f``: an f-string where ``text`` has a replacement field."""
    prefix = "f" if f and "{" in text else ""
    if '"' not in text:
        return prefix + '"' + text.replace("\\", "\\\\") + '"'
    if "'" not in text:
        return prefix + "'" + text.replace("\\", "\\\\") + "'"
    return prefix + repr(text)


def literal(text: str, indent: int, f: bool = False) -> str:
    """``text`` as adjacent string literals, one a line, each line within :data:`COLUMNS`
    (broken before a space): their concatenation is ``text``."""
    pieces: list[str] = []
    for word in text.split(" "):
        if not pieces:
            pieces.append(word)
        elif indent + len(_quoted(f"{pieces[-1]} {word}", f)) > COLUMNS:
            pieces.append(f" {word}")
        else:
            pieces[-1] = f"{pieces[-1]} {word}"
    assert "".join(pieces) == text, (pieces, text)
    return "\n".join(" " * indent + _quoted(p, f) for p in pieces)


def _comment(text: str) -> str:
    """``text`` as comment lines within :data:`COLUMNS`."""
    lines = [""]
    for word in text.split(" "):
        if lines[-1] and len(lines[-1]) + 3 + len(word) > COLUMNS:
            lines.append("")
        lines[-1] = f"{lines[-1]} {word}".strip()
    return "\n".join(f"# {line}" for line in lines)


def source(setup: Setup) -> str:
    """The cell's code."""
    what = (
        f"it checks the GPU and its driver, then installs {setup.release} with the install "
        "page's command"
        if setup.needs_gpu
        else f"it installs {setup.release} with the install page's command (this notebook runs "
        "on a CPU)"
    )
    head = _comment(
        f"In Google Colab this cell sets the runtime up for this notebook: {what}. Anywhere "
        f"else it does nothing: install the release as the install page says. {DRY_RUN}=1 "
        "prints the commands without running them."
    )
    commands = "\n".join(f"        (\n{literal(c, 12)}\n        )," for c in setup.commands)
    for command in setup.commands:
        shlex.split(command)  # one the shell reads: the cell splits it the same way
    modules = tuple(m for m, d in PACKAGES.items() if d and d in setup.distributions)
    restart = literal(
        "This session imported these before the install: restart it (Runtime menu) and "
        "run this notebook from its second cell:",
        12,
    )
    return f"""{head}


def set_up_colab():
    import importlib.util
    import os
    import shlex
    import subprocess
    import sys
    from importlib import metadata

    try:
        in_colab = importlib.util.find_spec("google.colab") is not None
    except ModuleNotFoundError:  # no google package at all
        in_colab = False
    if not in_colab:
        return
    commands = [
{commands}
    ]
    modules = {_tuple(modules, 4, len("modules = "))}
    imported = [name for name in modules if name in sys.modules]
{_gpu_check(setup) if setup.needs_gpu else ""}{_caveats(setup)}\
    dry_run = os.environ.get("{DRY_RUN}") == "1"
    for command in commands:
        print("$", command)
        if not dry_run:
            subprocess.run([sys.executable, "-m", *shlex.split(command)], check=True)
    if dry_run:
        print("{DRY_RUN}=1: nothing was installed.")
        return
    for name in {_tuple(setup.distributions, 4, len("for name in :"))}:
        try:
            print(name, metadata.version(name))
        except metadata.PackageNotFoundError:
            print(name, "is not installed")
    if imported:
        print(
{restart},
            ", ".join(imported),
        )


set_up_colab()"""


def _tuple(names: Sequence[str], indent: int, used: int) -> str:
    """A tuple of strings as ruff writes it on a line that holds ``used`` characters
    besides: on that line, or one name a line."""
    flat = "(" + ", ".join(_quoted(n) for n in names) + ("," if len(names) == 1 else "") + ")"
    if indent + used + len(flat) <= COLUMNS:
        return flat
    inner = "".join(f"{' ' * (indent + 4)}{_quoted(n)},\n" for n in names)
    return f"(\n{inner}{' ' * indent})"


def _gpu_check(setup: Setup) -> str:
    no_gpu = literal(
        "This runtime has no GPU: choose Runtime > Change runtime type, pick a GPU, and run "
        "this cell again.",
        12,
    )
    code = f"""\
    query = ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]
    try:
        gpu = subprocess.run(query, capture_output=True, text=True, check=False)
        smi = subprocess.run("nvidia-smi", capture_output=True, text=True, check=False)
    except FileNotFoundError:  # no NVIDIA driver in this runtime
        gpu = smi = None
    if gpu is None or gpu.returncode != 0 or not gpu.stdout.strip():
        raise RuntimeError(
{no_gpu}
        )
    print("GPU and driver:", gpu.stdout.strip().splitlines()[0])
"""
    if setup.cuda_major is None:
        return code
    major = setup.cuda_major
    too_old = literal(
        "This runtime's NVIDIA driver reports {found}; "
        f"{setup.release} requires {setup.tensorrt}, which needs a driver for CUDA {major}. "
        "Nothing was installed.",
        12,
        f=True,
    )
    return (
        code
        + f"""\
    import re

    cuda = re.search(r"CUDA Version: *(\\d+)\\.(\\d+)", smi.stdout)
    found = f"CUDA {{cuda[1]}}.{{cuda[2]}}" if cuda else "no CUDA version"
    if cuda is None or int(cuda[1]) < {major}:
        raise RuntimeError(
{too_old}
        )
    print(f"The driver runs {{found}}; {setup.release} needs CUDA {major}.")
"""
    )


def _caveats(setup: Setup) -> str:
    said = []
    if setup.newer:
        said.append(
            f"{_cells(setup.newer)} a newer release than {setup.release}, which this cell "
            f"installs; {_notes(setup.newer)}."
        )
    if setup.source_build:
        said.append(
            f"{_cells(setup.source_build)} {CAPABILITIES[SOURCE_BUILD].short}, which this cell "
            f"does not set up; {_notes(setup.source_build)}."
        )
    return "".join(f"    print(\n{literal(text, 8)}\n    )\n" for text in said)


def _cells(n: int) -> str:
    return "1 cell of this notebook needs" if n == 1 else f"{n} cells of this notebook need"


def _notes(n: int) -> str:
    return "the note before it says so" if n == 1 else "a note before each says so"

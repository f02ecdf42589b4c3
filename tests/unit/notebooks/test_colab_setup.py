"""The Colab side of each notebook page (trtdocs.colab, .setupcell): the
published address, and the download's first cell run as Colab would run it, with a
stand-in ``google.colab`` on ``sys.path`` and a stand-in ``nvidia-smi`` on ``PATH``.
Colab itself is not reachable from here: what the stand-ins cannot show is in
docs/building.md."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from paths import ROOT
from trtdocs import config
from trtdocs.drift import resolve, resolved
from trtdocs.features.validate import load as load_features
from trtdocs import colab
from trtdocs.notebooks import setupcell
from trtdocs.notebooks.plan import PagePlan, SkippedCell
from trtdocs.pages.commands import parse_command
from trtdocs.vocab import TORCH_TENSORRT

TABLE = load_features(ROOT / "docs" / "features.toml")
RELEASE = TABLE.documented_release
GPU_PAGE = PagePlan(
    requires=(),
    cell_requires=("cuda", "tensorrt", "feature:multi-profile", "source-build"),
    code_cells=4,
    skipped=[],
    cell_needs=((), ("cuda", "tensorrt"), ("feature:multi-profile", "cuda"), ("source-build",)),
)
CPU_PAGE = PagePlan(requires=(), cell_requires=(), code_cells=1, skipped=[], cell_needs=((),))
# nvidia-smi's header line names the newest CUDA the driver runs
SMI = """#!/bin/sh
if [ "$1" = "--query-gpu=name,driver_version" ]; then echo "Tesla T4, {driver}"; exit 0; fi
echo "| NVIDIA-SMI {driver}   Driver Version: {driver}   CUDA Version: {cuda}     |"
"""


# -- the published address ---------------------------------------------------------------------


def test_a_target_reads_owner_repo_and_branch() -> None:
    found = colab.Target.parse("pytorch/TensorRT-docs@gh-notebooks")
    assert (found.owner, found.repo, found.branch) == ("pytorch", "TensorRT-docs", "gh-notebooks")
    assert str(found) == "pytorch/TensorRT-docs@gh-notebooks"
    path = colab.published_path("2.14", "notebooks/install")
    assert path == "2.14/notebooks/install.ipynb"
    assert found.colab_url(path) == (
        "https://colab.research.google.com/github/pytorch/TensorRT-docs/blob/gh-notebooks/"
        "2.14/notebooks/install.ipynb"
    )
    assert found.github_url(path) == (
        "https://github.com/pytorch/TensorRT-docs/blob/gh-notebooks/2.14/notebooks/install.ipynb"
    )
    assert colab.Target.of("") is None and colab.Target.of("  ") is None


@pytest.mark.parametrize(
    "bad",
    ["pytorch/TensorRT", "pytorch@main", "a/b/c@main", "-x/y@main", "o/r@", "o/r@a..b",
     "o/r@main/", "o/r@x.lock", "o/r@has space", "o/..@main", "https://github.com/o/r@main"],
)  # fmt: skip
def test_a_bad_target_is_refused_with_its_form(bad: str) -> None:
    with pytest.raises(colab.TargetError, match="is not OWNER/REPO@BRANCH"):
        colab.Target.parse(bad)


def test_no_published_path_outside_the_release_folder() -> None:
    for release, doc in (("", "notebooks/a"), ("2.14", "../a"), ("a/b", "notebooks/a")):
        with pytest.raises(ValueError, match="no published path"):
            colab.published_path(release, doc)


def test_the_setting_has_no_default_and_its_environment_variable() -> None:
    field = next(f for f in config.FIELDS if f.name == "published_notebooks")
    assert field.default == "" and config.environment_name("published_notebooks") == colab.ENV
    check = field.metadata["check"]
    assert check("") is None and check("o/r@b") is None
    assert "is not OWNER/REPO@BRANCH" in check("o/r")


# -- the setup cell's code -----------------------------------------------------------------------


def _commands(source: str) -> list[str]:
    """The ``commands`` list the cell's code assigns."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "commands":
            return ast.literal_eval(node.value)
    raise AssertionError("the cell assigns no commands")


def test_the_cells_commands_are_the_install_pages() -> None:
    """One source: the command {install-command} prints on notebooks/install.md for the
    documented release (pip, Linux), from the features table's install entry."""
    source = setupcell.source(setupcell.Setup.of(TABLE, GPU_PAGE))
    on_page = [
        s.command.text.strip()
        for s in resolved.page_commands(ROOT / "notebooks" / "install.md", ROOT, TABLE)
        if (s.command.tool, s.platform, s.command.release) == ("pip", "linux", RELEASE.key)
    ]
    assert _commands(source) == on_page == [TABLE.install_command(RELEASE.key, "pip", "linux")]


def test_a_change_to_the_tables_install_entry_changes_the_cell(tmp_path: Path) -> None:
    """Planted: the table's install entry names another runtime wheel; the cell follows it,
    as the install page's {install-command} does."""
    text = (ROOT / "docs" / "features.toml").read_text(encoding="utf-8")
    entry = '  "torch-tensorrt-executorch-runtime==0.1.0",\n]'
    assert text.count(entry) == 1
    planted = tmp_path / "features.toml"
    planted.write_text(text.replace(entry, entry.replace("0.1.0", "0.1.1")), encoding="utf-8")
    table = load_features(planted)
    (command,) = _commands(setupcell.source(setupcell.Setup.of(table, CPU_PAGE)))
    assert command == table.install_command(RELEASE.key, "pip", "linux")
    assert command.endswith('"torch-tensorrt-executorch-runtime==0.1.1"')


def test_the_cells_command_installs_the_tables_pins() -> None:
    (command,) = _commands(setupcell.source(setupcell.Setup.of(TABLE, CPU_PAGE)))
    (parsed,), problems = parse_command(command, "cell", 1, release=RELEASE.key)
    assert problems == []
    pinned = {canonicalize_name(r.name): r for r in parsed.requirements}
    assert str(pinned[TORCH_TENSORRT].specifier) == f"=={RELEASE.version}"
    assert "executorch" in pinned[TORCH_TENSORRT].extras
    for name, spec in RELEASE.distribution_pins.items():
        if name in pinned:  # the runtime wheel, pinned exactly as the table pins it
            assert pinned[name].specifier == Requirement(f"{name}{spec}").specifier, name


def test_the_release_requires_the_tensorrt_of_its_cuda() -> None:
    """The cell checks the driver for the CUDA major the table pins, and names the TensorRT
    wheel the release requires: both as the installed wheel's metadata says."""
    setup = setupcell.Setup.of(TABLE, GPU_PAGE)
    assert setup.cuda_major == 13 and setup.tensorrt == "tensorrt-cu13"
    assert metadata.version("torch_tensorrt") == RELEASE.version
    requires = [Requirement(r) for r in metadata.requires("torch_tensorrt") or []]
    assert setup.tensorrt in {canonicalize_name(r.name) for r in requires}


@pytest.mark.parametrize("plan", [GPU_PAGE, CPU_PAGE], ids=["gpu", "cpu"])
def test_the_cell_is_formatted_at_the_code_column(plan: PagePlan, tmp_path: Path) -> None:
    source = setupcell.source(setupcell.Setup.of(TABLE, plan))
    assert max(map(len, source.splitlines())) <= setupcell.COLUMNS
    cell = tmp_path / "cell.py"
    cell.write_text(source + "\n")
    ruff = Path(sys.executable).parent / "ruff"
    result = subprocess.run(
        [str(ruff), "format", "--isolated", "--line-length", "88", "--diff", str(cell)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_long_string_is_broken_at_spaces_into_pieces_that_join_back() -> None:
    text = " ".join(f"word{i}" for i in range(40))
    code = setupcell.literal(text, 8)
    assert all(len(line) <= setupcell.COLUMNS for line in code.splitlines())
    assert ast.literal_eval("(" + code + ")") == text
    assert setupcell.literal('say "x" and it\'s', 0) == repr('say "x" and it\'s')


# -- the cell run as Colab runs it --------------------------------------------------------------

DRIVER = """
import json, subprocess, sys
calls = []
real = subprocess.run
def run(args, *rest, **kwargs):
    calls.append(args if isinstance(args, str) else list(args))
    if list(args)[:1] == [sys.executable]:  # the install: recorded, never run
        return subprocess.CompletedProcess(args, 0)
    return real(args, *rest, **kwargs)
subprocess.run = run
try:
    exec(compile(open(sys.argv[1]).read(), "setup-cell", "exec"), {"__name__": "__main__"})
finally:
    print("CALLS", json.dumps(calls))
"""


def _run_cell(
    tmp_path: Path,
    plan: PagePlan,
    *,
    colab_module: bool = True,
    cuda: str | None = "13.0",
    dry_run: bool = True,
) -> tuple[int, str, list]:
    """The cell run in a fresh interpreter; with ``colab_module``, a stand-in
    ``google.colab`` is on its path; with ``cuda``, a stand-in ``nvidia-smi`` that
    reports that CUDA version is on its PATH (none: no NVIDIA driver)."""
    cell = tmp_path / "cell.py"
    cell.write_text(setupcell.source(setupcell.Setup.of(TABLE, plan)))
    (tmp_path / "driver.py").write_text(DRIVER)
    standin = tmp_path / "standin"
    if colab_module:
        (standin / "google" / "colab").mkdir(parents=True)
        (standin / "google" / "colab" / "__init__.py").write_text('"""A stand-in."""\n')
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if cuda is not None:
        smi = bin_dir / "nvidia-smi"
        smi.write_text(SMI.format(driver="580.82.07", cuda=cuda))
        smi.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", setupcell.DRY_RUN)}
    env.update(PATH=os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"]), PYTHONPATH=str(standin))
    if dry_run:
        env[setupcell.DRY_RUN] = "1"
    result = subprocess.run(
        [sys.executable, str(tmp_path / "driver.py"), str(cell)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    out, _, calls = result.stdout.rpartition("CALLS ")
    return result.returncode, out + result.stderr, json.loads(calls)


def _installs(calls: list) -> list:
    return [c for c in calls if c[:1] == [sys.executable]]


def test_outside_colab_the_cell_does_nothing(tmp_path: Path) -> None:
    code, out, calls = _run_cell(tmp_path, GPU_PAGE, colab_module=False, dry_run=False)
    assert (code, out, calls) == (0, "", [])


def test_in_colab_a_dry_run_prints_the_commands_and_runs_none(tmp_path: Path) -> None:
    code, out, calls = _run_cell(tmp_path, GPU_PAGE)
    command = TABLE.install_command(RELEASE.key, "pip", "linux")
    assert code == 0, out
    assert f"$ {command}\n" in out and "nothing was installed" in out
    assert "The driver runs CUDA 13.0; Torch-TensorRT 2.14.0 needs CUDA 13." in out
    # the cells it does not set up for, each kind once
    assert "1 cell of this notebook needs a newer release than Torch-TensorRT 2.14.0" in out
    assert "1 cell of this notebook needs the CUDA toolkit, a TensorRT SDK" in out
    assert _installs(calls) == []


def test_in_colab_the_cell_installs_with_the_kernels_pip(tmp_path: Path) -> None:
    code, out, calls = _run_cell(tmp_path, GPU_PAGE, dry_run=False)
    assert code == 0, out
    (install,) = _installs(calls)
    assert install == [
        sys.executable,
        "-m",
        "pip",
        "install",
        "torch-tensorrt[executorch]==2.14.0",
        "torch-tensorrt-executorch-runtime==0.1.0",
    ]
    # then the versions it installed, one a line: here, what this venv has
    assert f"torch-tensorrt {metadata.version('torch-tensorrt')}\n" in out
    assert f"torch {metadata.version('torch')}\n" in out


def test_without_a_gpu_it_says_how_to_switch_and_installs_nothing(tmp_path: Path) -> None:
    code, out, calls = _run_cell(tmp_path, GPU_PAGE, cuda=None, dry_run=False)
    assert code != 0 and _installs(calls) == []
    assert out.rstrip().endswith(
        "RuntimeError: This runtime has no GPU: choose Runtime > Change runtime type, pick a "
        "GPU, and run this cell again."
    )


def test_a_driver_older_than_the_releases_cuda_stops_it_before_installing(tmp_path: Path) -> None:
    code, out, calls = _run_cell(tmp_path, GPU_PAGE, cuda="12.4", dry_run=False)
    assert code != 0 and _installs(calls) == []
    assert out.rstrip().endswith(
        "RuntimeError: This runtime's NVIDIA driver reports CUDA 12.4; Torch-TensorRT 2.14.0 "
        "requires tensorrt-cu13, which needs a driver for CUDA 13. Nothing was installed."
    )


def test_a_page_that_runs_on_a_cpu_installs_without_a_gpu(tmp_path: Path) -> None:
    code, out, calls = _run_cell(tmp_path, CPU_PAGE, cuda=None)
    assert code == 0, out
    assert "nvidia-smi" not in json.dumps(calls) and "$ pip install" in out


# -- where a cell that did not run runs ---------------------------------------------------------


def _skipped(needs: tuple[str, ...], newer: bool = False) -> SkippedCell:
    return SkippedCell(1, 1, 10, needs, ("why",), newer=newer)


def test_each_not_run_note_says_where_the_cell_runs() -> None:
    gpu = setupcell.note(_skipped(("cuda", "tensorrt")), ("cuda", "tensorrt"), TABLE)
    assert "runs on a GPU runtime such as Google Colab's" in gpu
    newer = setupcell.note(_skipped(("cuda",)), ("feature:multi-profile", "cuda"), TABLE)
    assert "needs a newer release than the one this notebook's first cell installs" in newer
    assert "newer release" in setupcell.note(_skipped((), newer=True), (), TABLE)
    assert "where the cell whose result it reads runs" in setupcell.note(_skipped(()), (), TABLE)
    build = setupcell.note(_skipped(("cuda", "source-build")), ("source-build",), TABLE)
    assert "does not set up" in build
    assert setupcell.note(_skipped(("torch>=9",)), ("torch>=9",), TABLE) == ""


def test_the_newer_release_check_follows_the_table() -> None:
    assert setupcell.needs_newer(["feature:multi-profile"], TABLE)  # since 2.15
    assert not setupcell.needs_newer(["feature:pte-save", "cuda"], TABLE)  # since 2.14
    assert setupcell.needs_newer(["torch_tensorrt>=2.15"], TABLE)
    assert not setupcell.needs_newer(["torch>=2.14"], TABLE)


def test_prepare_puts_the_setup_cell_first_once_and_ends_each_note() -> None:
    import nbformat

    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("a = 1"),
            nbformat.v4.new_markdown_cell("> **Not executed in this build** (needs: cuda): why"),
            nbformat.v4.new_code_cell("b = a"),
        ]
    )
    plan = PagePlan((), ("cuda",), 2, [SkippedCell(2, 1, 9, ("cuda",), ("why",))])
    plan.cell_needs = ((), ("cuda",))
    setupcell.prepare(nb, plan, TABLE)
    assert setupcell.is_setup(nb.cells[0]) and len(setupcell.page_cells(nb)) == 3
    assert nb.cells[2].source.startswith("> **Not executed in this build** (needs: cuda): why. ")
    assert nb.cells[2].source.endswith("which this notebook's first cell sets up.")
    setupcell.prepend(nb, setupcell.Setup.of(TABLE, plan))
    assert sum(map(setupcell.is_setup, nb.cells)) == 1
    broken = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x")])
    with pytest.raises(ValueError, match="no note before code cell 1"):
        setupcell.prepare(broken, PagePlan((), (), 1, [SkippedCell(1, 0, 1, ("cuda",), ())]), TABLE)


# -- resolved as the install page's commands are ---------------------------------------------


@pytest.mark.network
def test_the_cells_command_resolves_inside_the_pins_as_the_install_pages_does() -> None:
    """The real resolver (pip's, as trtdocs.drift.resolved runs it for every page's command,
    from the build's day cache); TRTDOCS_RESOLVE=0 turns resolving off, as in a build, and an
    index that does not answer is marked, as the page's banner marks it."""
    if not config.from_environment("resolve_installs"):
        pytest.skip("TRTDOCS_RESOLVE=0: install commands are not resolved")
    (command,) = _commands(setupcell.source(setupcell.Setup.of(TABLE, GPU_PAGE)))
    (parsed,), _ = parse_command(textwrap.dedent(command), "setup-cell", 1, release=RELEASE.key)
    shown = resolved.Shown(parsed, "the setup cell's command")
    page = next(
        s
        for s in resolved.page_commands(ROOT / "notebooks" / "install.md", ROOT, TABLE)
        if (s.command.tool, s.platform, s.command.release) == ("pip", "linux", RELEASE.key)
    )
    day = resolve.today()
    assert resolved.cache_key(shown, day) == resolved.cache_key(page, day)  # one resolution
    found = resolved.resolution(shown, ROOT / "_build" / "trtdocs" / "resolve")
    if found.status == resolve.UNREACHABLE:  # a build marks it so, and fails nothing
        pytest.skip(f"the install page's command is not resolved here either: {found.reason}")
    assert found.status == resolve.RESOLVED, found
    violations, text = resolved.check(shown, found, TABLE)
    assert violations == [] and f"inside release {RELEASE.key}'s pins" in text, text

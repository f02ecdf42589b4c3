"""Install-command guard: rules, the generator, and the real pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from paths import FIXTURES, ROOT
from trtdocs.drift import installs
from trtdocs.features.validate import load as load_features
from trtdocs.pages.blocks import page_paths
from trtdocs.pages.commands import find_commands, parse_command

FIXTURE_TABLE = FIXTURES / "drift-table" / "features.toml"
REAL_TABLE = ROOT / "docs" / "features.toml"


@pytest.fixture(scope="module")
def table():
    # A small table of the real schema, to pin the rules down (not the real table's contents).
    return load_features(FIXTURE_TABLE)


@pytest.fixture(scope="module")
def installed():
    return installs.Installed.from_metadata()


def _check(path: Path, table, installed) -> list[tuple[int, str]]:
    commands, problems = find_commands(path, FIXTURES)
    found = problems + [v for c in commands for v in installs.check_command(c, table, installed)]
    return sorted((v.line, v.rule) for v in found)


def test_installed_release_has_the_extras_the_table_lists(table, installed):
    assert installed.versions["torch-tensorrt"] == "2.14.0"
    assert {"executorch", "all"} <= installed.extras["torch-tensorrt"]
    assert installs.check_table_against_installed(table, installed) == []


def test_good_commands_pass(table, installed):
    commands, problems = find_commands(FIXTURES / "drift-installs" / "good.md", FIXTURES)
    assert problems == []
    # the console output line is not a command; `a && b` gives two
    assert [c.line for c in commands] == [4, 8, 16, 17, 17, 21, 28]
    assert commands[-1].release == "2.15"
    assert _check(FIXTURES / "drift-installs" / "good.md", table, installed) == []


def test_each_planted_defect_fails_with_its_rule(table, installed):
    assert _check(FIXTURES / "drift-installs" / "bad.md", table, installed) == [
        (4, "nightly-pre"),
        (8, "pin-exists"),
        (12, "delegate-missing"),
        (16, "extra-installed"),
        (16, "extra-known"),
        (20, "pin-agrees"),
        (24, "index-known"),
        (28, "shell-quoting"),
        (32, "option-known"),
        (37, "release-known"),
    ]


def test_messages_name_file_line_and_rule(table, installed):
    commands, _ = find_commands(FIXTURES / "drift-installs" / "bad.md", FIXTURES)
    text = [str(v) for c in commands for v in installs.check_command(c, table, installed)]
    assert (
        "drift-installs/bad.md:4: [nightly-pre] this command uses a nightly channel but does not "
        "pass --pre" in "\n".join(text)
    )
    assert any("torch-tensorrt==2.13.7 is not a released version" in t for t in text)
    assert any("add torch-tensorrt-executorch-runtime==0.1.0, or mark" in t for t in text)


def test_every_rule_is_documented():
    assert set(installs.RULES) >= {
        "nightly-pre",
        "index-known",
        "pin-exists",
        "pin-agrees",
        "extra-known",
        "extra-installed",
        "delegate-missing",
        "parse",
        "option-known",
    }


@pytest.mark.parametrize("key", ["2.14", "2.15", "nightly"])
def test_generated_commands_pass_the_checks(installed, key):
    """The commands {install-command} prints, from the real table, by the real rules:
    pip and uv, Linux and (where the release has it) Windows."""
    commands = load_features(REAL_TABLE).install_commands(key)
    assert {"pip linux", "uv linux"} <= set(commands)
    for variant, command in commands.items():
        assert command.startswith(
            "pip install " if variant.startswith("pip") else "uv pip install "
        )
        assert (
            installs.check_generated({key: command}, load_features(REAL_TABLE), installed) == []
        ), variant


def test_generated_windows_and_uv_commands():
    features = load_features(REAL_TABLE)
    assert "pip windows" not in features.install_commands("2.14")  # 2.14 has no Windows delegate
    # 2.15 is described without Windows (not tested there): no command, and asking for one fails
    assert "pip windows" not in features.install_commands("2.15")
    with pytest.raises(ValueError, match="no install command for release '2.15' on 'windows'"):
        features.install_command("2.15", "pip", "windows")
    (win,), _ = parse_command(features.install_command("nightly", "pip", "windows"), "generated", 1)
    assert win.index_urls[0] == "https://download.pytorch.org/whl/nightly/cu132"
    (uv,), _ = parse_command(features.install_command("nightly", "uv"), "generated", 1)
    assert (uv.tool, uv.pre, uv.index_strategy) == ("uv", True, "unsafe-best-match")
    (uv_win,), _ = parse_command(
        features.install_command("nightly", "uv", "windows"), "generated", 1
    )
    assert "https://download.pytorch.org/whl/nightly/cpu" in uv_win.index_urls
    with pytest.raises(ValueError, match="no install command"):
        features.install_command("2.15", "conda")


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        # uv reads --extra-index-url first and stops at the first index with the package
        (
            'uv pip install --prerelease=allow "torch_tensorrt[executorch]" '
            "--index-url https://download.pytorch.org/whl/nightly/cu132 --extra-index-url https://pypi.org/simple",
            "uv-index-strategy",
        ),
        (
            'uv pip install --index-strategy unsafe-best-match "torch_tensorrt[executorch]" '
            "--index-url https://download.pytorch.org/whl/nightly/cu132 --extra-index-url https://pypi.org/simple",
            "nightly-pre",
        ),
        # a user upgrading ExecuTorch on a 2.14 stack
        ("pip install -U executorch", "pin-upgrade"),
        ("uv pip install --upgrade executorch", "pin-upgrade"),
        ('pip install "executorch==1.5.1"', "pin-agrees"),
    ],
)
def test_uv_and_pairing_cases(command, rule):
    (cmd,), problems = parse_command(command, "x.md", 1)
    assert problems == []
    assert [v.rule for v in installs.check_command(cmd, load_features(REAL_TABLE))] == [rule]


@pytest.mark.parametrize(
    ("torch", "agrees"),
    [
        # the documented release pins torch as a range: ranges are compared with ranges
        ("torch==2.14.*", True),
        ("torch~=2.14.0", True),
        ("torch>=2.14.1,<2.15", True),
        ("torch<2.15", True),
        ("torch==2.13.*", False),
        ("torch~=2.13.0", False),
        ("torch>=2.13,<2.14", False),
        ("torch>2.15", False),
    ],
)
def test_a_range_is_compared_with_the_pinned_range(torch, agrees):
    (cmd,), _ = parse_command(f'pip install pyyaml "{torch}"', "x.md", 1)
    rules = [v.rule for v in installs.check_command(cmd, load_features(REAL_TABLE))]
    assert rules == ([] if agrees else ["pin-agrees"]), rules


def test_an_upgrade_inside_the_pin_passes():
    (cmd,), _ = parse_command('pip install -U "executorch==1.4.1"', "x.md", 1)
    assert installs.check_command(cmd, load_features(REAL_TABLE)) == []


def test_installed_metadata_refuses_executorch_1_5():
    """What the pin-upgrade rule protects, in the installed wheels' own metadata."""
    from importlib import metadata

    from packaging.requirements import Requirement

    def executorch_requirement(dist: str, extra: str | None = None) -> Requirement:
        for text in metadata.requires(dist) or []:
            req = Requirement(text)
            if req.name == "executorch" and (
                extra is None or req.marker and req.marker.evaluate({"extra": extra})
            ):
                return req
        raise AssertionError(f"{dist} does not require executorch")

    extra = executorch_requirement("torch_tensorrt", "executorch")
    runtime = executorch_requirement("torch-tensorrt-executorch-runtime")
    assert extra.specifier.contains("1.4.1") and runtime.specifier.contains("1.4.1")
    assert not extra.specifier.contains("1.5.1") and not runtime.specifier.contains("1.5.1")


def test_generated_documented_command_brings_the_delegate():
    features = load_features(REAL_TABLE)
    (cmd,), _ = parse_command(features.install_command("2.14"), "generated", 1)
    assert {canonicalize_name(r.name) for r in cmd.requirements} == {
        "torch-tensorrt",
        "torch-tensorrt-executorch-runtime",
    }
    (nightly,), _ = parse_command(features.install_command("nightly"), "generated", 1)
    assert nightly.pre and nightly.index_urls[0] == "https://download.pytorch.org/whl/nightly/cu132"


def test_a_broken_generated_command_is_caught(installed):
    bad = {
        "nightly": "pip install 'torch_tensorrt[executorch]' "
        "--index-url https://download.pytorch.org/whl/nightly/cu132"
    }
    rules = [v.rule for v in installs.check_generated(bad, load_features(REAL_TABLE), installed)]
    assert "nightly-pre" in rules


def test_delegate_rule_follows_the_table(tmp_path):
    """Once the extra brings the delegate (feature since 2.14 here), the runtime is not needed."""
    data = load_features(FIXTURE_TABLE)
    text = FIXTURE_TABLE.read_text()
    old = (
        'since = "2.15"\nnote = "Installing the extra also installs the delegate."\ncells = { '
        '"2.14" = { state = "no"'
    )
    assert old in text
    moved = tmp_path / "features.toml"
    moved.write_text(
        text.replace(old, old.replace('"2.15"', '"2.14"', 1).replace('"no"', '"described"'))
    )
    brings = load_features(moved)
    assert (
        not data.release("2.14").extra_brings_delegate
        and brings.release("2.14").extra_brings_delegate
    )
    (cmd,), _ = parse_command('pip install "torch-tensorrt[executorch]==2.14.0"', "x.md", 1)
    assert [v.rule for v in installs.check_command(cmd, data)] == ["delegate-missing"]
    assert installs.check_command(cmd, brings) == []


def test_real_pages():
    table = load_features(REAL_TABLE)
    assert page_paths(ROOT), "no pages found"
    violations = installs.check_pages(ROOT, table, installs.Installed.from_metadata())
    assert violations == [], "\n".join(map(str, violations))


def test_marks_before_a_cell_with_options_apply(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n% drift: export-only\n```{code-cell} ipython3\n:tags: [remove-output]\n"
        '%pip install "torch-tensorrt[executorch]==2.14.0"\n```\n'
    )
    (cmd,), problems = find_commands(page, tmp_path)
    assert problems == [] and cmd.export_only and cmd.line == 6


def test_an_install_in_a_shell_cell_is_checked(tmp_path):
    # a shell step made a %%bash cell keeps its install command checked (planted: off the pins)
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n```{code-cell} ipython3\n:requires: [cuda, tensorrt]\n%%bash\n"
        'mkdir -p build\npip install pyyaml \\\n  "torch==2.13.*"\n```\n'
    )
    (cmd,), problems = find_commands(page, tmp_path)
    assert (
        problems == []
        and cmd.line == 7
        and [r.name for r in cmd.requirements] == ["pyyaml", "torch"]
    )
    table = load_features(REAL_TABLE)
    assert any("torch" in v.message for v in installs.check_command(cmd, table))

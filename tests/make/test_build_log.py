"""What a newcomer's `make html` prints: one line a notebook that runs, and
the result; not apt-get's output, myst's and myst-nb's settings, myst-nb's
cache records or a warning from every kernel the build starts
(trtdocs.notebooks.buildlog, trtdocs.notebooks.execute, the Makefile's
APT_INSTALL).

The site is tests/roots/test-execution: four notebooks, two of which end only
when their kernels run at once. Graphviz is "missing" (DOT names no file), so
make installs it with a stand-in apt-get that talks as apt-get and dpkg do."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from paths import EXT, ROOT
from sites import REAL_TABLE, copy_root

# What the log held before it was quieted, a pattern each.
NOISE = {
    "apt-get and dpkg": re.compile(
        r"^(Get|Hit|Ign):\d+ |^Reading package lists|^Selecting previously unselected"
        r"|^(Unpacking|Setting up|Preparing to unpack) |^debconf: "
    ),
    "myst's settings": re.compile(r"myst v[\d.]+: MdParserConfig\("),
    "myst-nb's settings": re.compile(r"myst-nb v[\d.]+: NbParserConfig\("),
    "myst-nb's cache": re.compile(r"Using jupyter-cache at: |Using cached notebook: ID="),
    "a kernel over plain TCP": re.compile(r"\[IPKernelApp\] WARNING \| Kernel is running over TCP"),
}
# One of each, as the log of `make html` on a fresh machine held them.
HEARD = [
    "Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]",
    "Setting up graphviz (2.42.2-7+deb12u1) ...",
    "debconf: delaying package configuration, since apt-utils is not installed",
    "myst v5.2.0: MdParserConfig(commonmark_only=False, gfm_only=False, enable_extensions=set())",
    "myst-nb v1.4.0: NbParserConfig(custom_formats={}, metadata_key='mystnb')",
    "Using jupyter-cache at: /tmp/site/_build/.jupyter_cache",
    "/tmp/site/notebooks/writer.md: Using cached notebook: ID=1 [mystnb]",
    "[IPKernelApp] WARNING | Kernel is running over TCP without encryption. All communication"
    " (including code and outputs) is sent in plain text and is susceptible to eavesdropping.",
]
NOTEBOOKS = ("reader", "slow-a", "slow-b", "writer")

# apt-get as it talks on a fresh machine: progress on stdout, debconf on stderr.
STAND_IN_APT = textwrap.dedent("""\
    #!/bin/sh
    echo "apt-get $*" >> "$TRTDOCS_APT_LOG"
    echo "Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]"
    echo "Reading package lists..."
    case " $* " in *" install "*)
      echo "Selecting previously unselected package graphviz."
      echo "Setting up graphviz (2.42.2-7+deb12u1) ..."
      echo "debconf: delaying package configuration, since apt-utils is not installed" >&2
      if [ -n "$TRTDOCS_APT_FAIL" ]; then
        echo "E: Unable to locate package graphviz" >&2; exit 100
      fi;;
    esac
    """)


def noise(log: str) -> list[str]:
    """The lines of ``log`` that are noise, each with what made it."""
    return [
        f"{what}: {line}"
        for line in log.splitlines()
        for what, pattern in NOISE.items()
        if pattern.search(line)
    ]


def _make(
    tmp_path: Path, *args: str, makefile: Path = ROOT / "Makefile", fail: bool = False
) -> subprocess.CompletedProcess[str]:
    """make, as a newcomer runs it (no -s), with the stand-in apt-get first on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    apt = bin_dir / "apt-get"
    apt.write_text(STAND_IN_APT)
    apt.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "REQUIRE_ALL", "TRTDOCS_RECORD")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(EXT), env.get("PYTHONPATH")]))
    env["PATH"] = os.pathsep.join([str(bin_dir), env["PATH"]])
    env["TRTDOCS_APT_LOG"] = str(tmp_path / "apt.log")
    if fail:
        env["TRTDOCS_APT_FAIL"] = "1"
    return subprocess.run(
        ["make", "--no-print-directory", "-f", str(makefile), *args]
        + [f"VENV={sys.prefix}", f"DOT={tmp_path / 'no-dot'}", "SUDO="],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        timeout=900,
    )


def test_make_html_logs_a_line_a_notebook_and_the_result_and_no_noise(tmp_path: Path) -> None:
    site = copy_root("execution", tmp_path)
    result = _make(
        tmp_path,
        "html",
        f"SOURCEDIR={site}",
        f"BUILDDIR={tmp_path / '_build'}",
        f"SPHINXOPTS=-D trtdocs_features_file={REAL_TABLE}",
    )
    log = result.stdout
    assert result.returncode == 0, log
    assert "apt-get -qq install" in (tmp_path / "apt.log").read_text()  # it ran, quietly
    assert noise(log) == [], log
    for name in NOTEBOOKS:  # Sphinx's reading and writing lines aside, one line a notebook
        about = [ln for ln in log.splitlines() if f"notebooks/{name}.md" in ln]
        assert len(about) == 1 and re.search(r": Executed notebook in [\d.]+ seconds$", about[0]), (
            name,
            log,
        )
    assert "make: installing graphviz with apt-get" in log
    assert log.rstrip().endswith(f"make: the site is in {tmp_path / '_build'}/html."), log


def test_every_noise_is_found_when_planted_in_a_quiet_log() -> None:
    quiet = "reading sources... [ 40%] notebooks/writer\nbuild succeeded.\n"
    assert noise(quiet) == []
    for line in HEARD:
        assert len(noise(quiet + line + "\n")) == 1, line
    assert {found.split(":")[0] for found in noise("\n".join(HEARD))} == set(NOISE)


def test_apt_get_shows_its_output_when_it_fails(tmp_path: Path) -> None:
    result = _make(tmp_path, "graphviz", fail=True)
    assert result.returncode != 0
    assert "E: Unable to locate package graphviz" in result.stdout, result.stdout
    assert "make: apt-get failed to install graphviz" in result.stdout


def test_a_makefile_that_lets_apt_get_talk_is_caught(tmp_path: Path) -> None:
    """Planted: the Makefile without APT_INSTALL's redirection."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    loud = text.replace('>"$$log" 2>&1', "", 1)
    assert loud != text, "the Makefile's APT_INSTALL no longer redirects apt-get's output"
    makefile = tmp_path / "Makefile"
    makefile.write_text(loud, encoding="utf-8")
    result = _make(tmp_path, "graphviz", makefile=makefile)
    assert result.returncode == 0, result.stdout
    # every line the stand-in said: two for the update, five for the install
    assert [n.split(":")[0] for n in noise(result.stdout)] == ["apt-get and dpkg"] * 7, (
        result.stdout
    )
    assert noise(_make(tmp_path, "graphviz").stdout) == []

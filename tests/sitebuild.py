"""Run sphinx-build in a child process, the way the Makefile does: the real
site's build (tests/conftest.py) and the tests of the harness itself. The
fixture sites build in the test process (tests/sites.py)."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

from paths import EXT
from sites import ENV_SETTINGS

STRICT = ("-W", "-n", "--keep-going", "-T")
STRICTNESS = ("CI", "REQUIRE_ALL")  # what the real site's build keeps from the environment
BUILD_TEST = (
    "tests/site/test_site_build.py::test_the_site_builds_strictly"  # reports a failed build
)


def _command(src: Path, out: Path, *args: str, strict: bool = True) -> list[str]:
    return [
        sys.executable,
        "-m",
        "sphinx",
        *(STRICT if strict else ()),
        *args,
        "-b",
        "html",
        "-d",
        str(out / "doctrees"),
        str(src),
        str(out / "html"),
    ]


def _environment(env: dict[str, str] | None, keep_env: tuple[str, ...]) -> dict[str, str]:
    """This environment without :data:`ENV_SETTINGS` (but ``keep_env``), plus ``env``."""
    run_env = {k: v for k, v in os.environ.items() if k not in ENV_SETTINGS or k in keep_env}
    run_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(EXT), run_env.get("PYTHONPATH")]))
    run_env.update(env or {})
    return run_env


def sphinx_build(
    src: Path,
    out: Path,
    *args: str,
    strict: bool = True,
    env: dict[str, str] | None = None,
    keep_env: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """Build ``src`` into ``out/html``; doctrees stay in ``out/doctrees``.

    The build does not see :data:`ENV_SETTINGS` from this environment, except
    those named in ``keep_env``; ``env`` adds variables."""
    return subprocess.run(
        _command(src, out, *args, strict=strict),
        capture_output=True,
        text=True,
        env=_environment(env, keep_env),
        timeout=900,
    )


def start_sphinx_build(
    src: Path, out: Path, log_file: Path, *args: str, keep_env: tuple[str, ...] = ()
) -> subprocess.Popen[bytes]:
    """:func:`sphinx_build`, running in the background; its output goes to ``log_file``."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with log_file.open("wb") as sink:
        return subprocess.Popen(
            _command(src, out, *args),
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=_environment(None, keep_env),
        )


def log(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout + result.stderr


@dataclasses.dataclass(slots=True)
class SiteBuild:
    html: Path
    returncode: int
    log_file: Path | None = None
    summary: str = ""
    reported: bool = False  # the build test showed the failure


def summarize(text: str, tail: int = 25) -> str:
    """The build's problems, each once, then the end of its log."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    lines = text.splitlines()
    problems = list(
        dict.fromkeys(ln for ln in lines if re.search(r"\b(WARNING|ERROR|CRITICAL)\b|Error\b", ln))
    )
    parts = ["problems:", *problems[:60]]
    if len(problems) > 60:
        parts.append(f"... and {len(problems) - 60} more")
    rest = [ln for ln in lines if ln not in problems]
    return "\n".join([*parts, "", "the end of the log, without those lines:", *rest[-tail:]])


def failure_report(build: SiteBuild) -> str:
    where = f" (full log: {build.log_file})" if build.log_file else ""
    return f"the strict build of the site failed, exit {build.returncode}{where}\n{build.summary}"

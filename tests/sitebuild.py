"""Run sphinx-build on a site, the way the Makefile does, for the tests."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
STRICT = ("-W", "-n", "--keep-going", "-T")
# the settings a build reads from the environment: a test names those it wants
ENV_SETTINGS = frozenset({"CI", "REQUIRE_ALL", "REQUIRE_OUTPUTS", "TRTDOCS_RECORD", "TRTDOCS_DISABLE",
                          "TRTDOCS_NOTEBOOKS", "TRTDOCS_RECORD_OUT", "TRTDOCS_RECORD_MAX_AGE_DAYS"})


def copy_fixture(name: str, dest: Path) -> Path:
    site = dest / name
    shutil.copytree(FIXTURES / name, site)
    return site


def sphinx_build(src: Path, out: Path, *args: str, strict: bool = True,
                 env: dict[str, str] | None = None,
                 keep_env: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """Build ``src`` into ``out/html``; doctrees stay in ``out/doctrees``.

    The build does not see :data:`ENV_SETTINGS` from this environment, except
    those named in ``keep_env``; ``env`` adds variables."""
    run_env = {k: v for k, v in os.environ.items() if k not in ENV_SETTINGS or k in keep_env}
    run_env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(REPO / "docs" / "_ext"), run_env.get("PYTHONPATH")]))
    run_env.update(env or {})
    cmd = [sys.executable, "-m", "sphinx", *(STRICT if strict else ()), *args,
           "-b", "html", "-d", str(out / "doctrees"), str(src), str(out / "html")]
    return subprocess.run(cmd, capture_output=True, text=True, env=run_env, timeout=900)


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
    problems = list(dict.fromkeys(ln for ln in lines if re.search(r"\b(WARNING|ERROR|CRITICAL)\b|Error\b", ln)))
    parts = ["problems:", *problems[:60]]
    if len(problems) > 60:
        parts.append(f"... and {len(problems) - 60} more")
    rest = [ln for ln in lines if ln not in problems]
    return "\n".join([*parts, "", "the end of the log, without those lines:", *rest[-tail:]])


def failure_report(build: SiteBuild) -> str:
    where = f" (full log: {build.log_file})" if build.log_file else ""
    return f"the strict build of the site failed, exit {build.returncode}{where}\n{build.summary}"

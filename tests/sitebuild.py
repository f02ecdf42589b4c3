"""Run sphinx-build on a site, the way the Makefile does, for the tests."""

from __future__ import annotations

import os
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
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Build ``src`` into ``out/html``; doctrees stay in ``out/doctrees``."""
    run_env = {k: v for k, v in os.environ.items()
               if k not in ENV_SETTINGS}
    run_env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(REPO / "docs" / "_ext"), run_env.get("PYTHONPATH")]))
    run_env.update(env or {})
    cmd = [sys.executable, "-m", "sphinx", *(STRICT if strict else ()), *args,
           "-b", "html", "-d", str(out / "doctrees"), str(src), str(out / "html")]
    return subprocess.run(cmd, capture_output=True, text=True, env=run_env, timeout=900)


def log(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout + result.stderr

"""The static checks of the Python here (pyproject.toml's [tool.ruff] and [tool.mypy]):
the commands, and the rule that every suppression says why on its line.

mypy starts in the background as soon as the session collects its test (tests/conftest.py),
so that a cold run (no cache in _build/.mypy_cache, as on a fresh clone) overlaps the
other tests instead of adding to them."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterable
from pathlib import Path

from paths import ROOT

BIN = Path(sys.executable).parent
RUFF = BIN / "ruff"
MYPY = BIN / "mypy"

# A suppression and what follows it on its comment: the codes, then the reason.
_SUPPRESSION = re.compile(
    r"#\s*(?P<what>noqa\b(?::\s*[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)?"
    r"|type:\s*ignore\b(?:\[[^\]]*\])?)(?P<rest>.*)"
)
# A reason is words: two letters at least, after any separator ("--", "#", "(").
_REASON = re.compile(r"[A-Za-z]{2,}")


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    """ruff, run on the repository with its configuration."""
    return subprocess.run([str(RUFF), *args], cwd=ROOT, capture_output=True, text=True, check=False)


def checked_files() -> list[Path]:
    """The Python files ruff checks (its configuration's exclusions applied)."""
    out = ruff("check", "--show-files", ".").stdout
    return [Path(line) for line in out.splitlines() if line.endswith(".py")]


def unexplained(paths: Iterable[Path]) -> list[str]:
    """``file:line: comment`` for each ``noqa`` or ``type: ignore`` comment that
    gives no reason after its codes."""
    found = []
    for path in paths:
        source = path.read_text(encoding="utf-8")
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type != tokenize.COMMENT:
                continue
            match = _SUPPRESSION.search(token.string)
            if match and not _REASON.search(match["rest"]):
                found.append(f"{path}:{token.start[0]}: {token.string}")
    return found


class Mypy:
    """One mypy run over pyproject.toml's files, started once, in the background."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None
        self._result: tuple[int, str] | None = None

    def start(self) -> None:
        if self._process is None:
            self._process = subprocess.Popen(
                [str(MYPY)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            )

    def result(self) -> tuple[int, str]:
        """Its exit status and output (waits for it)."""
        if self._result is None:
            self.start()
            assert self._process is not None
            out, _ = self._process.communicate()
            self._result = (self._process.returncode, out)
        return self._result

    def stop(self) -> None:
        """End a run no test waited for."""
        if self._process is not None and self._result is None:
            self._process.terminate()
            self._process.wait()

"""A TOML file of the project read, or an error that names it: the features
table, docs/data, the evidence registers and the stubs' sources all go through
:func:`read` (or :func:`parse`, for a reader that keeps the text for its lines).
Pure: the standard library only."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

_LINE = re.compile(r"\bline (\d+)")


class TomlFileError(ValueError):
    """A file that cannot be read, or is not valid TOML. The message names the file;
    ``line`` (0 when the file could not be read) and ``problem`` are there for a reader
    that reports a finding at a line instead of raising."""

    def __init__(self, path: Path, line: int, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path, self.line, self.problem = path, line, problem


# A reader's own error class, made from the message (FeaturesError, LinksError ...).
ErrorClass = Callable[[str], Exception]


def parse(text: str, path: Path, error: ErrorClass | None = None) -> dict[str, Any]:
    """The tables of ``text``, read from ``path``; raises :class:`TomlFileError`, or
    ``error`` with the same message, naming the file and the line."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = int(m[1]) if (m := _LINE.search(str(exc))) else 1
        raise _error(path, line, f"not valid TOML: {exc}", error) from None


def read(path: Path, error: ErrorClass | None = None) -> dict[str, Any]:
    """The tables of the file at ``path``; raises as :func:`parse` does, and when the
    file cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise _error(path, 0, f"cannot read: {exc}", error) from None
    return parse(text, path, error)


def _error(path: Path, line: int, problem: str, error: ErrorClass | None) -> Exception:
    found = TomlFileError(path, line, problem)
    return found if error is None else error(str(found))

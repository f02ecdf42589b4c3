"""Install commands found in the guide's pages and parsed: any ``pip install``,
``python -m pip install``, ``uv pip install`` in a bash/console/shell block or a
``%%bash`` cell, or ``%pip install`` / ``!pip install`` in a code cell. Each is split with
:mod:`shlex`; each requirement is parsed with
:class:`packaging.requirements.Requirement`. The marks above a block
(``% drift: export-only``, ``release=<key>``, ``cxx-package``) travel with its
commands. :mod:`trtdocs.drift.installs` checks them.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Iterable
from functools import partial
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from ..vocab import PYPI_SIMPLE, SHELL_LANGUAGES
from . import Violation
from .blocks import iter_blocks

# A code cell whose first line runs the rest in a shell (its lines are shell lines).
SHELL_CELL = re.compile(r"^%%(bash|sh)\b")
# Code-cell line prefixes that run pip in the kernel.
CELL_PREFIXES = ("%pip", "!pip", "%uv", "!uv", "!python -m pip", "!python3 -m pip")
# pip/uv install options that take a value, and flags.
OPTIONS_WITH_VALUE = frozenset(
    {
        "-i",
        "--index-url",
        "--extra-index-url",
        "-r",
        "--requirement",
        "-c",
        "--constraint",
        "-f",
        "--find-links",
        "-t",
        "--target",
        "--python",
        "--platform",
        "--python-version",
        "--only-binary",
        "--no-binary",
        "--upgrade-strategy",
        "--prerelease",
        "--index-strategy",
    }
)
FLAGS = frozenset(
    {
        "--pre",
        "-U",
        "--upgrade",
        "--no-deps",
        "--force-reinstall",
        "-q",
        "--quiet",
        "-v",
        "--verbose",
        "--user",
        "--dry-run",
        "--no-cache-dir",
        "--system",
        "--no-build-isolation",
    }
)
EXPORT_ONLY_MARK = "drift: export-only"
CXX_PACKAGE_MARK = "drift: cxx-package"
RELEASE_MARK = re.compile(r"drift:\s*release=(\S+)")
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&"})


@dataclasses.dataclass(frozen=True, slots=True)
class InstallCommand:
    """One parsed install command."""

    path: str  # page it was found in
    line: int  # 1-based page line where the command starts
    text: str  # the command as written (continuations joined)
    pre: bool  # --pre (or uv's --prerelease allow)
    index_urls: tuple[str, ...]  # --index-url first (PyPI when absent), then --extra-index-url
    requirements: tuple[Requirement, ...]  # positional arguments
    export_only: bool  # the block is marked EXPORT_ONLY_MARK (a MyST comment above it)
    release: str | None = None  # from a "drift: release=<key>" mark, else None
    tool: str = "pip"  # "pip" or "uv" (uv pip install)
    index_strategy: str | None = None  # uv's --index-strategy, if given
    upgrade: bool = False  # -U / --upgrade
    cxx_package: bool = False  # the block is marked CXX_PACKAGE_MARK
    target: str | None = None  # --target folder
    no_deps: bool = False  # --no-deps
    args: tuple[str, ...] = ()  # the words after ``install``, as the shell splits them


def _logical_lines(lines: Iterable[str], first: int) -> Iterable[tuple[int, str, str]]:
    """(line number, joined text, the line above) with backslash continuations joined."""
    buf: list[str] = []
    start, above, prev = first, "", ""
    for n, raw in enumerate(lines, first):
        if not buf:
            start, above = n, prev
        line = raw.rstrip()
        if line.endswith("\\"):
            buf.append(line[:-1])
        else:
            buf.append(line)
            yield start, " ".join(buf), above
            buf = []
        prev = raw
    if buf:
        yield start, " ".join(buf), above


def find_commands(
    path: Path, root: Path | None = None, text: str | None = None
) -> tuple[list[InstallCommand], list[Violation]]:
    rel = str(path.relative_to(root)) if root else str(path)
    commands: list[InstallCommand] = []
    problems: list[Violation] = []
    for block in iter_blocks(path, text):
        shell = block.kind in ("fence", "code-block", "code") and block.language in SHELL_LANGUAGES
        cell = block.kind == "code-cell"
        lines, first = block.lines, block.first_line
        if (
            cell and lines and SHELL_CELL.match(lines[0])
        ):  # a %%bash cell: a shell step run by the kernel
            shell, cell, lines, first = True, False, lines[1:], first + 1
        if not (shell or cell):
            continue
        # the "% drift: ..." MyST comments above the fence
        before = "\n".join(f"drift: {mark}" for mark in block.marks)
        for line, text_, _ in _logical_lines(lines, first):
            stripped = text_.strip()
            if cell:
                if not stripped.startswith(CELL_PREFIXES):
                    continue
                stripped = stripped[1:]
            elif block.language in ("console", "shell-session"):
                if not re.match(r"^(\(\S+\)\s*)?\$\s", stripped):
                    continue  # output line
                stripped = stripped.split("$", 1)[1]
            if "install" not in stripped:
                continue
            marks = before  # marks sit above the fence, never in the code (drift/marks.py)
            release = RELEASE_MARK.search(marks)
            cmd, errs = parse_command(
                stripped,
                rel,
                line,
                export_only=EXPORT_ONLY_MARK in marks,
                release=release[1] if release else None,
            )
            if CXX_PACKAGE_MARK in marks:
                cmd = [dataclasses.replace(c, cxx_package=True) for c in cmd]
            problems += errs
            commands += cmd
    return commands, problems


def block_commands(language: str, code: str) -> list[InstallCommand]:
    """The install commands of one shell block's code, found as in a page."""
    fence = "`" * 4
    found, _ = find_commands(
        Path("block.md"), text=f"{fence}{language}\n{code.rstrip()}\n{fence}\n"
    )
    return found


def parse_command(
    text: str, path: str, line: int, *, export_only: bool = False, release: str | None = None
) -> tuple[list[InstallCommand], list[Violation]]:
    """The install commands in one shell line (``a && b`` may hold several)."""
    bad = partial(Violation, path, line)  # bad(rule, message)
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        tokens = list(lexer)
    except ValueError as exc:
        return [], [bad("parse", f"cannot split {text!r}: {exc}")]
    commands: list[InstallCommand] = []
    problems: list[Violation] = []
    segment: list[str] = []
    quoting_error = False  # the segment lost a specifier to a shell redirection
    for tok in tokens + [";"]:
        if tok not in _SEPARATORS and not set(tok) <= set("<>"):
            segment.append(tok)
            continue
        if set(tok) <= set("<>") and segment and _install_args(segment) is not None:
            if not quoting_error:
                problems.append(
                    bad(
                        "shell-quoting",
                        f"{segment[-1]!r} is followed by an unquoted {tok!r}: "
                        'quote the requirement ("name>=1.0")',
                    )
                )
            quoting_error = True
            continue
        args, tool = _install_args(segment), _installer(segment)
        segment, tainted, quoting_error = [], quoting_error, False
        if args is None or tainted:
            continue
        cmd, errs = _parse_args(args, text, path, line, export_only, release, tool)
        problems += errs
        if cmd is not None:
            commands.append(cmd)
    return commands, problems


def _installer(tokens: list[str]) -> str:
    """ "uv" for ``uv pip install``, else "pip"."""
    i = tokens.index("install") if "install" in tokens else 0
    return (
        "uv"
        if i >= 2 and tokens[i - 1] == "pip" and re.fullmatch(r"(\S*/)?uv", tokens[i - 2])
        else "pip"
    )


def _install_args(tokens: list[str]) -> list[str] | None:
    for i in range(1, len(tokens)):
        if tokens[i] == "install" and re.fullmatch(
            r"[%!]?(\S*/)?(pip3?|uv pip|pip)", tokens[i - 1]
        ):
            return tokens[i + 1 :]
    return None


def _parse_args(
    args: list[str],
    text: str,
    path: str,
    line: int,
    export_only: bool,
    release: str | None,
    tool: str = "pip",
) -> tuple[InstallCommand | None, list[Violation]]:
    problems: list[Violation] = []
    pre = upgrade = False
    strategy: str | None = None
    index: str | None = None
    extra: list[str] = []
    reqs: list[Requirement] = []
    target: str | None = None
    it = iter(args)
    for arg in it:
        if arg.startswith("-"):
            name, eq, value = arg.partition("=")
            if name in OPTIONS_WITH_VALUE:
                value = value if eq else next(it, "")
                if name in ("-i", "--index-url"):
                    index = value
                elif name == "--extra-index-url":
                    extra.append(value)
                elif name in ("-t", "--target"):
                    target = value
                elif name == "--prerelease" and value in ("allow", "if-necessary-or-explicit"):
                    pre = True
                elif name == "--index-strategy":
                    strategy = value
            elif arg in FLAGS:
                pre = pre or arg == "--pre"
                upgrade = upgrade or arg in ("-U", "--upgrade")
            else:
                problems.append(
                    Violation(path, line, "option-known", f"unknown install option {arg!r}")
                )
            continue
        try:
            reqs.append(Requirement(arg))
        except InvalidRequirement as exc:
            problems.append(
                Violation(path, line, "parse", f"{arg!r} is not a PEP 508 requirement ({exc})")
            )
    urls = (index or PYPI_SIMPLE, *extra)
    return InstallCommand(
        path,
        line,
        text,
        pre,
        urls,
        tuple(reqs),
        export_only,
        release,
        tool,
        strategy,
        upgrade,
        target=target,
        no_deps="--no-deps" in args,
        args=tuple(args),
    ), problems

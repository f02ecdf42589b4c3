"""Which paths each page of the guide reads and writes, read statically, and the
pages in the order a reader runs them (the ``toctree`` blocks of ``index.md``,
top to bottom). The files guard (:mod:`trtdocs.drift.programs`) and the execution order
(:mod:`trtdocs.notebooks.handoffs`) both read pages through it. A page's paths are:

* code cells, as Python (IPython lines read as ``pass``; a cell that does not
  parse is reported by the api guard): a path is ``PROGRAMS / "x"``,
  ``Path("programs") / "x"``, the string ``"programs/x"``, a path under a
  ``tempfile`` folder (``Path(workdir.name) / "x"``), or a name bound to one of
  these. It is written when it is an argument of a call in :data:`WRITE_CALLS`,
  ``open(p, "w...")`` or a method in :data:`PATH_WRITES` of the path; calls in
  :data:`NEUTRAL_CALLS` neither read nor write; every other use reads it. A function
  the page defines writes the path given for a parameter it writes (:mod:`.writers`).
  ``%%writefile <path>`` writes its path, ``%%bash`` cells and ``!`` lines are shell;
* shell blocks (```bash, ```sh, ```shell, ```console after ``$ ``), split with
  :mod:`shlex`: a path after ``>``/``>>``/``-o``/``--output``, the last path of
  ``cp``/``mv``/``ln``/``install``, or an argument of ``mkdir``/``touch``/``tee``
  is written; any other word holding a path is read;
* C++ blocks: a string literal that is a path is read.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import shlex
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from ..vocab import CPP_LANGUAGES, SHELL_LANGUAGES
from . import Violation
from .blocks import Block, iter_blocks
from .cells import parse_cell
from .writers import Writer, writer
from .writers import called_name as _called

INDEX = "index.md"
FOLDER = "programs"  # contract 1: PROGRAMS = Path("programs")
PYTHON_LANGUAGES = frozenset({"ipython3", "ipython", "python", "python3"})
# Calls (the last part of the called name) whose path arguments are written.
WRITE_CALLS = frozenset(
    {
        "save",
        "write_to_file",
        "write_tensor_data_to_file",
        "save_pte_program",
        "savez",
        "urlretrieve",
        "copy",
        "copy2",
        "copyfile",
        "copytree",
        "move",
    }
)
# Calls that pass a path along (their own use is decided by the call around them) or only show it.
NEUTRAL_CALLS = frozenset(
    {
        "str",
        "repr",
        "Path",
        "PurePath",
        "fspath",
        "join",
        "print",
        "display",
        "format",
        "resolve",
        "absolute",
        "exists",
        "is_file",
        "is_dir",
        "len",
    }
)
# save()'s keyword that names the engines' data file written beside the program (``<name>.ptd``)
EXTERNAL_DATA_KEYWORD = "external_engine_data"
PATH_WRITES = frozenset(
    {"write_bytes", "write_text", "mkdir", "touch", "unlink", "rename", "replace"}
)
SHELL_WRITE_OPTIONS = frozenset(
    {">", ">>", "-o", "--output", "--output_path", "--out", "-B", "--build"}
)  # cmake -B/--build: its build folder
SHELL_LAST_WRITES = frozenset({"cp", "mv", "ln", "install"})
SHELL_ALL_WRITES = frozenset({"mkdir", "touch", "tee"})
_TEMP_FACTORIES = frozenset({"TemporaryDirectory", "mkdtemp", "gettempdir"})
_PATHLIKE = re.compile(r"^(\./)?[\w.+-]+(/[\w.+-]+)*/?$")
_SUFFIX = re.compile(
    r"\.[a-z][a-z0-9]{0,7}$"
)  # a file name's suffix (.pte, .ptd, .cpp), not a module path
_CPP_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')

Where = tuple[str, str]  # (root: "programs" | "temp" | "cwd", path under that root)


@dataclasses.dataclass(frozen=True, slots=True)
class Access:
    """One read or write of a path on a page."""

    root: str  # "programs", "temp" (a tempfile folder) or "cwd" (the reader's folder)
    path: str  # relative to the root, "/"-separated
    write: bool
    line: int  # page line


def reading_order(root: Path) -> list[Path]:
    """The pages of ``index.md``'s toctrees, in order (the landing page first)."""
    index = root / INDEX
    pages = [index]
    for block in iter_blocks(index):
        if block.kind != "toctree":
            continue
        for line in block.lines:
            entry = line.strip()
            if entry and not entry.startswith(":"):
                target = m[1] if (m := re.search(r"<([^>]+)>$", entry)) else entry
                pages.append(root / f"{target}.md")
    return pages


def _where(text: str) -> Where | None:
    """A path string as (root, path): ``programs/...`` or a relative or /tmp file path."""
    if text.startswith("/tmp/"):
        return "temp", text[len("/tmp/") :]
    if not _PATHLIKE.match(text):
        return None
    parts = PurePosixPath(text).parts
    if parts[:1] == (FOLDER,):
        return FOLDER, "/".join(parts[1:])
    return ("cwd", "/".join(parts)) if ("/" in text or _SUFFIX.search(text)) else None


class _Cells(ast.NodeVisitor):
    """A page's code cells as one kernel: names bound to paths carry over between cells."""

    def __init__(self) -> None:
        self.names: dict[
            str, Where | str
        ] = {}  # name -> a path, or "tempobj" (a TemporaryDirectory)
        self.found: list[Access] = []
        self.offset = 0  # page line of the cell's first line, less one
        self.writers: dict[str, Writer] = {}  # the page's functions that write a parameter

    def value(self, node: ast.AST) -> Where | str | None:
        match node:
            case ast.Constant(value=str(text)):
                return _where(text) or ("str", text)
            case ast.Name(id=name):
                return self.names.get(name)
            case ast.BinOp(op=ast.Div(), left=left, right=right):
                base, tail = self.value(left), self.value(right)
                if isinstance(base, tuple) and base[0] != "str" and isinstance(tail, tuple):
                    return base[0], "/".join(p for p in (base[1], tail[1]) if p)
            case ast.Attribute(value=inner, attr="name") if self.value(inner) == "tempobj":
                return "temp", ""
            case ast.Attribute(value=inner, attr="parent"):
                if isinstance(base := self.value(inner), tuple) and base[0] != "str":
                    return base[0], "/".join(base[1].split("/")[:-1])
            case ast.Call(func=func, args=args):
                called = _called(func)
                if called in _TEMP_FACTORIES:
                    return "tempobj" if called == "TemporaryDirectory" else ("temp", "")
                if called in ("Path", "PurePath", "str", "fspath", "resolve", "absolute") and args:
                    return self.value(args[0])
                if called in ("resolve", "absolute") and isinstance(func, ast.Attribute):
                    return self.value(func.value)
                if called == "join" and args and isinstance(base := self.value(args[0]), tuple):
                    tails = [t for a in args[1:] if isinstance(t := self.value(a), tuple)]
                    if base[0] != "str" and len(tails) == len(args) - 1:
                        return base[0], "/".join(p for p in (base[1], *(t[1] for t in tails)) if p)
        return None

    def _record(self, node: ast.expr, write: bool) -> None:
        val = self.value(node)
        if isinstance(val, tuple) and val[0] != "str":
            self.found.append(Access(val[0], val[1], write, self.offset + node.lineno))
        elif isinstance(node, (ast.List, ast.Tuple)):
            for item in node.elts:
                self._record(item, write)

    def visit_Assign(self, node: ast.Assign) -> None:
        val = self.value(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name) and val is not None:
                self.names[target.id] = val
        self.generic_visit(node)

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            if (
                isinstance(item.optional_vars, ast.Name)
                and _called(getattr(item.context_expr, "func", None)) == "TemporaryDirectory"
            ):
                self.names[item.optional_vars.id] = ("temp", "")
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if found := writer(node, WRITE_CALLS):
            self.writers[node.name] = found
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        called = _called(node.func)
        if isinstance(node.func, ast.Name) and called in self.writers:
            written = self.writers[called].written(node)
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                self._record(arg, any(arg is w for w in written))
            self.generic_visit(node)
            return
        if isinstance(node.func, ast.Attribute) and isinstance(self.value(node.func.value), tuple):
            if called in PATH_WRITES:
                self._record(node.func.value, True)
            elif called not in NEUTRAL_CALLS:
                self._record(node.func.value, False)
        args = [*node.args, *(k.value for k in node.keywords)]
        if called == "open" and node.args:
            mode = (
                node.args[1]
                if len(node.args) > 1
                else next((k.value for k in node.keywords if k.arg == "mode"), None)
            )
            writes = isinstance(mode, ast.Constant) and any(c in str(mode.value) for c in "wax")
            self._record(node.args[0], writes)
        elif called in ("copy", "copy2", "copyfile", "copytree", "move") and len(node.args) >= 2:
            self._record(node.args[0], False)
            self._record(node.args[1], True)
        elif called not in NEUTRAL_CALLS:
            for arg in args:
                self._record(arg, called in WRITE_CALLS)
            if called == "save":
                self._external_data(node)
        self.generic_visit(node)

    def _external_data(self, node: ast.Call) -> None:
        """``save(..., path, external_engine_data="name")`` also writes ``name.ptd`` beside the
        program."""
        name = next(
            (
                k.value.value
                for k in node.keywords
                if k.arg == EXTERNAL_DATA_KEYWORD
                and isinstance(k.value, ast.Constant)
                and isinstance(k.value.value, str)
            ),
            None,
        )
        program = next(
            (v for a in node.args if isinstance(v := self.value(a), tuple) and v[0] != "str"), None
        )
        if name and program is not None:
            folder = "/".join(program[1].split("/")[:-1])
            self.found.append(
                Access(
                    program[0],
                    "/".join(p for p in (folder, f"{name}.ptd") if p),
                    True,
                    self.offset + node.lineno,
                )
            )


def _shell_lines(block: Block) -> Iterator[tuple[int, str]]:
    """Commands of a shell block with their page lines; continuation lines joined."""
    pending, start = "", 0
    for n, raw in enumerate(block.lines):
        line = raw
        if block.language in (
            "console",
            "shell-session",
        ):  # prompt lines are commands, the rest output
            if not raw.startswith("$ ") and not pending:
                continue  # output
            line = raw[2:] if raw.startswith("$ ") else raw
        if not pending:
            start = block.first_line + n
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        yield start, pending + line
        pending = ""
    if pending:
        yield start, pending


def shell_accesses(line: int, command: str) -> list[Access]:
    """Paths one shell command line reads and writes. Raises ValueError (shlex)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    out: list[Access] = []
    for words in _split_commands(list(lexer)):
        paths = [(i, where) for i in range(len(words)) if (where := _shell_path(words, i))]
        last = paths[-1][0] if paths else -1
        for i, (root, path) in paths:
            write = (
                (i > 0 and words[i - 1] in SHELL_WRITE_OPTIONS)
                or words[0] in SHELL_ALL_WRITES
                or (words[0] in SHELL_LAST_WRITES and i == last and len(paths) > 1)
            )
            out.append(Access(root, path, write, line))
    return out


def _shell_path(words: list[str], i: int) -> Where | None:
    """The path word ``i`` names (after ``name=``), if any; the word after an option
    that writes (``-o runner``, ``-B build``) is one even without a suffix."""
    word = words[i].split("=", 1)[-1]
    if (where := _where(word)) is not None:
        return where
    if i > 0 and words[i - 1] in SHELL_WRITE_OPTIONS and _PATHLIKE.match(word):
        return "cwd", word.rstrip("/")
    return None


def _split_commands(words: list[str]) -> Iterator[list[str]]:
    command: list[str] = []
    for word in words:
        if word in (";", "&&", "||", "|", "&"):
            if command:
                yield command
            command = []
        else:
            command.append(word)
    if command:
        yield command


def page_accesses(path: Path, rel: str) -> tuple[list[Access], list[Violation]]:
    """Every read and write of a path on one page, and the steps that could not be read."""
    cells = _Cells()
    found: list[Access] = []
    problems: list[Violation] = []
    for block in iter_blocks(path):
        shell: list[tuple[int, str]] = []
        if block.kind == "code-cell" and block.language in PYTHON_LANGUAGES:
            first = block.lines[0] if block.lines else ""
            if m := re.match(r"%%writefile\s+(?:-a\s+)?(\S+)", first):
                if where := _where(m[1]):
                    found.append(Access(*where, True, block.first_line))
                continue
            if re.match(r"%%(bash|sh)\b", first):
                shell = list(
                    _shell_lines(
                        dataclasses.replace(
                            block,
                            language="bash",
                            lines=block.lines[1:],
                            first_line=block.first_line + 1,
                        )
                    )
                )
            else:
                shell = [
                    (block.first_line + n, text.strip()[1:])
                    for n, text in enumerate(block.lines)
                    if text.strip().startswith("!")
                ]
                try:
                    tree = parse_cell(block.text)
                except SyntaxError:
                    tree = None  # reported by the api guard (rule "parse")
                if tree is not None:
                    cells.offset = block.first_line - 1
                    cells.visit(tree)
        elif block.kind in ("fence", "code-block", "code") and block.language in SHELL_LANGUAGES:
            shell = list(_shell_lines(block))
        elif block.kind in ("fence", "code-block", "code") and block.language in CPP_LANGUAGES:
            for n, text in enumerate(block.lines):
                for m in _CPP_STRING.finditer(text):
                    if where := _where(m[1]):
                        found.append(Access(*where, False, block.first_line + n))
        for line, command in shell:
            try:
                found += shell_accesses(line, command)
            except ValueError as exc:
                problems.append(
                    Violation(rel, line, "programs-shell", f"the shell step does not split: {exc}")
                )
    return found + cells.found, problems


def overlap(a: str, b: str) -> bool:
    """Whether two paths name the same file, or one is a folder holding the other."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")

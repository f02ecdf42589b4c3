"""Cross-page files (drift/programs.py): what one page reads, an earlier page writes to
programs/."""

from __future__ import annotations

from pathlib import Path

import pytest

from paths import FIXTURES, ROOT
from trtdocs.drift import programs
from trtdocs.pages import accesses

FIXTURE = FIXTURES / "drift-programs"


def test_reading_order_is_the_toctree_order_of_index():
    got = [p.name for p in accesses.reading_order(FIXTURE)]
    assert got == [
        "index.md",
        "writer.md",
        "reader-ok.md",
        "reader-unwritten.md",
        "reader-early.md",
        "late-writer.md",
        "reader-nolink.md",
        "reader-temp.md",
    ]


def test_planted_pages_fail_each_rule_with_page_and_line():
    got = sorted((v.path, v.line, v.rule) for v in programs.check(FIXTURE))
    assert got == [
        ("reader-early.md", 4, "programs-order"),  # only late-writer.md, after it, writes late.pte
        ("reader-nolink.md", 4, "programs-link"),  # reads a.pte, names no page that writes it
        (
            "reader-temp.md",
            4,
            "programs-tempfile",
        ),  # writer.md's scratch file, in its temporary folder
        ("reader-temp.md", 9, "programs-tempfile"),  # a /tmp path from C++
        ("reader-temp.md", 13, "programs-shell"),  # an unbalanced quote
        ("reader-unwritten.md", 7, "programs-unwritten"),  # no page writes missing.pte
    ]
    # reader-ok.md reads a.pte from the shell and from C++, and links writer.md: no violation
    assert set(programs.RULES) == {v.rule for v in programs.check(FIXTURE)}


def test_what_each_page_writes_and_reads():
    found, problems = accesses.page_accesses(FIXTURE / "writer.md", "writer.md")
    assert problems == []
    got = {(a.root, a.path, a.write) for a in found if a.path}
    assert got == {
        ("programs", "a.pte", True),
        ("temp", "scratch/scratch.pte", True),
        ("programs", "a.pte", False),
    }
    found, _ = accesses.page_accesses(FIXTURE / "late-writer.md", "late-writer.md")
    assert {(a.root, a.path, a.write) for a in found} == {
        ("programs", "", True),
        ("cwd", "build/model.pte", False),
        ("programs", "late.pte", True),
    }


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            "./run --model_path programs/m.pte > programs/out.txt",
            [("cwd", "run", False), ("programs", "m.pte", False), ("programs", "out.txt", True)],
        ),
        (
            "python export.py -o programs/m.pte",
            [("cwd", "export.py", False), ("programs", "m.pte", True)],
        ),
        ("tee programs/log.txt", [("programs", "log.txt", True)]),
        ("ls torch.utils._pytree v1.4.1", []),  # a module path and a tag are not files
    ],
)
def test_shell_words(command, expected):
    assert [(a.root, a.path, a.write) for a in accesses.shell_accesses(1, command)] == expected


def test_real_pages():
    found = programs.check(ROOT)
    assert found == [], "\n".join(map(str, found))


@pytest.mark.parametrize("language", ["console", "shell-session"])
def test_a_session_block_reads_only_its_prompt_lines(tmp_path: Path, language: str):
    page = tmp_path / "session.md"
    page.write_text(
        f"# Session\n\n```{language}\n$ ./run programs/m.pte\nwrote programs/out.txt\n```\n"
    )
    found, problems = accesses.page_accesses(page, "session.md")
    assert problems == []
    # the output line names a file, but it is not a command
    assert {(a.root, a.path, a.write) for a in found} == {
        ("cwd", "run", False),
        ("programs", "m.pte", False),
    }


FUNCTION_PAGE = """# A task in a function

```{code-cell} ipython3
def save_it(module, path, *, log=None):
    torch_tensorrt.save(module, str(path), output_format="executorch")
    with open(log, "w") as f:
        f.write("saved")


def show_it(path):
    print(Path(path).read_bytes()[:4])
```

```{code-cell} ipython3
workdir = tempfile.TemporaryDirectory()
pte = Path(workdir.name) / "m.pte"
save_it(model, pte, log=Path(workdir.name) / "log.txt")
show_it(pte)
```
"""


def test_a_function_the_page_defines_writes_the_paths_it_is_given(tmp_path: Path):
    page = tmp_path / "function.md"
    page.write_text(FUNCTION_PAGE)
    found, problems = accesses.page_accesses(page, "function.md")
    assert problems == []
    assert [(a.root, a.path, a.write, a.line) for a in found if a.path] == [
        ("temp", "m.pte", True, 17),  # the positional parameter save() writes
        ("temp", "log.txt", True, 17),  # the keyword parameter open(..., "w") writes
        ("temp", "m.pte", False, 18),  # a function that only reads its parameter reads it
    ]
    # planted: the same call, with save_it no longer writing its path, reads it
    planted = tmp_path / "reads.md"
    planted.write_text(FUNCTION_PAGE.replace("torch_tensorrt.save(", "torch_tensorrt.load("))
    found, _ = accesses.page_accesses(planted, "reads.md")
    assert ("temp", "m.pte", True) not in {(a.root, a.path, a.write) for a in found}

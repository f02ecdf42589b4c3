"""The graphs of a diagram's Graphviz code: its layout for wide screens, and one
for narrow screens when the code holds a second graph.

    ```{graphviz}
    digraph wide { rankdir=LR; ... }
    digraph narrow { rankdir=TB; ... }
    ```

A diagram drawn for a desktop column reads at 5-6 px on a phone once scaled to
fit; a second graph, stacked and with shorter lines, is what a narrow screen
shows instead (:mod:`.diagrams` draws both; ``trtdocs.css`` shows one by the
screen's width). Downloads and Markdown twins keep the first. Pure: no Sphinx.
"""

from __future__ import annotations


class DotError(ValueError):
    """Code that is not one or two complete graphs; the message says why."""


def graphs(code: str) -> list[str]:
    """The top-level graphs of ``code``, each as written (its braces balanced,
    quoted strings and comments skipped)."""
    out: list[str] = []
    depth, start, i, n = 0, 0, 0, len(code)
    while i < n:
        c = code[i]
        if c == '"':
            i += 1
            while i < n and code[i] != '"':
                i += 2 if code[i] == "\\" else 1
        elif code.startswith("//", i) or (c == "#" and (i == 0 or code[i - 1] == "\n")):
            end = code.find("\n", i)
            i = n if end < 0 else end
        elif code.startswith("/*", i):
            end = code.find("*/", i + 2)
            i = n if end < 0 else end + 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                raise DotError("a closing brace with no opening one")
            if depth == 0:
                out.append(code[start : i + 1].strip())
                start = i + 1
        i += 1
    if depth:
        raise DotError("a graph is not closed: an opening brace has no closing one")
    if code[start:].strip():
        raise DotError(f"text after the last graph: {code[start:].strip()[:40]!r}")
    if not 1 <= len(out) <= 2:
        raise DotError(f"{len(out)} graphs: give one, or a wide and a narrow one")
    return out


def wide(code: str) -> str:
    """The graph wide screens show (the first), or ``code`` itself when it is not
    one or two graphs (Graphviz then reports what is wrong with it)."""
    try:
        return graphs(code)[0]
    except DotError:
        return code

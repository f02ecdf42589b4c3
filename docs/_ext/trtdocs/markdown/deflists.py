"""MyST definition lists (``term`` then ``: definition``) as plain Markdown
lists, for the downloads: JupyterLab's Markdown has no definition lists and
shows them as written. Pure: lines in, lines out."""

from __future__ import annotations

_DEFINITION = (": ", ":\t")


def as_list(lines: list[str]) -> list[str]:
    """The lines of one definition list as a bullet list: ``- **term**: definition``,
    the definition's further lines indented under it, a second definition of the
    same term a paragraph of its item."""
    out: list[str] = []
    term: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        if line.startswith(_DEFINITION):
            text = line[2:].strip()
            if term:
                out.append(f"- **{' '.join(term)}**: {text}")
                term = []
            else:  # another definition of the term above
                out += ["", f"  {text}"]
        elif line[:1] in (" ", "\t"):
            out.append(f"  {line.strip()}")
        else:
            term.append(line.strip())
    if term:
        raise ValueError(f"a term with no definition: {' '.join(term)!r}")
    return out

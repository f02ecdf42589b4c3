"""A page's front matter, checked before myst-nb reads it.

myst-nb treats a page whose front matter does not parse as plain Markdown
(so its cells never run), or fails with a YAML error whose line counts from
the front matter's first line. :func:`front_matter_problem` names the file
line instead; the gating reports it for the page, the drift guards as a violation.
"""

from __future__ import annotations

import yaml


def front_matter_problem(text: str) -> tuple[int, str] | None:
    """The file line and the problem of a broken front matter, or None."""
    lines = text.splitlines()
    if not lines or lines[0].rstrip() != "---":
        return None
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        return 1, (
            "the front matter that `---` opens on line 1 is never closed: add a line "
            "`---` after its last key"
        )
    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        if mark is None or mark.line >= end - 1:  # at the end: where the construct opened
            mark = exc.context_mark or mark
        line = mark.line + 2 if mark is not None else 1  # YAML's line 0 is file line 2
        what = "; ".join(filter(None, (exc.context, exc.problem)))
        return line, (
            f"the front matter (lines 1-{end + 1}) is not valid YAML: {what} at line "
            f"{line}: fix the YAML between the `---` lines"
        )
    except yaml.YAMLError as exc:
        return 1, f"the front matter (lines 1-{end + 1}) is not valid YAML: {exc}"
    if data is not None and not isinstance(data, dict):
        return 2, (
            f"the front matter (lines 1-{end + 1}) must be a mapping of `key: value` lines, "
            f"not a {type(data).__name__}"
        )
    return None

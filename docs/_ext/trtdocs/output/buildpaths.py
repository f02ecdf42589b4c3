"""No path of the build machine on the site: the venv, the home folder, the
source and build folders and IPython's temporary cell files are written the
way a reader's machine would show them.

Runs at doctree-resolved, after the banners and the build report are filled
in, on every text of every page; the .ipynb downloads get the same
treatment (:mod:`trtdocs.notebooks.downloads`).
"""

from __future__ import annotations

import re
import sys
import sysconfig
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

# IPython's file for code a cell defines (ipykernel's compiler: /tmp/ipykernel_<pid>/<hash>.py)
IPYKERNEL_FILE = re.compile(r"(?:/[^\s/:'\"]+)*/ipykernel_\d+/\d+\.py")


def replacements(app: Sphinx) -> list[tuple[re.Pattern[str], str]]:
    """(pattern, replacement), most specific first."""
    home = str(Path.home())
    purelib = sysconfig.get_paths()["purelib"]
    pairs = [
        (purelib, "site-packages"),
        (sys.prefix, "<venv>"),
        (str(Path(app.outdir).parent), "_build"),
        (str(app.srcdir), "."),
    ]
    found: list[tuple[re.Pattern[str], str]] = [(IPYKERNEL_FILE, "<cell>")]
    for path, short in pairs:
        forms = {path}
        if path.startswith(home + "/"):
            forms.add("~" + path[len(home) :])
        found += [
            (re.compile(re.escape(form) + r"(?![\w.-])"), short)
            for form in sorted(forms, key=len, reverse=True)
        ]
    found.append((re.compile(re.escape(home) + r"(?![\w.-])"), "~"))
    return found


def scrub(text: str, rules: list[tuple[re.Pattern[str], str]]) -> str:
    for pattern, short in rules:
        text = pattern.sub(short, text)
    return text


def scrub_outputs(nb: Any, rules: list[tuple[re.Pattern[str], str]]) -> None:
    """The same for a notebook's outputs (the page's .ipynb download), in place."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = scrub(output["text"], rules)
            if "traceback" in output:
                output["traceback"] = [scrub(line, rules) for line in output["traceback"]]
            for kind, value in output.get("data", {}).items():
                if kind.startswith("text/") and isinstance(value, str):
                    output["data"][kind] = scrub(value, rules)


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    rules = replacements(app)
    for block in doctree.findall(nodes.literal_block):
        if block.rawsource:
            block.rawsource = scrub(block.rawsource, rules)
    for text in list(doctree.findall(nodes.Text)):
        clean = scrub(str(text), rules)
        if clean != str(text):
            text.parent.replace(text, nodes.Text(clean))


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("doctree-resolved", resolve, priority=900)  # after every other filler
    return {"parallel_read_safe": True, "parallel_write_safe": True}

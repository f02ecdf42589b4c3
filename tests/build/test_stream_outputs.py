"""A notebook that writes its output in pieces, built: one block per stream on
the page, the pieces kept in the download; myst-nb's own stream merging refused."""

from __future__ import annotations

import textwrap
from pathlib import Path

import nbformat

from sites import build, copy_root

# the gating root, with the part that shapes outputs
PARTS = ["myst_nb", "trtdocs.notebooks", "trtdocs.output"]


PIECES = textwrap.dedent("""\
    ---
    jupytext:
      text_representation:
        format_name: myst
    kernelspec:
      name: python3
      display_name: Python 3
    ---

    # Pieces

    ```{code-cell} ipython3
    import sys
    import time

    for piece in ["[", "log.cpp", ":", "85", "] ", "backend not registered", "\\n"]:
        sys.stderr.write(piece)
        sys.stderr.flush()
        time.sleep(0.05)
    for piece in ["progress 10%", "\\r", "progress 100%", "\\n", "table:\\n", "    \\n"]:
        sys.stdout.write(piece)
        sys.stdout.flush()
        time.sleep(0.05)
    ```
    """)


def test_pieces_written_by_a_cell_show_as_one_line(tmp_path: Path) -> None:
    site = copy_root("gating", tmp_path)
    for old in (site / "notebooks").glob("*.md"):
        old.unlink()
    (site / "notebooks" / "pieces.md").write_text(PIECES)
    result = build(site, tmp_path / "_build", extensions=PARTS)
    assert result.returncode == 0, result.log

    page = result.html("notebooks/pieces")
    stderr = page.select("div.output.stderr")
    stdout = page.select("div.output.stream")
    assert len(stderr) == 1 and len(stdout) == 1, page.select_one("div.cell_output")
    assert stderr[0].get_text().strip("\n") == "[log.cpp:85] backend not registered"
    assert stdout[0].get_text().strip("\n") == "progress 100%\ntable:\n    "

    # The download keeps the pieces as the kernel sent them; Jupyter joins them itself.
    nb = nbformat.read(result.outdir / "notebooks" / "pieces.ipynb", as_version=4)
    sent = [
        o.text for o in nb.cells[-1].outputs if o.output_type == "stream" and o.name == "stderr"
    ]
    assert "".join(sent) == "[log.cpp:85] backend not registered\n"


def test_merge_streams_on_is_refused_with_the_file(tmp_path: Path) -> None:
    site = copy_root("gating", tmp_path)
    with (site / "conf.py").open("a") as conf:
        conf.write("\nnb_merge_streams = True\n")
    result = build(site, tmp_path / "_build", extensions=PARTS)
    assert result.returncode != 0
    assert f"{site / 'conf.py'}: nb_merge_streams = True" in result.log

"""Each C++ block the guard does not compile says why on its page (drift/captions.py),
and a block that compiles carries no caption."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from docutils import nodes

from trtdocs.drift import captions, cpp

FIXTURES = Path(__file__).parent / "fixtures"
SITE = FIXTURES / "drift-captions-site"


def _build(out: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(SITE), str(out / "html")],
                          capture_output=True, text=True, check=False, env=env)


def _captions(page: Path) -> list[str]:
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    return [" ".join(p.get_text().split()) for p in soup.select(f"p.{captions.CAPTION_CLASS}")]


def test_listed_blocks_of_the_fixture():
    result = cpp.check_pages(SITE)
    assert result.violations == ()
    assert result.compiled == 1
    got = [(item.path, item.fence_line, item.header, item.release) for item in result.listed]
    assert got == [
        ("index.md", 18, "executorch/extension/module/module.h", "1.4"),
        ("index.md", 27, "", "1.6"),
        ("index.md", 34, "", ""),
        ("notebooks/cells.md", 15, "torch_tensorrt/executorch/TensorRTBackend.h", "1.5"),
    ]
    # the code is kept as the page shows it, a %%writefile cell without its magic line
    assert result.listed[3].code.startswith("#include <torch_tensorrt/")


def test_a_caption_whose_block_is_gone_is_reported():
    doc = nodes.document(None, None)  # type: ignore[arg-type]
    doc += nodes.literal_block("int main() {}\n", "int main() {}\n")
    lost = captions.place(doc, [("int main() {}\n", "", "kept"), ("int other() {}\n", "a.h", "lost")])
    assert lost == [f"{captions.LEAD}: it includes <a.h>, and lost."]
    assert [p.astext() for p in doc.findall(nodes.paragraph)] == [f"{captions.LEAD}: kept."]


@pytest.mark.build
def test_uncompiled_blocks_are_captioned_on_their_pages(tmp_path):
    proc = _build(tmp_path)
    assert proc.returncode == 0, proc.stderr
    index = _captions(tmp_path / "html" / "index.html")
    # three of the four blocks on the index: the one that compiles has no caption
    assert index == [
        "Not compiled when this site was built: it includes <executorch/extension/module/module.h>, "
        "and no ExecuTorch 1.4 package ships the Module API headers: the executorch 1.4.1 wheel "
        "carries only the runtime's.",
        f"Not compiled when this site was built: {cpp.UNPACKAGED_RELEASES['1.6']}.",
        "Not compiled when this site was built: a fragment of a larger file.",
    ]
    page = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    # each caption sits right after its block (the highlighted code's closing tags)
    assert len(re.findall(r'</pre></div>\s*</div>\s*<p class="trtdocs-uncompiled">', page)) == 3
    # the header is inline code
    assert '<p class="trtdocs-uncompiled">Not compiled when this site was built: it includes <code' in page
    (cell,) = _captions(tmp_path / "html" / "notebooks" / "cells.html")
    assert "<torch_tensorrt/executorch/TensorRTBackend.h>" in cell


@pytest.mark.build
def test_a_header_that_appears_removes_its_caption_without_a_page_edit(tmp_path):
    assert _build(tmp_path).returncode == 0
    assert len(_captions(tmp_path / "html" / "index.html")) == 3
    # a folder with the 1.4 Module header (as a source checkout would give): the block
    # compiles, so the unchanged page is written again without its caption
    header = tmp_path / "inc" / "executorch" / "extension" / "module" / "module.h"
    header.parent.mkdir(parents=True)
    header.write_text("#pragma once\n", encoding="utf-8")
    env = dict(os.environ, **{cpp.EXTRA_INCLUDE_ENV: str(tmp_path / "inc")})
    proc = _build(tmp_path, env)
    assert proc.returncode == 0, proc.stderr
    got = _captions(tmp_path / "html" / "index.html")
    assert len(got) == 2 and not any("module.h" in c for c in got)

"""The drift guards in a Sphinx build (fixture roots built in this process): a
violation is a warning with file and line, the report is cached, and each C++
block the guard does not compile says why on its page."""

from __future__ import annotations

import re
from pathlib import Path

from bs4 import BeautifulSoup
from paths import ROOTS
from sites import build

from trtdocs.drift import captions, cpp


def _captions(page: Path) -> list[str]:
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    return [" ".join(p.get_text().split()) for p in soup.select(f"p.{captions.CAPTION_CLASS}")]


def test_build_warns_with_file_and_line(tmp_path: Path) -> None:
    result = build(ROOTS / "test-drift-install", tmp_path)
    assert result.returncode != 0
    assert "test-drift-install/index.md:4: WARNING: [nightly-pre] this command uses a nightly channel" in result.log
    # the report is cached: an unchanged rebuild warns the same without running the guards
    cache = tmp_path / "trtdocs" / "drift.json"
    assert cache.is_file()
    stamp = cache.stat().st_mtime_ns
    again = build(ROOTS / "test-drift-install", tmp_path)
    assert "index.md:4: WARNING: [nightly-pre]" in again.log
    assert cache.stat().st_mtime_ns == stamp  # read, not written again


def test_planted_compile_error_fails_the_build(tmp_path: Path) -> None:
    result = build(ROOTS / "test-drift-cpp", tmp_path)
    assert result.returncode != 0
    assert "test-drift-cpp/index.md:8: WARNING: [cpp-compile] g++ -fsyntax-only: expected" in result.log


def test_uncompiled_blocks_are_captioned_on_their_pages(tmp_path):
    result = build(ROOTS / "test-drift-captions", tmp_path, strict=False, nitpicky=False)
    assert result.returncode == 0, result.log
    index = _captions(result.outdir / "index.html")
    # three of the four blocks on the index: the one that compiles has no caption
    assert index == [
        "Not compiled when this site was built: it includes <executorch/extension/module/module.h>, "
        "and no ExecuTorch 1.4 package ships the Module API headers: the executorch 1.4.1 wheel "
        "carries only the runtime's.",
        f"Not compiled when this site was built: {cpp.UNPACKAGED_RELEASES['1.6']}.",
        "Not compiled when this site was built: a fragment of a larger file.",
    ]
    page = (result.outdir / "index.html").read_text(encoding="utf-8")
    # each caption sits right after its block (the highlighted code's closing tags)
    assert len(re.findall(r'</pre></div>\s*</div>\s*<p class="trtdocs-uncompiled">', page)) == 3
    # the header is inline code
    assert '<p class="trtdocs-uncompiled">Not compiled when this site was built: it includes <code' in page
    (cell,) = _captions(result.outdir / "notebooks" / "cells.html")
    assert "<torch_tensorrt/executorch/TensorRTBackend.h>" in cell


def test_a_header_that_appears_removes_its_caption_without_a_page_edit(tmp_path):
    site = ROOTS / "test-drift-captions"
    first = build(site, tmp_path, strict=False, nitpicky=False)
    assert first.returncode == 0, first.log
    assert len(_captions(first.outdir / "index.html")) == 3
    # a folder with the 1.4 Module header (as a source checkout would give): the block
    # compiles, so the unchanged page is written again without its caption
    header = tmp_path / "inc" / "executorch" / "extension" / "module" / "module.h"
    header.parent.mkdir(parents=True)
    header.write_text("#pragma once\n", encoding="utf-8")
    result = build(site, tmp_path, strict=False, nitpicky=False, env={cpp.EXTRA_INCLUDE_ENV: str(tmp_path / "inc")})
    assert result.returncode == 0, result.log
    got = _captions(result.outdir / "index.html")
    assert len(got) == 2 and not any("module.h" in c for c in got)

"""The drift guards in a Sphinx build (fixture roots built in this process): a
violation is a warning with file and line, the report is cached, and each C++
block the guard does not compile says why on its page."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bs4 import BeautifulSoup

from paths import FIXTURES, ROOTS
from sites import REAL_TABLE, build, copy_root
from trtdocs.drift import captions, cpp, gxx
from trtdocs.notebooks import cxxsdk


def _captions(page: Path, kind: str = captions.CAPTION_CLASS) -> list[str]:
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    return [" ".join(p.get_text().split()) for p in soup.select(f"p.{kind}")]


def test_build_warns_with_file_and_line(tmp_path: Path) -> None:
    result = build(ROOTS / "test-drift-install", tmp_path)
    assert result.returncode != 0
    assert (
        "test-drift-install/index.md:4: WARNING: [nightly-pre] this command uses a nightly channel"
        in result.log
    )
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
    assert (
        "test-drift-cpp/index.md:8: WARNING: [cpp-compile] g++ -fsyntax-only: expected"
        in result.log
    )


def test_planted_missing_include_in_a_block_of_the_delegate_fails_the_build(tmp_path: Path) -> None:
    """The block includes the delegate's header (a stub here) and uses TensorPtr
    without the header that declares it, as notebooks/dynamic-shapes.md did."""
    site = copy_root("drift-cpp", tmp_path)
    page = site / "index.md"
    page.write_text(
        page.read_text(encoding="utf-8")
        + (FIXTURES / "drift-cpp" / "delegate.md")
        .read_text(encoding="utf-8")
        .split("The same block with the include:")[0]
        .split("(planted).", 1)[1],
        encoding="utf-8",
    )
    result = build(site, tmp_path / "_build")
    assert result.returncode != 0
    assert (
        "drift-cpp/index.md:19: WARNING: [cpp-compile] g++ -fsyntax-only: ‘TensorPtr’ has not "
        "been declared"
    ) in result.log, result.log


def test_every_c_block_is_captioned_on_its_page(tmp_path):
    result = build(ROOTS / "test-drift-captions", tmp_path, strict=False, nitpicky=False)
    assert result.returncode == 0, result.log
    index = _captions(result.outdir / "index.html")
    # three of the four blocks on the index are not compiled, and say why
    assert index == [
        "Not compiled when this site was built: it includes "
        "<executorch/extension/module/module.h>, and no ExecuTorch 1.4 package ships the Module "
        "API headers: the executorch 1.4.1 wheel carries only the runtime's.",
        f"Not compiled when this site was built: {cpp.UNPACKAGED_RELEASES['1.6']}.",
        "Not compiled when this site was built: a fragment of a larger file.",
    ]
    # the fourth compiled: its caption names the compiler and the package
    assert _captions(result.outdir / "index.html", captions.COMPILED_CLASS) == [
        f"Compiled when this site was built ({gxx.compiler()}, syntax only, C++17) against "
        f"ExecuTorch {cxxsdk.sdk_version()}'s C++ package."
    ]
    page = (result.outdir / "index.html").read_text(encoding="utf-8")
    # each caption sits right after its block (the highlighted code's closing tags)
    assert len(re.findall(r'</pre></div>\s*</div>\s*<p class="trtdocs-(un)?compiled">', page)) == 4
    # the header is inline code
    assert (
        '<p class="trtdocs-uncompiled">Not compiled when this site was built: it includes <code'
        in page
    )
    # a %%writefile cell with the delegate's header
    # compiles against its stub, which the caption names
    (cell,) = _captions(result.outdir / "notebooks" / "cells.html", captions.COMPILED_CLASS)
    assert cell.endswith(
        ", with a declaration stub for <torch_tensorrt/executorch/TensorRTBackend.h>, which "
        "no package the build installs carries (docs/_ext/trtdocs/drift/stubs)."
    )


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
    result = build(
        site, tmp_path, strict=False, nitpicky=False, trtdocs_cxx_include=str(tmp_path / "inc")
    )
    assert result.returncode == 0, result.log
    got = _captions(result.outdir / "index.html")
    assert len(got) == 2 and not any("module.h" in c for c in got)


def _seed(cache: Path, page: Path, root: Path, **versions: str) -> None:
    """The day's resolutions of ``page``'s commands on PyPI, as the build keeps them:
    each command resolves to ``versions`` (a planted pip report). A command on
    another index is left to the resolver."""
    from trtdocs.drift import resolve, resolved
    from trtdocs.features.validate import load as load_features
    from trtdocs.vocab import PYPI_SIMPLE

    cache.mkdir(parents=True, exist_ok=True)
    for shown in resolved.page_commands(page, root, load_features(REAL_TABLE)):
        if shown.command.index_urls != (PYPI_SIMPLE,):
            continue
        report = {
            "install": [
                {"metadata": {"name": n, "version": v}}
                for n, v in versions.items()
                if n in {r.name for r in shown.command.requirements}
            ]
        }
        found = resolve.classify(
            0, "", report, resolver="pip 26.3", target=resolve.target_words(), day=resolve.today()
        )
        (cache / f"{resolved.cache_key(shown, resolve.today())}.json").write_text(
            json.dumps(found.to_json())
        )


def test_resolutions_are_in_the_banner_and_one_outside_the_pins_fails(tmp_path: Path) -> None:
    site = ROOTS / "test-drift-resolve"
    cache = tmp_path / "resolve"
    # planted: the unpinned executorch resolves to a release outside 2.14's ==1.4.1
    _seed(cache, site / "notebooks" / "page.md", site, torch="2.14.1", executorch="1.5.1")
    result = build(
        site,
        tmp_path / "_build",
        strict=False,
        trtdocs_resolve_cache=str(cache),
        trtdocs_resolve_installs=True,
    )
    warnings = [ln for ln in result.log.splitlines() if "[resolved-" in ln or "[resolves]" in ln]
    assert len(warnings) == 1, result.log
    assert (
        "notebooks/page.md:20: WARNING: [resolved-pins] pip 26.3 resolves executorch 1.5.1"
        in warnings[0]
    )
    assert "outside release 2.14's pin executorch ==1.4.1" in warnings[0]
    soup = BeautifulSoup(
        (result.outdir / "notebooks" / "page.html").read_text(encoding="utf-8"), "html.parser"
    )
    banner = " ".join(soup.select_one(".trtdocs-status").get_text().split())
    assert "Its install commands, given to pip's resolver (pip 26.3 on" in banner
    assert (
        'pip install "torch==2.14.*": resolved to torch 2.14.1, inside release 2.14\'s pins.'
        in banner
    )
    assert (
        "pip install --no-deps executorch: resolved to executorch 1.5.1, outside release 2.14's "
        "pins." in banner
    )
    # the unreachable index is marked, not failed (.invalid never resolves)
    assert "not resolved: index unreachable: https://index.invalid/simple" in banner

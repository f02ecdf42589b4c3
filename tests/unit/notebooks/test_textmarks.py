"""What the mark of a block shown as text says it needs and what the build
checked of it (trtdocs.notebooks.textmarks; on a built page: tests/build/test_gating_build.py)."""

from __future__ import annotations

from docutils import nodes

from trtdocs.notebooks import textmarks
from trtdocs.notebooks.marks import mark_line


def _block(language: str, code: str) -> nodes.literal_block:
    return nodes.literal_block(code, code, language=language)


def test_what_the_build_checked_of_each_kind() -> None:
    captions = {"int main() {}": "Compiled when this site was built (g++) against X."}
    assert textmarks.checked(_block("cpp", "int main() {}\n"), captions, True) == captions["int main() {}"]
    assert textmarks.checked(_block("cpp", "int other() {}\n"), captions, True) == textmarks.NO_RESULT
    assert textmarks.checked(_block("cmake", "project(p)\n"), {}, True).startswith("The build parses it")
    install = _block("bash", 'mkdir x\npip install pyyaml "torch==2.14.*"\n')
    assert textmarks.checked(install, {}, True).startswith("The build checks its install commands")
    assert textmarks.checked(_block("bash", "cmake --build build\n"), {}, True) == "The build checks nothing in it."
    assert textmarks.checked(_block("python", "import torch\n"), {}, True) == "The build checks nothing in it."
    # with the drift guards off, no check is claimed
    assert textmarks.checked(install, {}, False).startswith("The drift guards did not run")


def test_the_mark_is_a_cells_line_with_the_reasons_folded() -> None:
    words = {"cuda": "a CUDA GPU", "tensorrt": "TensorRT"}
    made = textmarks.mark(["cuda", "tensorrt"], words, ["needs a CUDA GPU: no CUDA GPU"], "Checked `x`.")
    assert "trtdocs-not-executed" in made["classes"] and "trtdocs-text-block" in made["classes"]
    summary, *body = made.children
    assert summary.astext() == mark_line(["cuda", "tensorrt"], words) == \
        "Not run in this build: needs a CUDA GPU with TensorRT."
    assert [p.astext() for p in body] == [textmarks.SHOWN, "needs a CUDA GPU: no CUDA GPU", "Checked x."]
    assert isinstance(body[-1].children[1], nodes.literal)  # `x` as code

"""What the mark of a block shown as text says it needs and what the build
checked of it (trtdocs.notebooks.textmarks; on a built page: tests/build/test_gating_build.py)."""

from __future__ import annotations

from docutils import nodes

from trtdocs.notebooks import textmarks
from trtdocs.notebooks.marks import needs_words, text_line


def _block(language: str, code: str) -> nodes.literal_block:
    return nodes.literal_block(code, code, language=language)


def test_what_the_build_checked_of_each_kind() -> None:
    captions = {"int main() {}": "Compiled when this site was built (g++) against X."}
    # the caption itself goes under the block; the mark points at it, and does not repeat it
    assert (
        textmarks.checked(_block("cpp", "int main() {}\n"), captions, True) == textmarks.UNDER_BLOCK
    )
    assert (
        textmarks.checked(_block("cpp", "int other() {}\n"), captions, True) == textmarks.NO_RESULT
    )
    assert textmarks.checked(_block("cmake", "project(p)\n"), {}, True).startswith(
        "The build parses it"
    )
    install = _block("bash", 'mkdir x\npip install pyyaml "torch==2.14.*"\n')
    assert textmarks.checked(install, {}, True).startswith("The build checks its install commands")
    assert (
        textmarks.checked(_block("bash", "cmake --build build\n"), {}, True)
        == "The build checks nothing in it."
    )
    assert textmarks.checked(_block("python", "import torch\n"), {}, True).startswith(
        "The build checks the names and keywords it uses from Torch-TensorRT and ExecuTorch"
    )
    # with the drift guards off, no check is claimed
    assert textmarks.checked(install, {}, False).startswith("The drift guards did not run")


def test_the_mark_says_no_build_runs_it_and_what_running_it_needs() -> None:
    words = {"cuda": "a CUDA GPU", "tensorrt": "TensorRT"}
    made = textmarks.mark(
        ["cuda", "tensorrt"], words, ["needs a CUDA GPU: no CUDA GPU"], "Checked `x`."
    )
    assert "trtdocs-not-executed" in made["classes"] and "trtdocs-text-block" in made["classes"]
    summary, *body = made.children
    # one reading: no build runs it (not "not run in this build", which a GPU build would run)
    assert (
        summary.astext()
        == text_line(["cuda", "tensorrt"], words)
        == "Shown as text; no build runs it. Running it needs a CUDA GPU with TensorRT."
    )
    assert "Not run in this build" not in made.astext()
    assert [p.astext() for p in body] == ["needs a CUDA GPU: no CUDA GPU", "Checked x."]
    assert isinstance(body[-1].children[1], nodes.literal)  # `x` as code


def test_requirements_that_read_the_same_are_said_once() -> None:
    # two features whose words are the same (save-and-export's two 2.15 features)
    words = {
        "feature:a": "Torch-TensorRT 2.15 or newer",
        "feature:b": "Torch-TensorRT 2.15 or newer",
    }
    assert (
        needs_words(["cuda", "feature:a", "feature:b"], words)
        == "a CUDA GPU and Torch-TensorRT 2.15 or newer"
    )

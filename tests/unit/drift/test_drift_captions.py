"""The C++ blocks the guard does not compile, listed with the reason their
captions give (drift/captions.py; the captions on built pages:
tests/build/test_drift_in_build.py)."""

from __future__ import annotations

from docutils import nodes

from trtdocs.drift import captions, cpp
from paths import ROOTS

SITE = ROOTS / "test-drift-captions"


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

"""What the guard found of each C++ block, and the sentence its caption gives
(drift/captions.py; the captions on built pages: tests/build/test_drift_in_build.py)."""

from __future__ import annotations

from docutils import nodes

from paths import ROOTS
from trtdocs.drift import captions, cpp, gxx
from trtdocs.notebooks import cxxsdk

SITE = ROOTS / "test-drift-captions"


def test_listed_and_compiled_blocks_of_the_fixture():
    result = cpp.check_pages(SITE, stubs=True)
    assert result.violations == ()
    got = [(item.path, item.fence_line, item.header, item.release) for item in result.listed]
    assert got == [
        ("index.md", 18, "executorch/extension/module/module.h", "1.4"),
        ("index.md", 27, "", "1.6"),
        ("index.md", 34, "", ""),
    ]
    # the delegate's header, through its stub; the code is kept as the page shows it,
    # a %%writefile cell without its magic line
    assert [(d.path, d.fence_line, d.stubs) for d in result.blocks] == [
        ("index.md", 9, ()),
        ("notebooks/cells.md", 15, ("torch_tensorrt/executorch/TensorRTBackend.h",)),
    ]
    assert result.blocks[1].code.startswith("#include <torch_tensorrt/")


def test_the_compiled_sentence_names_the_compiler_the_packages_and_each_stub():
    done = gxx.Compiled(
        "p.md",
        3,
        "int main() {}\n",
        "g++ 12.2.0",
        (f"ExecuTorch {cxxsdk.sdk_version()}'s C++ package", "CUDA 13.1's headers"),
        stubs=("a/b.h",),
    )
    assert captions.compiled_text(done) == (
        "Compiled when this site was built (g++ 12.2.0, syntax only, C++17) against ExecuTorch "
        f"{cxxsdk.sdk_version()}'s C++ package and CUDA 13.1's headers, with a declaration stub "
        "for `<a/b.h>`, which no package the build installs carries "
        "(`docs/_ext/trtdocs/drift/stubs`)."
    )
    real = gxx.Compiled("p.md", 3, "", "g++ 12.2.0", ("X",), real=("a/b.h", "c.h"))
    assert captions.compiled_text(real).endswith(
        "against X and the real `<a/b.h>` and `<c.h>` from `TRTDOCS_CXX_INCLUDE`."
    )
    bare = gxx.Compiled("p.md", 3, "", "g++ 12.2.0", ())
    assert captions.compiled_text(bare).endswith("against the C++ standard library only.")


def test_a_caption_whose_block_is_gone_is_reported():
    doc = nodes.document(None, None)  # type: ignore[arg-type]  # the check reads only the tree
    doc += nodes.literal_block("int main() {}\n", "int main() {}\n")
    kept = captions.caption_text("", "kept")
    lost = captions.caption_text("a.h", "lost")
    missing = captions.place(
        doc,
        [
            ("int main() {}\n", captions.CAPTION_CLASS, kept),
            ("int other() {}\n", captions.CAPTION_CLASS, lost),
        ],
    )
    assert missing == [f"{captions.LEAD}: it includes `<a.h>`, and lost."]
    assert [p.astext() for p in doc.findall(nodes.paragraph)] == [f"{captions.LEAD}: kept."]

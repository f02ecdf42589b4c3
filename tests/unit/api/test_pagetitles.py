"""An API page names its module once, as its title, and a dotted name in a
heading breaks only after its dots (trtdocs.api.pagetitles), on doctrees made
here."""

from __future__ import annotations

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document

from trtdocs.api.pagetitles import break_titles, merge_repeated_titles, pieces
from trtdocs.site.tables import wbr


def _section(name: str, *children: nodes.Node, module: bool = True) -> nodes.section:
    section = nodes.section(ids=[nodes.make_id(name) + "-s"])
    section += nodes.title("", "", nodes.literal(text=name))
    if module:
        section += nodes.target(ids=[f"module-{name}"])
    section.extend(children)
    return section


def _page(inner: str) -> nodes.document:
    doc = new_document("page", get_default_settings(Parser))
    page = _section("torch_tensorrt.executorch", nodes.paragraph(text="Intro."), module=False)
    page += _section(inner, nodes.paragraph(text="Members."))
    page += _section("torch_tensorrt.executorch.serialization", nodes.paragraph(text="Sub."))
    doc += page
    return doc


def test_the_section_that_repeats_the_title_joins_the_page() -> None:
    doc = _page("torch_tensorrt.executorch")
    merge_repeated_titles(doc)
    titles = [t.astext() for t in doc.findall(nodes.title)]
    assert titles == ["torch_tensorrt.executorch", "torch_tensorrt.executorch.serialization"]
    page = doc[0]
    # its content follows the page's intro, its ids stay (links to it land)
    assert [p.astext() for p in page.children if isinstance(p, nodes.paragraph)] == [
        "Intro.",
        "Members.",
    ]
    assert "torch-tensorrt-executorch-s" in page["ids"]
    # planted: a section of another module under the title stays a section
    other = _page("torch_tensorrt.dynamo")
    merge_repeated_titles(other)
    assert len(list(other.findall(nodes.title))) == 3


def test_a_dotted_name_breaks_only_after_its_dots() -> None:
    assert pieces("torch_tensorrt.executorch.serialization") == [
        "torch_tensorrt.",
        "executorch.",
        "serialization",
    ]
    assert pieces("torch_tensorrt") == ["torch_tensorrt"]
    assert pieces("torch_tensorrt_executorch_runtime") == [
        "torch_",
        "tensorrt_",
        "executorch_",
        "runtime",
    ]
    doc = _page("torch_tensorrt.executorch")
    merge_repeated_titles(doc)
    break_titles(doc)
    first = next(doc.findall(nodes.literal))
    assert first.astext() == "torch_tensorrt.executorch"  # the text is unchanged
    assert [type(c) for c in first.children] == [nodes.Text, wbr, nodes.Text]

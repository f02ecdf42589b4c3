"""A :param: body of several blocks (trtdocs.api.fields) on doctrees shaped as
Sphinx's doc fields make them: the blocks leave the item's paragraph, the
name, type and first paragraph stay one, and the HTML docutils writes from it
passes the HTML checker (tests/html_check.py), where the tree as Sphinx made it fails."""

from __future__ import annotations

from docutils import nodes
from docutils.core import publish_from_doctree
from docutils.utils import new_document

from html_check import problems
from trtdocs.api import fields


def _item(*description: nodes.Node) -> nodes.list_item:
    """One parameter as Sphinx's TypedField writes it: name, type, dash, then the
    description in a translatable inline, all in one paragraph."""
    para = nodes.paragraph(
        "",
        "",
        nodes.strong(text="ir"),
        nodes.Text(" ("),
        nodes.literal(text="str"),
        nodes.Text(")"),
        nodes.Text(" -- "),
    )
    para += nodes.inline("", "", *description, translatable=True)
    return nodes.list_item("", para)


def _erratum() -> nodes.admonition:
    return nodes.admonition(
        "",
        nodes.title(text="Erratum of the installed docstring"),
        nodes.paragraph(text="It also takes dynamo."),
        classes=["caution"],
    )


def _html(*items: nodes.list_item) -> str:
    doc = new_document("planted")
    doc += nodes.bullet_list("", *items)
    return publish_from_doctree(doc, writer="html5").decode("utf-8")


def test_blocks_follow_the_paragraph_that_names_the_parameter() -> None:
    item = _item(
        nodes.paragraph(text="The requested strategy."),
        nodes.literal_block(text="as\n  written"),
        _erratum(),
    )
    before = problems(
        _html(item.deepcopy()), "as-sphinx-made-it.html"
    )  # the paragraph holds the blocks
    assert any(p.element == "<p>" and "unexpected-end-tag" in p.message for p in before), before
    fields.unnest([item])
    assert [c.tagname for c in item.children] == ["paragraph", "literal_block", "admonition"]
    assert item[0].astext() == "ir (str) -- The requested strategy."
    assert problems(_html(item), "unnested.html") == []


def test_a_single_paragraph_description_is_left_as_it_is() -> None:
    item = _item(nodes.Text("The requested strategy."))
    before = item.pformat()
    fields.unnest([item])
    assert item.pformat() == before


def test_text_after_a_block_is_a_paragraph_of_its_own() -> None:
    para = nodes.paragraph(
        "",
        "",
        nodes.Text("Shown as written:"),
        nodes.literal_block(text="x"),
        nodes.emphasis(text="then"),
        nodes.Text(" more."),
        ids=["p1"],
        classes=["c"],
    )
    holder = nodes.block_quote("", para)
    fields.unnest([holder])
    assert [(c.tagname, c.astext()) for c in holder.children] == [
        ("paragraph", "Shown as written:"),
        ("literal_block", "x"),
        ("paragraph", "then more."),
    ]
    assert holder[0]["ids"] == ["p1"] and holder[2]["ids"] == []  # an id stays on one element
    assert holder[0]["classes"] == holder[2]["classes"] == ["c"]


def test_an_inline_with_a_class_is_kept() -> None:
    """Only a plain wrapper is opened: an inline that carries a class is the
    author's markup, kept whole (the HTML checker then reports the page)."""
    para = nodes.paragraph(
        "", "", nodes.inline("", "", nodes.literal_block(text="x"), classes=["keep"])
    )
    holder = nodes.block_quote("", para)
    fields.unnest([holder])
    assert holder[0] is para and para[0]["classes"] == ["keep"]

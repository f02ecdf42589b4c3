"""furo's table wrapper and the id it copies (trtdocs.site.tables.single_ids)."""

from __future__ import annotations

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document
from furo import WrapTableAndMathInAContainerTransform

from trtdocs.site.tables import single_ids


def _wrapped(ids: list[str]) -> nodes.document:
    """A document with one table holding ``ids``, wrapped by furo's own transform."""
    document = new_document("<test>", get_default_settings(Parser))
    table = nodes.table(ids=list(ids))
    table += nodes.tgroup(cols=1)
    document += table
    WrapTableAndMathInAContainerTransform(document).run()
    return document


def _ids(document: nodes.document) -> list[list[str]]:
    return [list(node["ids"]) for node in document.findall(nodes.Element) if node["ids"]]


def test_furo_puts_a_captioned_table_s_id_on_two_elements_and_single_ids_keeps_one() -> None:
    document = _wrapped(["id1"])
    assert _ids(document) == [["id1"], ["id1"]]  # furo's wrapper copies the id
    single_ids(document)
    assert _ids(document) == [["id1"]]
    assert next(iter(document.findall(nodes.table)))["ids"] == ["id1"]  # where links land


def test_a_container_that_is_no_wrapper_keeps_its_ids() -> None:
    document = _wrapped([])
    box = nodes.container(ids=["box"])
    box += nodes.table(ids=["box"])
    document += box
    single_ids(document)
    assert ["box"] in _ids(document) and _ids(document).count(["box"]) == 2

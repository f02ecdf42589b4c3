"""The HTML checker (tests/html_check.py) on planted pages: each fault is
caught and named, and a valid page passes. The built pages:
tests/site/test_valid_html.py."""

from __future__ import annotations

import pytest

from html_check import problems


def page(body: str) -> str:
    """A complete, valid document around ``body``."""
    head = '<head><meta charset="utf-8"><title>t</title></head>'
    return f'<!DOCTYPE html>\n<html lang="en">\n{head}\n<body>\n{body}\n</body>\n</html>\n'


def found(body: str) -> list[str]:
    return [str(p) for p in problems(page(body), "planted.html")]


def test_a_valid_page_passes() -> None:
    body = (
        '<p id="a">Text with <code>code</code>.</p>\n<div class="table-wrapper"><table '
        'id="b"><tr><td>1</td>'
        "</tr></table></div>\n<dl><dt>term</dt><dd><p>one</p><div>two</div></dd></dl>\n"
        "<dl><div><dt>x</dt><dd>y</dd></div></dl>"
    )
    assert found(body) == []


def test_a_duplicate_id_names_both_elements() -> None:
    # what furo made of the release table: its wrapper took the table's id
    body = (
        '<div class="table-wrapper docutils container" id="releases">\n'
        '<table class="trtdocs-release-table" id="releases"><tr><td>2.14</td></tr></table>\n</div>'
    )
    assert found(body) == [
        'planted.html: <div id="releases" class="table-wrapper docutils container"> and '
        '<table id="releases" class="trtdocs-release-table">: id \'releases\' is on 2 elements'
    ]


def test_a_div_inside_a_p_is_a_parse_error_at_its_line() -> None:
    # what Sphinx made of a :param: body with an erratum:
    # the <p> ends at the <div>, the </p> closes nothing
    body = (
        "<ul>\n<li><p><strong>ir</strong> – <p>The requested strategy.</p>\n"
        '<div class="caution admonition"><p>Erratum.</p></div>\n</p></li>\n</ul>'
    )
    assert found(body) == [
        "planted.html:8: <p>: parse error 'unexpected-end-tag': Unexpected end tag (p). Ignored."
    ]


@pytest.mark.parametrize(
    "block", ["<pre>code</pre>", "<ul><li>x</li></ul>", "<table><tr><td>x</td></tr></table>"]
)
def test_any_block_inside_a_p_is_caught(block: str) -> None:
    assert any("unexpected-end-tag" in f for f in found(f"<p>Shown as written: {block}</p>"))


def test_a_dl_without_dt_is_caught() -> None:
    # what Sphinx writes for a signature over python_maximum_signature_line_length
    body = (
        '<dl class="py function"><dt class="sig" id="f">f(\n<dl>\n<dd><em '
        'class="sig-param">a</em>,</dd>\n<dd><em '
        'class="sig-param">b</em></dd>\n</dl>\n)</dt><dd><p>Doc.</p></dd></dl>'
    )
    assert found(body) == ["planted.html: <dl>: starts with 2 <dd> that no <dt> comes before"]


def test_a_dt_without_dd_is_caught() -> None:
    assert found("<dl><dt>a</dt><dd>b</dd><dt>c</dt></dl>") == [
        "planted.html: <dl>: ends with <dt>, which no <dd> follows"
    ]


def test_a_stray_end_tag_and_a_missing_doctype_are_parse_errors() -> None:
    assert found("<div>x</div></div>") == [
        "planted.html:5: <div>: parse error 'end-tag-too-early': End tag (div) seen too early. "
        "Expected other end tag."
    ]
    bare = [str(p) for p in problems("<p>no doctype</p>", "bare.html")]
    assert bare and bare[0].startswith("bare.html:1: ") and "doctype" in bare[0]


def test_the_page_is_read_in_its_declared_encoding() -> None:
    assert problems(page("<p>Torch-TensorRT – “quoted”</p>").encode("utf-8"), "utf8.html") == []

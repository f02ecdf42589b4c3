"""The Markdown link checker the twins' tests use (tests/mdlinks.py), on planted files."""

from __future__ import annotations

from pathlib import Path

import mdlinks


def test_broken_files_and_fragments_are_found(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "one.html.md").write_text(
        '# One\n\n<a id="entry"></a>\n\n## The cache’s value\n\n'
        "[ok](../two.html.md#two) [slug](#the-caches-value) [id](#entry) [out](https://x.org/)\n"
        "[gone](../three.html.md) [miss](../two.html.md#nowhere) [self](#nothing)\n",
        encoding="utf-8",
    )
    (tmp_path / "two.html.md").write_text("# Two\n", encoding="utf-8")
    report = mdlinks.check(tmp_path, [tmp_path / "a" / "one.html.md"])
    assert [link.href for link in report.working] == [
        "../two.html.md#two",
        "#the-caches-value",
        "#entry",
    ]
    assert [(link.href, why) for link, why in report.broken] == [
        ("../three.html.md", "no file three.html.md"),
        ("../two.html.md#nowhere", "no anchor #nowhere in two.html.md"),
        ("#nothing", "no anchor #nothing in one.html.md"),
    ]
    assert report.outside == 1 and report.fragments == (3, 5)


def test_a_base_url_is_the_sites_root(tmp_path: Path) -> None:
    (tmp_path / "llms.txt").write_text(
        "- [Two](https://h.example/g/two.html.md)\n- [Gone](https://h.example/g/x.md)\n",
        encoding="utf-8",
    )
    (tmp_path / "two.html.md").write_text("# Two\n", encoding="utf-8")
    report = mdlinks.check(tmp_path, [tmp_path / "llms.txt"], base="https://h.example/g/")
    assert len(report.working) == 1 and [why for _, why in report.broken] == ["no file x.md"]

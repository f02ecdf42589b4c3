"""The diagrams' palette (trtdocs.site.palette) in both themes, measured: the
page's text reads on every category's fill (WCAG AA, 4.5:1), no two categories
look alike (CIE76 colour difference), and every category stands out from the
page. Theme colours are read from the installed furo's stylesheet. Every fill a
guide diagram uses is a palette colour, and a diagram's code holds one or two
graphs (trtdocs.site.dotgraphs). Each measure is proven on a planted colour."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import furo
import pytest

from paths import ROOT
from trtdocs.pages.blocks import iter_blocks, page_paths
from trtdocs.site import dotgraphs, palette

TEXT_CONTRAST = 4.5  # WCAG 2.1 AA, normal text
APART = 15.0  # CIE76 difference between two categories: clearly two colours
FROM_PAGE = 15.0  # a category's shape against the page's background


def _srgb(colour: str) -> list[float]:
    hexa = colour.lstrip("#")
    if len(hexa) == 3:
        hexa = "".join(c * 2 for c in hexa)
    return [int(hexa[i : i + 2], 16) / 255 for i in (0, 2, 4)]


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(colour: str) -> float:
    r, g, b = map(_linear, _srgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def lab(colour: str) -> tuple[float, float, float]:
    r, g, b = map(_linear, _srgb(colour))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def difference(a: str, b: str) -> float:
    return sum((p - q) ** 2 for p, q in zip(lab(a), lab(b), strict=True)) ** 0.5


def furo_colours() -> dict[str, dict[str, str]]:
    """furo's text and background colours, light (its first value) and dark (its last)."""
    css = (Path(furo.__file__).parent / "theme/furo/static/styles/furo.css").read_text("utf-8")
    out: dict[str, dict[str, str]] = {"light": {}, "dark": {}}
    for name in ("foreground-primary", "background-primary"):
        values = re.findall(rf"--color-{name}:(#[0-9a-fA-F]{{3,6}})", css)
        assert len(set(values)) == 2, (name, values)
        out["light"][name], out["dark"][name] = values[0], values[-1]
    return out


THEMES = furo_colours()
CATEGORIES = {k: v for k, v in palette.CATEGORIES.items() if k != "neutral"}


def problems(colours: dict[str, str], theme: dict[str, str]) -> list[str]:
    """What keeps a theme's category colours (name: colour) apart or legible."""
    out = [
        f"{name}: text contrast {contrast(c, theme['foreground-primary']):.2f}"
        for name, c in colours.items()
        if contrast(c, theme["foreground-primary"]) < TEXT_CONTRAST
    ]
    out += [
        f"{name}: {difference(c, theme['background-primary']):.1f} from the page"
        for name, c in colours.items()
        if name != "neutral" and difference(c, theme["background-primary"]) < FROM_PAGE
    ]
    out += [
        f"{a} and {b}: {difference(colours[a], colours[b]):.1f} apart"
        for a, b in itertools.combinations(colours, 2)
        if difference(colours[a], colours[b]) < APART
    ]
    return out


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_categories_are_legible_and_apart_in_each_theme(theme: str) -> None:
    colours = {k: getattr(v, theme) for k, v in palette.CATEGORIES.items()}
    assert not problems(colours, THEMES[theme])


def test_the_measures_catch_planted_colours() -> None:
    # the old dark theme: every fill mixed 22% into the background, so categories go grey
    mixed = {
        k: "#{:02x}{:02x}{:02x}".format(
            *(
                round(255 * (0.22 * a + 0.78 * b))
                for a, b in zip(_srgb(v.light), _srgb("#131416"), strict=True)
            )
        )
        for k, v in CATEGORIES.items()
    }
    found = problems(mixed, THEMES["dark"])
    assert "program and segment: 4.9 apart" in found, found
    assert problems({"data": "#1a1b1e"}, THEMES["dark"]) == ["data: 3.6 from the page"]
    assert problems({"tensorrt": "#1a5531"}, {**THEMES["dark"], "foreground-primary": "#555555"})
    assert round(contrast("#000", "#fff"), 1) == 21.0 and difference("#fff", "#fff") == 0


def test_each_light_colour_has_its_dark_one() -> None:
    for colour in palette.CATEGORIES.values():
        assert palette.dark(colour.light) == colour.dark
        assert palette.dark(colour.light.upper()) == colour.dark
    assert palette.dark("#123456") is None
    assert palette.fill("tensorrt") == palette.CATEGORIES["tensorrt"].light


def test_an_inline_palette_fill_carries_its_dark_colour() -> None:
    from trtdocs.site import diagrams

    svg = '<svg><path fill="#c4ebcf" d="M0,0"/><path fill="#dcefe1" d="M0,0"/></svg>'
    out = diagrams.inline_svg(svg, "p", "x")
    assert 'style="--trtdocs-fill: #c4ebcf; --trtdocs-fill-dark: #1a5531" fill="#c4ebcf"' in out
    assert 'style="--trtdocs-fill: #dcefe1" fill="#dcefe1"' in out  # not a palette colour


FILL = re.compile(r"fillcolor=\"?(#[0-9a-fA-F]{6})")
DIAGRAMS = [
    (path, block)
    for path in page_paths(ROOT)
    for block in iter_blocks(path)
    if block.kind == "graphviz" and path.name != "README.md"
]


def test_guide_diagrams_fill_with_palette_colours_only() -> None:
    guide = [(p, b) for p, b in DIAGRAMS if not p.is_relative_to(ROOT / "docs")]
    assert len(guide) >= 3, [p.name for p, _ in guide]
    outside = [
        f"{path.relative_to(ROOT)}:{block.fence_line}: {colour} is not a palette colour"
        for path, block in guide
        for colour in FILL.findall(block.text)
        if palette.dark(colour) is None
    ]
    assert not outside, "\n".join(outside)


def test_each_diagram_holds_one_or_two_graphs() -> None:
    counts = {f"{p.name}:{b.fence_line}": len(dotgraphs.graphs(b.text)) for p, b in DIAGRAMS}
    assert set(counts.values()) <= {1, 2} and 2 in counts.values(), counts


@pytest.mark.parametrize(
    "code, graphs",
    [
        ("digraph a { x -> y; }", ["digraph a { x -> y; }"]),
        (
            'digraph a { x [label="}{"]; }\n// one } more\ndigraph b { /* { */ y; }',
            ['digraph a { x [label="}{"]; }', "// one } more\ndigraph b { /* { */ y; }"],
        ),
        ('digraph a { x [label="a \\" }"]; }', ['digraph a { x [label="a \\" }"]; }']),
    ],
)
def test_graphs_split_at_top_level_braces(code: str, graphs: list[str]) -> None:
    assert dotgraphs.graphs(code) == graphs
    assert dotgraphs.wide(code) == graphs[0]


@pytest.mark.parametrize(
    "code, error",
    [
        ("digraph a { x;", "not closed"),
        ("digraph a { x; }}", "closing brace"),
        ("digraph a { x; } trailing", "text after the last graph"),
        ("graph a {} graph b {} graph c {}", "3 graphs"),
        ("", "0 graphs"),
    ],
)
def test_bad_code_is_named(code: str, error: str) -> None:
    with pytest.raises(dotgraphs.DotError, match=error):
        dotgraphs.graphs(code)
    assert dotgraphs.wide(code) == code  # Graphviz reports it where it draws

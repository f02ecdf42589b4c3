"""The diagrams' category colours, one light and one dark colour each.

A diagram's Graphviz code names a category by its light colour
(``fillcolor="#c4ebcf"``: TensorRT); :mod:`.diagrams` gives each such fill its
dark colour as well, and ``trtdocs.css`` picks one by the theme. A fill that is
not in the palette (a maintainer page's own diagram) is mixed into the dark
background instead. The colours are chosen so that, in each theme, the page's
text reads on every fill (WCAG AA) and no two categories look alike;
``tests/unit/test_palette.py`` measures both. Pure: no Sphinx.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final


@dataclasses.dataclass(frozen=True, slots=True)
class Colour:
    light: str  # "#rrggbb" on furo's light background
    dark: str  # "#rrggbb" on furo's dark background
    means: str  # what a shape in this colour is


CATEGORIES: Final[Mapping[str, Colour]] = MappingProxyType(
    {
        "neutral": Colour("#eef0f4", "#272b33", "a step, or an object of no category"),
        "program": Colour("#c6dafa", "#1c3b6b", "the ExecuTorch program (.pte, flatbuffer)"),
        "tensorrt": Colour("#c4ebcf", "#1a5531", "TensorRT: the delegate, an engine"),
        "cuda": Colour("#fbe0a8", "#5c430e", "ExecuTorch's CUDA backend"),
        "segment": Colour("#e8cff5", "#4a2f72", "a segment after the program (a payload)"),
        "data": Colour("#f9cccc", "#6b2530", "data outside the program: a .ptd file"),
    }
)
_DARK: Final = {c.light: c.dark for c in CATEGORIES.values()}


def fill(category: str) -> str:
    """The colour a diagram's Graphviz code gives a shape of ``category``."""
    return CATEGORIES[category].light


def dark(light: str) -> str | None:
    """The dark-theme colour of a palette fill, or None for a colour not in it."""
    return _DARK.get(light.lower())

"""The .md download's front matter (trtdocs.notebooks.downloads.myst_text): a
reader's Jupyter gets the page's myst-nb execution settings; the site's own
gating keys stay out."""

from __future__ import annotations

import yaml
from myst_nb.core.read import read_myst_markdown_notebook

from trtdocs.notebooks.downloads import myst_text

PAGE = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3
  language: python
  name: python3
mystnb:
  execution_timeout: 3600
requires: [cuda]
inputs: [programs/*.cpp]
---

# A page

```{code-cell} ipython3
print(1)
```
"""


def _front_matter(text: str) -> dict:
    assert text.startswith("---\n"), text[:80]
    return yaml.safe_load(text.split("---\n", 2)[1])


def test_the_md_download_keeps_the_execution_settings() -> None:
    front = _front_matter(myst_text(read_myst_markdown_notebook(PAGE)))
    assert front["mystnb"] == {
        "execution_timeout": 3600
    }  # a long build step gets its hour in Jupyter too
    assert front["kernelspec"]["name"] == "python3"
    assert "requires" not in front and "inputs" not in front  # the site's gating keys
    assert "notebook_metadata_filter" not in str(
        front
    )  # the filter is the build's, not the reader's

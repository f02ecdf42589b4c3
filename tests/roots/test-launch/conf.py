"""The launch row's fixture: the real site's configuration (../../../conf.py:
theme, templates, extensions), two notebook pages and a page without code.
The tests set ``trtdocs_published_notebooks``; the drift guards stay off (they
check the real pages)."""

import runpy
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
globals().update(
    {k: v for k, v in runpy.run_path(str(REPO / "conf.py")).items() if not k.startswith("__")}
)

# Paths in the real configuration are relative to the repository.
templates_path = [str(REPO / p) for p in templates_path]  # noqa: F821 -- from the real conf.py
html_static_path = [str(REPO / p) for p in html_static_path]  # noqa: F821 -- from the real conf.py
html_favicon = str(REPO / html_favicon)  # noqa: F821 -- from the real conf.py
trtdocs_features_file = str(REPO / "docs" / "features.toml")
trtdocs_maintainer_docs = []
trtdocs_drift = False
# the pages gate on no feature the real table's run sources name
suppress_warnings = ["trtdocs.features-unreferenced"]

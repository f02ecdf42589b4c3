"""Sphinx configuration of the Torch-TensorRT on ExecuTorch deployment guide."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
EXT = ROOT / "docs" / "_ext"

# The project's extension, and the notebooks' kernel (which imports it to probe
# the machine) both find it on the path.
sys.path.insert(0, str(EXT))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(EXT), os.environ.get("PYTHONPATH")]))

# -- Project information -------------------------------------------------------

project = "Torch-TensorRT on ExecuTorch"
author = "The deployment guide's authors"
copyright = "2026, " + author

# -- General configuration -----------------------------------------------------

extensions = [
    # Sphinx's own
    "sphinx.ext.graphviz",  # diagrams drawn at build time by Graphviz's dot (make graphviz)
    # External stuff
    "myst_nb",
    "sphinx_copybutton",
    "sphinx_design",
    # This guide's own extension (docs/_ext/trtdocs)
    "trtdocs",
    "trtdocs.drift",  # drift guards: install commands, API use, C++ blocks (docs/_ext/trtdocs/drift)
]

# Sphinx reads only these; venvs, tests and the README stay out.
include_patterns = ["index.md", "docs/**", "notebooks/**"]
exclude_patterns = ["notebooks/_recorded/**", "docs/_ext/**", "**/README.md"]
root_doc = "index"
nitpicky = True

# -- MyST and notebook execution -----------------------------------------------

myst_enable_extensions = ["colon_fence", "deflist", "substitution"]
myst_heading_anchors = 3

nb_execution_mode = "cache"  # keyed by the environment too (docs/_ext/trtdocs/cachekey.py)
nb_execution_raise_on_error = True  # a failing cell fails the build and names the notebook
nb_execution_allow_errors = False  # expected errors only through the raises-exception tag
nb_execution_timeout = 600  # seconds per cell; the ExecuTorch lowering cells take a few
nb_execution_show_tb = True
nb_merge_streams = False  # trtdocs.streams joins stream pieces as Jupyter does
nb_render_markdown_format = "myst"  # tables printed with IPython.display.Markdown
nb_ipywidgets_js = {}  # nothing is fetched from a CDN at view time

# -- Diagrams --------------------------------------------------------------------

graphviz_output_format = "svg"  # vector, searchable text, nothing fetched at view time

# -- HTML output ---------------------------------------------------------------

html_theme = "furo"
html_title = project
html_favicon = "docs/_static/favicon.svg"  # browsers ask for one; a local file, no 404
html_static_path = ["docs/_static"]
templates_path = ["docs/_templates"]
html_additional_pages = {"404": "404.html"}  # served by static hosts for a missing page
# furo's sidebar, with the release switcher (docs/_templates/sidebar/releases.html) under the search
html_sidebars = {"**": ["sidebar/brand.html", "sidebar/search.html", "sidebar/releases.html",
                        "sidebar/scroll-start.html", "sidebar/navigation.html", "sidebar/scroll-end.html"]}
html_css_files = ["trtdocs.css"]
html_copy_source = False
html_show_sourcelink = False
copybutton_exclude = ".linenos, .gp, .go"

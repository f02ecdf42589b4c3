"""Sphinx configuration of the Torch-TensorRT on ExecuTorch deployment guide."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

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
    # External stuff
    "myst_nb",
    "notfound.extension",  # 404.html with absolute links: works at any depth
    "sphinx.ext.extlinks",
    "sphinx_copybutton",
    "sphinx_design",
    "sphinx.ext.graphviz",  # the diagrams, drawn with Debian's dot (make graphviz)
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
nb_execution_show_tb = False  # trtdocs.execerrors reports the failing cell and its traceback
nb_merge_streams = False  # trtdocs.streams joins stream pieces as Jupyter does
nb_render_markdown_format = "myst"  # tables printed with IPython.display.Markdown
nb_ipywidgets_js = {}  # nothing is fetched from a CDN at view time

# -- HTML output ---------------------------------------------------------------

html_theme = "furo"
html_title = project
html_favicon = "docs/_static/favicon.svg"  # browsers ask for one; a local file, no 404
html_static_path = ["docs/_static"]
templates_path = ["docs/_templates"]
# furo's sidebar, with the release switcher (docs/_templates/sidebar/releases.html) under the search
html_sidebars = {"**": ["sidebar/brand.html", "sidebar/search.html", "sidebar/releases.html",
                        "sidebar/scroll-start.html", "sidebar/navigation.html", "sidebar/scroll-end.html"]}
html_css_files = ["trtdocs.css"]
html_copy_source = False
html_show_sourcelink = False
copybutton_exclude = ".linenos, .gp, .go"

# -- Hosted site ---------------------------------------------------------------

# TRTDOCS_BASEURL: the address the site is served from ("https://host/path/").
# With it, every page has a canonical link and the site a sitemap.xml.
html_baseurl = os.environ.get("TRTDOCS_BASEURL", "")
if html_baseurl:
    html_baseurl = html_baseurl.rstrip("/") + "/"
    extensions.append("sphinx_sitemap")
    sitemap_url_scheme = "{link}"  # one language, one release per site
# The page static hosts serve for a missing address (docs/_templates/404.html),
# with links absolute from the site's root path.
notfound_template = "404.html"
notfound_context = {"title": "Page not found"}
notfound_urls_prefix = urlsplit(html_baseurl).path or "/"

# -- Links out (sphinx.ext.extlinks) ---------------------------------------------

extlinks = {
    "pypi": ("https://pypi.org/project/%s/", "%s"),
    "pr": ("https://github.com/pytorch/TensorRT/pull/%s", "Torch-TensorRT PR #%s"),
    "issue": ("https://github.com/pytorch/TensorRT/issues/%s", "Torch-TensorRT issue #%s"),
    "etpr": ("https://github.com/pytorch/executorch/pull/%s", "ExecuTorch PR #%s"),
    "etissue": ("https://github.com/pytorch/executorch/issues/%s", "ExecuTorch issue #%s"),
    "trtsrc": ("https://github.com/pytorch/TensorRT/blob/main/%s", "%s"),
    "etsrc": ("https://github.com/pytorch/executorch/blob/main/%s", "%s"),
    "etdocs": ("https://docs.pytorch.org/executorch/stable/%s", "%s"),
    "trtdocs": ("https://docs.pytorch.org/TensorRT/%s", "%s"),
}

# Every part of _build but the site is a cache (tests/build/test_lost_build_parts.py).
extensions = ["myst_nb", "trtdocs.notebooks", "trtdocs.failures"]
templates_path = ["_templates"]
nb_execution_mode = "cache"
nb_execution_raise_on_error = True
nb_execution_timeout = 120
html_theme = "basic"
trtdocs_disable = "cuda"  # notebooks/partly runs some of its cells on any machine
suppress_warnings = ["trtdocs.features-unreferenced"]  # the real table's check is for the real site

# The API reference and a notebook (not executed) whose code names API objects
# (tests/build/test_code_links.py).
project = "code links fixture"
extensions = ["myst_nb", "trtdocs.features", "trtdocs.api"]
exclude_patterns = ["_build"]
suppress_warnings = ["trtdocs.features-unreferenced"]  # the real table's check is for the real site
nb_execution_mode = "off"

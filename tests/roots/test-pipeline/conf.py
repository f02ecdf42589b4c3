# The CI pipeline's build steps (tests/build/test_pipeline.py): shards record, a build gathers.
extensions = ["myst_nb", "trtdocs.notebooks"]
exclude_patterns = ["notebooks/_recorded/**"]
nb_execution_mode = "cache"
nb_execution_raise_on_error = True
nb_execution_timeout = 120
html_theme = "basic"
suppress_warnings = ["trtdocs.features-unreferenced"]  # the real table's check is for the real site

# The CI pipeline's build steps: shards record, a build gathers (tests/build/test_pipeline.py in
# process; tests/make/test_pipeline_rehearsal.py through the workflows' own commands).
extensions = ["myst_nb", "trtdocs.notebooks"]
# _build: the rehearsal (tests/make/test_pipeline_rehearsal.py) builds into the checkout, as CI does
exclude_patterns = ["notebooks/_recorded/**", "_build/**"]
nb_execution_mode = "cache"
nb_execution_raise_on_error = True
nb_execution_timeout = 120
html_theme = "basic"
suppress_warnings = ["trtdocs.features-unreferenced"]  # the real table's check is for the real site

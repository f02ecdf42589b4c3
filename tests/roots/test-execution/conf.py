# Notebooks run before the read, in one folder, two at a time (tests/build/test_execution.py).
extensions = ["myst_nb", "trtdocs.notebooks"]
nb_execution_mode = "cache"
nb_execution_raise_on_error = True
nb_execution_timeout = 120
html_theme = "basic"
trtdocs_jobs = 2
suppress_warnings = ["trtdocs.features-unreferenced"]  # the real table's check is for the real site

# Notebooks gated, executed, recorded (tests/build): the notebooks part and failures only.
extensions = ["myst_nb", "trtdocs.notebooks", "trtdocs.failures"]
exclude_patterns = ["notebooks/_recorded/**"]
nb_execution_mode = "cache"
nb_execution_raise_on_error = True
nb_execution_timeout = 120
html_theme = "basic"
suppress_warnings = ["trtdocs.features-unreferenced"]  # the real table's check is for the real site

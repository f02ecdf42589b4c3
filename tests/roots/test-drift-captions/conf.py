# C++ blocks the guard cannot all compile: each such block gets a caption.
extensions = ["myst_nb", "trtdocs.features", "trtdocs.drift"]
suppress_warnings = ["trtdocs.features-unreferenced"]  # the real table's check is for the real site
nb_execution_mode = "off"
html_theme = "basic"

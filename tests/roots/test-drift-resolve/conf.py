# A notebook page with install commands: each command's resolution in the banner, and a
# resolution outside the pins as a warning. The tests seed the day's resolutions
# (trtdocs_resolve_cache), so no resolver runs.
extensions = ["myst_nb", "trtdocs.notebooks", "trtdocs.features", "trtdocs.drift"]
nb_execution_mode = "cache"
nb_execution_raise_on_error = True
html_theme = "basic"
suppress_warnings = ["trtdocs.features-unreferenced"]  # the real table's check is for the real site

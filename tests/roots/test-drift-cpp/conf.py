# A one-page site with a C++ block that does not compile.
extensions = ["myst_parser", "trtdocs.features", "trtdocs.drift"]
suppress_warnings = ["trtdocs.features-unreferenced"]  # the real table's check is for the real site

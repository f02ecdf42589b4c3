# A one-page site whose install command breaks a drift rule.
extensions = ["myst_parser", "trtdocs.features", "trtdocs.drift"]
suppress_warnings = ["trtdocs.features-unreferenced"]  # the real table's check is for the real site

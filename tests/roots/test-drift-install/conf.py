# A one-page site whose install command breaks a drift rule (its nightly index is
# not resolved here: test-drift-resolve checks resolution).
extensions = ["myst_parser", "trtdocs.features", "trtdocs.drift"]
suppress_warnings = ["trtdocs.features-unreferenced"]  # the real table's check is for the real site
trtdocs_resolve_installs = False

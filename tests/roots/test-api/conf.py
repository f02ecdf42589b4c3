# The API reference and prose that names API objects (tests/build/test_api_reference.py).
project = "api fixture"
extensions = ["myst_parser", "trtdocs.features", "trtdocs.api"]
exclude_patterns = ["_build"]
suppress_warnings = ["trtdocs.features-unreferenced"]  # the real table's check is for the real site
python_maximum_signature_line_length = 88

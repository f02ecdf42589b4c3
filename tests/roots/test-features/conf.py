# The features table, its notes and the matrix
# (tests/build/test_feature_notes.py), on this root's own table.
project = "features fixture"
extensions = ["myst_parser", "trtdocs.features"]
trtdocs_features_file = "features.toml"
exclude_patterns = ["_build"]

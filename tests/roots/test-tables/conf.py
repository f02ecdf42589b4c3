# {data-table} and {page-needs} (tests/build/test_data_tables.py).
extensions = [
    "myst_nb",
    "trtdocs.notebooks",
    "trtdocs.datatables",
    "trtdocs.site",
]  # site: code in tables breaks only between names
nb_execution_mode = "cache"
nb_execution_raise_on_error = True
nb_execution_timeout = 120
html_theme = "basic"
trtdocs_data_dir = "data"
suppress_warnings = ["trtdocs.features-unreferenced"]  # the real table's check is for the real site

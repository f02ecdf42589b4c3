"""What the API reference's tests read, said once: the data files, the installed
API's model and the features table (module-scoped fixtures; a test module
imports the ones it uses: each is named by its fixture name, so a test's parameter
does not redefine the imported function)."""

from __future__ import annotations

import pytest

from paths import ROOT
from trtdocs.api import model as apimodel
from trtdocs.features.model import FeaturesTable
from trtdocs.features.validate import load as load_features

DATA = ROOT / "docs" / "data" / "api.toml"
ERRATA = ROOT / "docs" / "data" / "api-errata.toml"


@pytest.fixture(scope="module", name="model")
def model_fixture() -> apimodel.ApiModel:
    return apimodel.load()


@pytest.fixture(scope="module", name="table")
def table_fixture() -> FeaturesTable:
    return load_features(ROOT / "docs" / "features.toml")

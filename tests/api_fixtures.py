"""What the API reference's tests read, said once: the data files, the installed
API's model and the features table (module-scoped fixtures; a test module
imports the ones it uses)."""

from __future__ import annotations

import pytest
from paths import ROOT

from trtdocs.api import model as apimodel
from trtdocs.features.model import FeaturesTable
from trtdocs.features.validate import load as load_features

DATA = ROOT / "docs" / "data" / "api.toml"
ERRATA = ROOT / "docs" / "data" / "api-errata.toml"


@pytest.fixture(scope="module")
def model() -> apimodel.ApiModel:
    return apimodel.load()


@pytest.fixture(scope="module")
def table() -> FeaturesTable:
    return load_features(ROOT / "docs" / "features.toml")

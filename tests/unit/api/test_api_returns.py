"""What a call returns, as the code links read it: a class a private module defines
by the public name that re-exports it (trtdocs.api.index.ApiIndex.public_path), and
api.toml's [[returns]], checked against the installed source (trtdocs.api.returns)."""

from __future__ import annotations

import tomllib

import pytest

from api_fixtures import DATA, model_fixture  # noqa: F401 -- a fixture, used by name
from trtdocs.api.index import ApiIndex
from trtdocs.api.model import public_objects
from trtdocs.api.returns import ReturnsError, by_function, load_returns

PROGRAM = "torch_tensorrt_executorch_runtime.runtime.Program"


def test_a_private_module_s_class_goes_by_its_public_name(model):
    index = ApiIndex.of(model)
    private = "executorch.exir.program._program.EdgeProgramManager"
    assert index.public_path(private) == "executorch.exir.EdgeProgramManager"
    assert index.public_path(f"{private}.to_executorch") == (
        "executorch.exir.EdgeProgramManager.to_executorch"
    )
    assert index.public_path("executorch.exir.EdgeProgramManager") == (
        "executorch.exir.EdgeProgramManager"
    )
    # nothing public re-exports a private function of a private module: the path stays
    assert index.public_path("torch_tensorrt.executorch._export._to_torch_inputs") == (
        "torch_tensorrt.executorch._export._to_torch_inputs"
    )
    edge = index.lookup("executorch.exir.to_edge_transform_and_lower")
    assert index.return_path(edge) == "executorch.exir.EdgeProgramManager"


def test_load_returns_a_program_for_the_executorch_format(model):
    objects = public_objects(model)
    raw = tomllib.loads(DATA.read_text(encoding="utf-8"))["returns"]
    entries = load_returns(DATA, raw, ApiIndex.of(model), objects)
    index = ApiIndex.of(model, by_function(entries, objects))
    load = index.lookup("torch_tensorrt.load")
    assert index.return_path(load, {"format": "executorch"}) == PROGRAM
    assert index.return_path(load, {"format": "other"}) is None  # annotated Any
    assert index.return_path(load) is None


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"returns": "executorch.runtime.Program"}, "returns " + "torch_tensorrt_executorch"),
        ({"when": {"format": "pt2"}}, "returns no class the model knows when format='pt2'"),
        ({"when": {"fmt": "executorch"}}, "has no parameter 'fmt'"),
        ({"object": "torch_tensorrt.Input"}, "names no function the reference documents"),
    ],
)
def test_an_entry_the_source_does_not_bear_out_is_refused(model, change, problem):
    """Planted entries: each fails, naming the file, the entry and what the source says."""
    raw = tomllib.loads(DATA.read_text(encoding="utf-8"))["returns"]
    planted = [{**raw[0], **change}]
    with pytest.raises(ReturnsError) as caught:
        load_returns(DATA, planted, ApiIndex.of(model), public_objects(model))
    message = str(caught.value)
    assert message.startswith(f"{DATA}: returns[0] (")
    assert problem in message

"""The declaration stubs of the C++ guard (docs/_ext/trtdocs/drift/stubs): each
declaration names its real source, SOURCES.toml lists every source, and every
stub is read by a block of the guide (no stub the pages do not need)."""

from __future__ import annotations

import shutil
from pathlib import Path

from paths import ROOT
from trtdocs.drift import cpp, headers


def _copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(headers.STUBS, tmp_path / "stubs"))


def test_every_declaration_names_its_real_source():
    assert headers.check_stubs() == []


def test_sources_name_repositories_at_commits():
    for repo in headers.sources():
        assert set(repo) == {"repo", "commit", "ref", "path", "into", "stubs"}, repo
        assert len(repo["commit"]) == 40 and repo["repo"].count("/") == 1


def test_a_declaration_without_its_source_is_caught(tmp_path: Path):
    stubs = _copy(tmp_path)
    header = stubs / "executorch/extension/cuda/caller_stream.h"
    text = header.read_text(encoding="utf-8")
    header.write_text(
        text.replace(
            "}  // namespace executorch::extension::cuda",
            "void getCallerStream(int device);\n}  // namespace executorch::extension::cuda",
        ),
        encoding="utf-8",
    )
    (problem,) = headers.check_stubs(stubs)
    assert (
        "'void getCallerStream(int device);' has no '// real: <repo>@<commit>' comment" in problem
    )


def test_a_source_at_another_commit_or_path_is_caught(tmp_path: Path):
    stubs = _copy(tmp_path)
    header = stubs / "torch_tensorrt/executorch/TensorRTBackend.h"
    text = header.read_text(encoding="utf-8")
    header.write_text(
        text.replace("@ba4a95bd", "@0000000d").replace(
            "cpp/include/torch_tensorrt/executorch/TensorRTBackend.h", "cpp/include/Other.h"
        ),
        encoding="utf-8",
    )
    (problem,) = headers.check_stubs(stubs)
    assert "pytorch/TensorRT@0000000d" in problem and "is not in SOURCES.toml" in problem
    header.write_text(
        text.replace(
            "cpp/include/torch_tensorrt/executorch/TensorRTBackend.h", "cpp/include/Other.h"
        ),
        encoding="utf-8",
    )
    (problem,) = headers.check_stubs(stubs)
    assert (
        "its source cpp/include/Other.h is not "
        "cpp/include/torch_tensorrt/executorch/TensorRTBackend.h" in problem
    )


def test_a_stub_sources_names_must_exist(tmp_path: Path):
    stubs = _copy(tmp_path)
    (stubs / "executorch/extension/cuda/caller_stream.h").unlink()
    assert headers.check_stubs(stubs) == [
        f"SOURCES.toml names executorch/extension/cuda/caller_stream.h, which is not in {stubs}"
    ]


def test_every_stub_is_read_by_a_block_of_the_guide():
    result = cpp.check_pages(ROOT, stubs=True)
    read = {name for done in result.blocks for name in done.stubs}
    assert read == set(headers.stub_headers())

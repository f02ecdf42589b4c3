"""The installed API's model: loaded on first use, kept on disk between
processes, keyed by what it is made from (trtdocs.api.cache, trtdocs.api.model)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from paths import EXT
from trtdocs.api import cache, model


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TRTDOCS_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / cache.FOLDER


def test_a_stored_object_is_read_back_not_made_again(cache_dir: Path) -> None:
    made = []

    def make() -> dict[str, list[int]]:
        made.append(1)
        return {"x": [1, 2]}

    assert cache.cached("k1", make) == {"x": [1, 2]}
    assert cache.cached("k1", make) == {"x": [1, 2]}
    assert made == [1] and [p.name for p in cache_dir.iterdir()] == ["k1.pickle"]


def test_an_unreadable_file_is_made_again(cache_dir: Path) -> None:
    cache_dir.mkdir(parents=True)
    (cache_dir / "k2.pickle").write_bytes(b"not a pickle")
    assert cache.cached("k2", lambda: "fresh") == "fresh"
    assert cache.cached("k2", lambda: "again") == "fresh"


def test_old_files_are_pruned(cache_dir: Path) -> None:
    for i in range(cache.KEEP + 3):
        cache.cached(f"n{i}", lambda i=i: i)
        os.utime(cache_dir / f"n{i}.pickle", (i, i))  # oldest first
    cache.cached("last", lambda: 0)
    kept = sorted(p.stem for p in cache_dir.iterdir())
    assert len(kept) == cache.KEEP and "last" in kept and "n0" not in kept


def test_the_key_follows_the_sources(tmp_path: Path) -> None:
    pkg = tmp_path / "site" / "torch_tensorrt"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("x = 1\n")
    before = cache.key("torch_tensorrt", [str(tmp_path / "site")])
    assert cache.key("torch_tensorrt", [str(tmp_path / "site")]) == before  # stable
    (pkg / "__init__.py").write_text("x = 22\n")
    edited = cache.key("torch_tensorrt", [str(tmp_path / "site")])
    assert edited != before
    (pkg / "more.py").write_text("")
    assert cache.key("torch_tensorrt", [str(tmp_path / "site")]) != edited
    # another folder first on the path is another model
    assert cache.key("torch_tensorrt", [str(tmp_path), str(tmp_path / "site")]) != edited


def test_a_second_process_reads_the_model_without_griffe(tmp_path: Path) -> None:
    """With the cache warm, another process loads the same model and never calls griffe's loader."""
    warm = model.load()  # this process: from the cache or from griffe, stored either way
    # the other process reads a copy: other builds on this machine share the user cache and prune it
    shutil.copytree(cache.folder(), tmp_path / cache.FOLDER)
    code = textwrap.dedent("""
        import griffe
        def refuse(*args, **kwargs):
            raise AssertionError("griffe loaded the packages again")
        griffe.load = refuse
        from trtdocs.api import model
        m = model.load()
        print(sorted(m.modules), m.versions["torch_tensorrt"], len(model.public_objects(m)))
    """)
    env = dict(os.environ, PYTHONPATH=str(EXT), TRTDOCS_CACHE_DIR=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [
        *str(sorted(warm.modules)).split(),
        warm.versions["torch_tensorrt"],
        str(len(model.public_objects(warm))),
    ]


def test_the_loaded_model_is_out_of_the_collectors_reach() -> None:
    """The model lives as long as the process: no collection walks its objects
    (nor the one at exit, which took about 1.5 s a model before)."""
    import gc

    api = model.load()
    tracked = {id(obj) for obj in gc.get_objects()}  # every generation but the permanent one
    assert gc.get_freeze_count() > 0
    assert not any(id(module) in tracked for module in api.modules.values())

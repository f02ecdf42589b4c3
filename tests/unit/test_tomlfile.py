"""One reader of the project's TOML files (trtdocs/tomlfile.py): a file that cannot be
read or parsed fails naming the file, and the line for bad TOML; a reader's own error
class carries the same message."""

from __future__ import annotations

from pathlib import Path

import pytest

from trtdocs import tomlfile
from trtdocs.features.fields import FeaturesError


def test_a_good_file_is_its_tables(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text('[[entry]]\nname = "x"\n', encoding="utf-8")
    assert tomlfile.read(tmp_path / "t.toml") == {"entry": [{"name": "x"}]}


def test_bad_toml_names_the_file_and_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[[entry]]\nname = "x"\nsecond = "unclosed\n', encoding="utf-8")
    with pytest.raises(tomlfile.TomlFileError) as caught:
        tomlfile.read(path)
    assert str(caught.value).startswith(f"{path}: not valid TOML: ")
    assert caught.value.line == 3


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "missing.toml"
    with pytest.raises(tomlfile.TomlFileError, match=f"^{path}: cannot read: ") as caught:
        tomlfile.read(path)
    assert caught.value.line == 0


def test_a_readers_own_error_class_carries_the_message(tmp_path: Path) -> None:
    path = tmp_path / "features.toml"
    path.write_text("documented = \n", encoding="utf-8")
    with pytest.raises(FeaturesError, match=f"^{path}: not valid TOML: "):
        tomlfile.read(path, FeaturesError)

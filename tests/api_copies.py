"""Copies of the installed wheels' Python sources, for tests that plant a change
in what the API model reads."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from trtdocs.api import model as apimodel


def planted_copy(tmp_path: Path, model: apimodel.ApiModel, version: str | None = None) -> Path:
    """The two wheels' Python sources and metadata, copied to ``tmp_path``; the
    rest of site-packages stays on the search path behind it."""
    site = Path(model.search_paths[0])
    for name, dist in (
        ("torch_tensorrt", "torch_tensorrt"),
        ("torch_tensorrt_executorch_runtime", "torch_tensorrt_executorch_runtime"),
    ):
        shutil.copytree(
            site / name,
            tmp_path / name,
            ignore=lambda d, names: [
                n for n in names if not n.endswith(".py") and not (Path(d) / n).is_dir()
            ],
        )
        info = next(site.glob(f"{dist}-*.dist-info"))
        shutil.copytree(info, tmp_path / info.name)
    if version is not None:
        meta = next(tmp_path.glob("torch_tensorrt-*.dist-info")) / "METADATA"
        meta.write_text(re.sub(r"(?m)^Version: .*$", f"Version: {version}", meta.read_text()))
    return tmp_path

"""Where trtdocs keeps what outlives a build folder (the API model, the machine
probe): ``$TRTDOCS_CACHE_DIR``, else ``$XDG_CACHE_HOME/trtdocs`` (or
``~/.cache/trtdocs``). Standard library only: the probe's script imports it."""

from __future__ import annotations

import os
from pathlib import Path


def cache_home() -> Path:
    base = os.environ.get("TRTDOCS_CACHE_DIR")
    if base:
        return Path(base)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "trtdocs"

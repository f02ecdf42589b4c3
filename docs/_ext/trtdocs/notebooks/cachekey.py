"""The execution cache key: code, the project code it imports, and the machine.

jupyter-cache matches a notebook on its code-cell sources, the code cells'
metadata and the kernelspec. We put two digests into the first code cell's
metadata (``trtdocs.cache_key``), so a notebook also re-executes when:

* ``environment``: the probed machine changes (package versions, every
  installed distribution, Python, CPU model, GPU, driver, CUDA, whether
  torch_tensorrt imports), or
* ``project_code``: a project module that a code cell imports changes,
  followed through that module's own imports.

Gating tags (``skip-execution``) are cell metadata too, so a cell that starts or
stops being skipped also changes the key.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from .dataflow import python_source
from .environment import Environment


def environment_digest(env: Environment) -> str:
    payload = json.dumps(env.cache_fields(), sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def _imported_modules(source: str) -> set[str]:
    """Absolute module names imported by ``source`` (and their parent packages)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    expanded: set[str] = set()
    for name in names:
        parts = name.split(".")
        expanded.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return expanded


def _module_file(name: str, roots: Sequence[Path]) -> Path | None:
    rel = Path(*name.split("."))
    for root in roots:
        for candidate in (root / rel.with_suffix(".py"), root / rel / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def project_files(sources: Iterable[str], roots: Sequence[Path]) -> list[Path]:
    """Project files imported by ``sources``, followed transitively.

    Relative imports inside a project package are followed by taking every
    module of that package, which errs on the side of re-executing.
    """
    found: dict[Path, None] = {}
    pending = [m for s in sources for m in _imported_modules(python_source(s))]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        path = _module_file(name, roots)
        if path is None or path in found:
            continue
        found[path] = None
        text = path.read_text(encoding="utf-8")
        pending.extend(_imported_modules(text))
        if any(isinstance(n, ast.ImportFrom) and n.level for n in ast.walk(ast.parse(text))):
            package_dir = path.parent
            pending.extend(
                f"{name.rsplit('.', 1)[0] if path.name != '__init__.py' else name}.{p.stem}"
                for p in package_dir.glob("*.py")
                if p.stem != "__init__"
            )
    return sorted(found)


def files_digest(paths: Iterable[str | Path]) -> str:
    """Digest of the files' names and contents (names, not paths: clones differ)."""
    digest = hashlib.sha256()
    for path in map(Path, paths):
        digest.update(f"{path.parent.name}/{path.name}\0".encode())
        digest.update(path.read_bytes() if path.is_file() else b"<missing>")
    return digest.hexdigest()[:16]

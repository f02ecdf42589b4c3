#!/usr/bin/env python3
"""Check records by hand, as the build checks them before it shows one.

    python tools/verify_records.py                      # every record in notebooks/_recorded
    python tools/verify_records.py notebooks/_recorded/notebooks__kv-cache.ipynb

For each record: it reads as a record, its page exists, it was made from the
page's current code cells, and its outputs and provenance are those its digest
was taken of (docs/_ext/trtdocs/notebooks/integrity.py). Each record that
verifies is printed with the SHA-256 of its file, the subject digest that
`gh attestation verify` looks up. Exit status 1 when any record fails. Needs
the docs venv.
"""

from __future__ import annotations

import argparse
import hashlib
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

from myst_nb.core.read import read_myst_markdown_notebook  # noqa: E402 -- below the sys.path line

from trtdocs.notebooks import recorded  # noqa: E402 -- below the sys.path line


def verify(path: Path, root: Path) -> str | None:
    """Why ``path`` fails, or None when it verifies."""
    try:
        record = recorded.load(path)
    except recorded.RecordError as exc:
        return exc.reason
    if record is None:
        return "no such file"
    doc = recorded.docname_of(path)
    page = root / f"{doc}.md"
    if not page.is_file():
        return f"record of {doc}, which is not a page ({page.relative_to(root)} does not exist)"
    nb = read_myst_markdown_notebook(page.read_text(encoding="utf-8"), add_source_map=True)
    current = recorded.source_hash(nb)
    if record.source_hash != current:
        return f"stale: made from source {record.source_hash}, {doc}.md is now {current}"
    refusal = record.refusal()
    if refusal is None:
        return None
    lines = nb.metadata.get("source_map") or [None] * len(nb.cells)
    code = [lines[i] for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    line = code[refusal.cell - 1] if refusal.cell and refusal.cell <= len(code) else None
    return refusal.words(line)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "records", nargs="*", type=Path, help="record files (default: every record)"
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="the site's source root")
    args = parser.parse_args(argv)
    paths = args.records or sorted((args.root / "notebooks" / "_recorded").glob("*.ipynb"))
    failed = 0
    for path in paths:
        why = verify(path, args.root)
        if why is None:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            print(f"{path}: verified (file sha256:{digest})")
            continue
        failed += 1
        doc = shlex.quote(recorded.docname_of(path))
        print(
            f"{path}: FAILED: {why}; re-record it with `make record NOTEBOOKS={doc}`",
            file=sys.stderr,
        )
    if not paths:
        print("no records to verify", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

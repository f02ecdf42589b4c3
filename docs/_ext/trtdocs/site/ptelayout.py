"""What a ``.pte`` file holds, read from the file, as a Graphviz diagram.

ExecuTorch's Python package reads its own format with functions it keeps
private (``executorch.exir._serialize._program``); they are used here, in the
extension, so that no notebook a reader downloads calls them. :func:`read`
gives a :class:`Layout` (methods with their inputs, outputs and planned memory,
the operators ExecuTorch runs, the delegates by backend id with their payload
sizes, the segments after the program, named data, ``.ptd`` files beside it);
:func:`dot` draws it. Pure: no Sphinx.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path
from typing import Any, Final

from . import palette

# Colours of the guide's hand-drawn diagrams (each with its dark colour: .palette).
_NEUTRAL: Final = palette.fill("neutral")
_PROGRAM: Final = palette.fill("program")
_DELEGATE: Final = palette.fill("tensorrt")
_SEGMENT: Final = palette.fill("segment")
_DATA: Final = palette.fill("data")


@dataclasses.dataclass(frozen=True, slots=True)
class Method:
    name: str
    inputs: int
    outputs: int
    planned: tuple[
        int, ...
    ]  # bytes of each planned memory buffer (buffer 0 is reserved and left out)
    operators: tuple[tuple[str, int], ...]  # (operator, calls), most called first
    delegates: tuple[tuple[str, int], ...]  # (backend id, payload bytes), in call order


@dataclasses.dataclass(frozen=True, slots=True)
class Layout:
    name: str  # the file's name
    size: int  # bytes
    program: int  # bytes of the program (flatbuffer) at the file's start
    segments: int  # bytes of the segments after it (payloads, constants)
    methods: tuple[Method, ...]
    named_data: int  # named data entries stored in the file
    beside: tuple[str, ...]  # .ptd files next to it


class PteError(ValueError):
    """Not a program ExecuTorch can read; the message names the file."""


def read(path: Path) -> Layout:
    """The layout of the ``.pte`` at ``path``."""
    from executorch.exir._serialize._program import _get_extended_header, deserialize_pte_binary

    data = path.read_bytes()
    try:
        pte = deserialize_pte_binary(data)
    except Exception as exc:  # noqa: BLE001 -- the flatbuffer reader raises several kinds
        raise PteError(f"{path}: not an ExecuTorch program ({type(exc).__name__}: {exc})") from None
    header = _get_extended_header(data)
    program = pte.program
    methods = []
    for plan in program.execution_plan:
        calls = Counter(
            plan.operators[c.instr_args.op_index].name
            for chain in plan.chains
            for c in chain.instructions
            if type(c.instr_args).__name__ == "KernelCall"
        )
        delegates = tuple((d.id, _payload_size(program, d)) for d in plan.delegates)
        methods.append(
            Method(
                plan.name,
                len(plan.inputs),
                len(plan.outputs),
                tuple(plan.non_const_buffer_sizes[1:]),
                tuple(calls.most_common()),
                delegates,
            )
        )
    named = pte.named_data
    return Layout(
        name=path.name,
        size=len(data),
        program=header.program_size if header else len(data),
        segments=(header.segment_data_size or len(data) - header.segment_base_offset)
        if header and header.segment_base_offset
        else 0,
        methods=tuple(methods),
        named_data=len(named.pte_data) if named is not None else 0,
        beside=tuple(sorted(p.name for p in path.parent.glob("*.ptd"))),
    )


def _payload_size(program: Any, delegate: Any) -> int:
    """A delegate's payload size (``program``, ``delegate``: executorch's schema objects)."""
    processed = delegate.processed
    inline = program.backend_delegate_data
    if processed.index < len(inline):
        return len(inline[processed.index].data)
    return 0


def _bytes(n: int) -> str:
    return f"{n:,} bytes"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _node(key: str, label: str, **attrs: str) -> str:
    extra = "".join(f"{k}={_quote(v)}, " for k, v in attrs.items())
    return f"    {key} [{extra}label={_quote(label)}];"


def dot(layout: Layout) -> str:
    """The layout as a Graphviz digraph in the guide's style."""
    title = f"{layout.name} ({_bytes(layout.size)})"
    lines = [
        "digraph pte {",
        "  rankdir=TB; ordering=out;",
        '  graph [fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.3];',
        f'  node [shape=box, style="rounded,filled", fillcolor="{_NEUTRAL}", color="#5a6270", '
        'fontname="Helvetica", fontsize=10];',
        '  edge [color="#5a6270", fontname="Helvetica", fontsize=9];',
        f'  subgraph cluster_file {{ label={_quote(title)}; style=rounded; color="#9aa3b0";',
        _node("program", "program (flatbuffer)\n" + _bytes(layout.program), fillcolor=_PROGRAM),
    ]
    if layout.segments:
        lines.append(
            _node(
                "segments",
                "segments after the program\n" + _bytes(layout.segments),
                shape="cylinder",
                fillcolor=_SEGMENT,
            )
        )
    if layout.named_data:
        lines.append(
            _node(
                "named",
                f"named data\n{_count(layout.named_data, 'entry').replace('entrys', 'entries')}",
                shape="cylinder",
                fillcolor=_DATA,
            )
        )
    edges = ["  program -> named [style=dashed, arrowhead=none];"] if layout.named_data else []
    for i, m in enumerate(layout.methods):
        planned = ", ".join(_bytes(b) for b in m.planned) or "none"
        lines.append(
            _node(
                f"m{i}",
                f"method {m.name}\n{_count(m.inputs, 'input')}, {_count(m.outputs, 'output')}\n"
                f"planned memory: {planned}",
            )
        )
        edges.append(f"  program -> m{i};")
        if m.operators:
            ops = "\n".join(f"{name} \u00d7{n}" for name, n in m.operators[:6])
            more = f"\n+{len(m.operators) - 6} more" if len(m.operators) > 6 else ""
            lines.append(_node(f"ops{i}", f"operators ExecuTorch runs\n{ops}{more}"))
            edges.append(f"  m{i} -> ops{i};")
        for j, (backend, size) in enumerate(m.delegates):
            lines.append(
                _node(
                    f"d{i}_{j}",
                    f"delegate {j}\n{backend}\npayload {_bytes(size)}",
                    fillcolor=_DELEGATE,
                )
            )
            edges.append(f"  m{i} -> d{i}_{j};")
            if layout.segments:
                edges.append(f"  d{i}_{j} -> segments [style=dashed, arrowhead=none];")
    lines.append("  }")
    for n, name in enumerate(layout.beside):
        lines.append(
            _node(
                f"ptd{n}",
                f"{name}\nbeside the .pte",
                shape="folder",
                fillcolor=_DATA,
                style="rounded,filled,dashed",
            )
        )
        edges.append(f"  program -> ptd{n} [style=dashed];")
    return "\n".join([*lines, *edges, "}"]) + "\n"


def alt(layout: Layout) -> str:
    """The diagram in words (its accessible name)."""
    parts = [f"{layout.name}: a program of {_bytes(layout.program)}"]
    for m in layout.methods:
        delegates = ", ".join(b for b, _ in m.delegates) or "no delegate"
        parts.append(
            f"method {m.name} with {_count(m.inputs, 'input')} and {_count(m.outputs, 'output')}, "
            f"{_count(len(m.operators), 'kind')} of operator, delegates: {delegates}"
        )
    if layout.beside:
        parts.append(f"beside it {', '.join(layout.beside)}")
    return "; ".join(parts) + "."

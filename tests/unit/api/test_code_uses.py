"""What a code cell names, resolved as the drift guard reads the cells
(trtdocs.api.uses), and the links laid on highlighted code (trtdocs.api.codelinks);
built into pages: tests/build/test_code_links.py."""

from __future__ import annotations

from trtdocs.api import codelinks
from trtdocs.api.index import ApiIndex
from trtdocs.api.uses import cell_uses


def test_uses_come_from_the_drift_resolution():
    index = ApiIndex.load()
    cells = [
        "import torch_tensorrt_executorch_runtime as trt_runtime\n",
        "prog = trt_runtime.runtime.load('x')\nprog.run(trt_runtime)\n",
    ]
    got = [
        [
            (u.line, cells[i].split("\n")[u.line - 1][u.start : u.end], u.path, u.instance)
            for u in uses
        ]
        for i, uses in enumerate(cell_uses(cells, index))
    ]
    runtime = "torch_tensorrt_executorch_runtime"
    assert got[0] == [(1, runtime, runtime, False)]
    assert (1, "trt_runtime.runtime.load", f"{runtime}.runtime.load", False) in got[1]
    assert (2, "prog.run", f"{runtime}.runtime.Program.run", False) in got[1]
    assert (2, "prog", f"{runtime}.runtime.Program", True) in got[1]
    assert (2, "trt_runtime", runtime, False) in got[1]


def test_misaligned_spans_leave_the_markup_alone():
    pre = (
        '<span></span><span class="n">torch_tensorrt</span><span class="o">.</span><span '
        'class="n">save</span>\n'
    )
    text = "torch_tensorrt.save\n"
    whole = codelinks.link_tokens(
        pre, text, [(0, 19, "torch_tensorrt.save", "api.html#torch_tensorrt.save")]
    )
    assert whole.startswith('<span></span><a class="reference internal') and whole.endswith(
        "</span></a>\n"
    )
    # a span that cuts a token, or highlighted text that is not the block's: unchanged
    assert codelinks.link_tokens(pre, text, [(0, 5, "x", "#x")]) == pre
    assert codelinks.link_tokens(pre, "other\n", [(0, 19, "x", "#x")]) == pre

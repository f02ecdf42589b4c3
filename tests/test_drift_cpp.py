"""C++/CMake guard: compile against the ExecuTorch wheel's headers, list what cannot be."""

from __future__ import annotations

from pathlib import Path

from trtdocs.drift import cpp

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"

# Blocks of the real pages that cannot compile here: (page, header). Each header must
# match cpp.EXPECTED_MISSING, which says why it is absent. Update with the pages.
REAL_EXPECTED_MISSING: set[tuple[str, str]] = {
    ("notebooks/dynamic-shapes.md", "executorch/extension/module/module.h"),
    ("notebooks/dynamic-shapes.md", "torch_tensorrt/executorch/TensorRTBackend.h"),
    ("notebooks/gpu-resident-io.md", "executorch/extension/module/module.h"),
    ("notebooks/performance.md", "cuda_runtime.h"),
    ("notebooks/performance.md", "executorch/extension/cuda/caller_stream.h"),
    ("notebooks/performance.md", "executorch/extension/module/module.h"),
    ("notebooks/run-cpp.md", "executorch/extension/module/module.h"),
    ("notebooks/runtime-options.md", "executorch/extension/module/module.h"),
}


def test_wheel_headers_are_found():
    inc = cpp.executorch_include()
    assert inc is not None and (inc / "executorch/runtime/executor/program.h").is_file()
    # the Module API is not in the 1.4.1 wheel: that is why it is on the allow-list
    assert not (inc / "executorch/extension/module/module.h").exists()


def test_good_blocks_compile_or_are_listed_with_reasons():
    result = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "good.md"])
    assert result.violations == ()
    assert result.compiled == 1 and result.parsed_cmake == 1
    assert [(item.line, item.header) for item in result.listed] == [
        (39, "executorch/extension/module/module.h"),
        (60, "cuda_runtime.h"),
        (61, "executorch/extension/module/module.h"),
        (73, ""),
    ]
    assert all(item.reason for item in result.listed)


def test_bad_blocks_fail_with_file_and_line():
    result = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "bad.md"])
    got = [(v.line, v.rule) for v in result.violations]
    assert got == [(8, "cpp-compile"), (16, "cpp-compile"), (22, "header-missing"), (30, "cmake-parse")]
    text = "\n".join(map(str, result.violations))
    assert "drift-cpp/bad.md:8: [cpp-compile] g++ -fsyntax-only: expected" in text
    assert "'MethodNotThere'" in text.replace("‘", "'").replace("’", "'")
    assert "text_llm_runner.h> is not on this machine and not in EXPECTED_MISSING" in text


def test_real_pages():
    result = cpp.check_pages(ROOT)
    assert result.violations == (), "\n".join(map(str, result.violations))
    assert {(item.path, item.header) for item in result.listed if item.header} == REAL_EXPECTED_MISSING

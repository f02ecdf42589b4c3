"""C++/CMake guard: compile against the ExecuTorch wheel's headers, list what cannot be."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from trtdocs.notebooks import cxxsdk
from trtdocs.drift import cpp, installs
from trtdocs.drift.commands import parse_command
from trtdocs.features.validate import load as load_features
from paths import ROOT, FIXTURES

TABLE = load_features(ROOT / "docs" / "features.toml")

# Blocks of the real pages that cannot compile here: (page, header). Each header must
# match cpp.EXPECTED_MISSING (or cpp.WHEEL_MISSING, for a block marked for executorch
# 1.4), which says why it is absent. Update with the pages. gpu-resident-io's blocks all
# compile: the 1.4 and 1.5 forms of make_tensor_ptr against the 1.4.1 wheel and the
# 1.5.1 C++ package, the Module part against the package (issue 19 item 2).
REAL_EXPECTED_MISSING: set[tuple[str, str]] = {
    ("notebooks/dynamic-shapes.md", "torch_tensorrt/executorch/TensorRTBackend.h"),
    ("notebooks/performance.md", "executorch/extension/cuda/caller_stream.h"),
    ("notebooks/run-cpp.md", "executorch/extension/cuda/caller_stream.h"),  # the split-program runner
}


def test_cxx_package_headers_are_found():
    inc = cpp.executorch_include()
    assert inc is not None and inc == cxxsdk.include_dir()
    # the C++ package has the Module API; the 1.4.1 wheel does not
    assert (inc / "executorch/extension/module/module.h").is_file()
    wheel = cpp.wheel_include()
    assert wheel is not None and not (wheel / "executorch/extension/module/module.h").exists()
    assert set(cpp.api_include_dirs()) == {"1.4", "1.5"}


def test_cuda_headers_are_found():
    inc = cpp.cuda_include()
    assert inc is not None and (inc / "crt" / "host_config.h").is_file()


def test_good_blocks_compile_or_are_listed_with_reasons():
    result = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "good.md"])
    assert result.violations == ()
    # the runtime API, the Module API, a CUDA block, the 1.4 tensor API (1.4.1 wheel)
    assert result.compiled == 4 and result.parsed_cmake == 1
    assert [(item.line, item.header) for item in result.listed] == [
        (90, "executorch/extension/module/module.h"),
        (98, "torch_tensorrt/executorch/TensorRTBackend.h"),
        (107, ""),
    ]
    assert "1.4.1 wheel" in result.listed[0].reason
    assert all(item.reason for item in result.listed)


def test_bad_blocks_fail_with_file_and_line():
    result = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "bad.md"])
    got = [(v.line, v.rule) for v in result.violations]
    assert got == [(8, "cpp-compile"), (16, "cpp-compile"), (22, "header-missing"), (30, "cmake-parse"),
                   (41, "cpp-compile"), (51, "api-version")]
    text = "\n".join(map(str, result.violations))
    assert "drift-cpp/bad.md:8: [cpp-compile] g++ -fsyntax-only: expected" in text
    assert "'MethodNotThere'" in text.replace("‘", "'").replace("’", "'")
    assert "text_llm_runner.h> is not on this machine and not in EXPECTED_MISSING" in text
    # the 1.4 call, unmarked, meets the 1.5 signature (the device moved after the type)
    assert "drift-cpp/bad.md:41: [cpp-compile] g++ -fsyntax-only: no matching function" in text
    assert "marked for executorch 0.9; the headers here are executorch 1.4, 1.5" in text


def test_real_pages():
    result = cpp.check_pages(ROOT)
    assert result.violations == (), "\n".join(map(str, result.violations))
    assert {(item.path, item.header) for item in result.listed if item.header} == REAL_EXPECTED_MISSING


def test_writefile_cells_are_checked_as_the_files_they_write():
    # a planted compile error in a %%writefile cell names the page line of the error
    result = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "writefile.md"])
    got = [(v.line, v.rule) for v in result.violations]
    assert got == [(16, "cpp-compile"), (25, "cmake-parse")]
    assert result.compiled == 1 and result.parsed_cmake == 1


def test_cxx_package_install_command():
    ok, _ = parse_command('pip install --no-deps --target "$HOME/et" "executorch==1.5.1"', "p.md", 3)
    ok = [dataclasses.replace(c, cxx_package=True) for c in ok]
    assert installs.check_command(ok[0], TABLE) == []
    bad, _ = parse_command("pip install executorch==1.5.0 torch", "p.md", 4)
    bad = [dataclasses.replace(c, cxx_package=True) for c in bad]
    messages = [v.message for v in installs.check_command(bad[0], TABLE)]
    assert len(messages) == 3 and all(v.rule == "cxx-package" for v in installs.check_command(bad[0], TABLE))
    assert "--target DIR and --no-deps" in messages[0] and "not executorch, torch" in messages[1]
    assert f"(executorch {cxxsdk.sdk_version()})" in messages[2]
    # unmarked, the same 1.5 pin disagrees with the release's pin
    plain, _ = parse_command("pip install executorch==1.5.1", "p.md", 5)
    assert [v.rule for v in installs.check_command(plain[0], TABLE)] == ["pin-agrees"]


def test_policy_pairs():
    assert cxxsdk.within_policy("1.4.1", "1.5.1") and cxxsdk.within_policy("1.4.1", "1.4.0")
    assert not cxxsdk.within_policy("1.4.1", "1.6.0") and not cxxsdk.within_policy("1.5.0", "1.4.1")
    assert cxxsdk.within_policy("1.9.0", "2.0.0") and not cxxsdk.within_policy("1.9.0", "2.1.0")
    assert cxxsdk.pairing("1.4.1", "1.5.1")["within_policy"] is True


def test_cxx_toolchain_is_in_the_notebook_cache_key(monkeypatch):
    from trtdocs.notebooks import environment
    from trtdocs.notebooks.cachekey import environment_digest

    base = environment.Environment(
        platform="Linux", machine="x86_64", cpu_model="cpu", cpu_count=2, versions={}, cuda_available=False,
        gpu_name=None, driver_version=None, cuda_runtime=None, cuda_error=None, torch_tensorrt_imports=False,
        torch_tensorrt_error=None, packages_digest="0", fingerprint="f", cxx_toolchain=cxxsdk.toolchain())
    assert base.cxx_toolchain["executorch_cxx"] == cxxsdk.sdk_version() is not None
    assert base.cxx_toolchain["cmake"].startswith("cmake version")
    for key in ("executorch_cxx", "compiler", "cmake", "ninja"):
        changed = dataclasses.replace(base, cxx_toolchain={**base.cxx_toolchain, key: "other"})
        assert environment_digest(changed) != environment_digest(base), key
    # the probe's fingerprint follows the compiler, so a new compiler probes again
    before = environment.fingerprint()
    monkeypatch.setenv("CXX", "g++-that-is-not-here")
    assert environment.fingerprint() != before


def test_writefile_cells_are_not_read_as_python():
    from trtdocs.api.index import ApiIndex
    from trtdocs.drift import api

    findings = api.check_notebook(FIXTURES / "drift-cpp" / "writefile.md", ApiIndex.load(), root=FIXTURES)
    assert findings == []


def test_writefile_cells_of_cpp_files_are_highlighted_as_cpp():
    from docutils import nodes
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    from trtdocs.output import cellmagic

    doc = new_document("<t>", get_default_settings(Parser))
    cells = {"%%writefile main.cpp\nint main() { return 1 ? 0 : 1; }\n": "cpp",
             "%%writefile CMakeLists.txt\nproject(p)\n": "ipython3",
             "print(1)\n": "ipython3"}
    for source in cells:
        doc += nodes.literal_block(source, source, language="ipython3")
    cellmagic.highlight_cell_magics(None, doc)
    assert [n["language"] for n in doc.findall(nodes.literal_block)] == list(cells.values())


def test_the_installed_1_4_wheel_ships_tensor_ptr_but_no_module_api():
    # WHEEL_MISSING's reason, measured on the installed wheel's own file list
    import importlib.metadata

    files = {str(f) for f in importlib.metadata.distribution("executorch").files or ()
             if str(f).startswith("executorch/include/")}
    assert "executorch/include/executorch/extension/tensor/tensor_ptr.h" in files
    assert not any("/extension/module/" in f for f in files)
    assert cpp.expected_reason("executorch/extension/module/module.h", cpp.WHEEL_MISSING)


@pytest.mark.network
def test_no_executorch_1_4_package_on_pypi_ships_the_module_api():
    # UNPACKAGED / WHEEL_MISSING measured on PyPI: every 1.4.x wheel (cp311, each platform)
    # carries extension/tensor but not extension/module, and no 1.4.x sdist exists.
    import zipfile

    from packaging.utils import parse_wheel_filename
    from packaging.version import Version

    from trtdocs.drift import pypi

    files = [f for f in pypi.project("executorch")["files"] if not f.get("yanked")]
    assert not [f["filename"] for f in files if f["filename"].endswith((".tar.gz", ".zip"))
                and f["filename"].startswith("executorch-1.4")]
    wheels = [f for f in files if f["filename"].endswith(".whl") and "-cp311-" in f["filename"]
              and parse_wheel_filename(f["filename"])[1] in (Version("1.4.0"), Version("1.4.1"))]
    assert len(wheels) >= 8  # two releases, four platforms
    for f in wheels:
        with zipfile.ZipFile(pypi._RangeFile(f["url"], int(f["size"]))) as zf:
            names = zf.namelist()
        assert "executorch/include/executorch/extension/tensor/tensor_ptr.h" in names, f["filename"]
        assert not any("extension/module/" in n and n.endswith(".h") for n in names), f["filename"]


def test_a_block_for_an_unpackaged_release_is_listed_and_a_mistyped_one_fails(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("% drift: executorch 1.6\n```cpp\nint main() { return 0; }\n```\n\n"
                    "% drift: executorch 1.66\n```cpp\nint main() { return 0; }\n```\n", encoding="utf-8")
    result = cpp.check_pages(tmp_path, paths=[page])
    assert [(item.fence_line, item.release, item.reason) for item in result.listed] == [
        (2, "1.6", cpp.UNPACKAGED_RELEASES["1.6"])]
    assert [(v.line, v.rule) for v in result.violations] == [(8, "api-version")]
    assert "UNPACKAGED_RELEASES" in result.violations[0].message


def test_a_block_that_compiled_is_not_compiled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stamp per block that compiled (code, flags, include folders, compiler);
    a failing block leaves none, so it fails on every check."""
    monkeypatch.setenv("TRTDOCS_CACHE_DIR", str(tmp_path))
    stamps = tmp_path / cpp.PASSED
    first = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "good.md"])
    made = sorted(stamps.iterdir())
    assert first.compiled == 4 and len(made) == 4
    again = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "good.md"])
    assert (again.violations, again.compiled) == ((), 4) and sorted(stamps.iterdir()) == made
    bad = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "bad.md"])
    assert bad.violations and sorted(stamps.iterdir()) == made
    dirs = cpp.include_dirs(())
    assert cpp.passed_stamp("int main() {}\n", dirs) != cpp.passed_stamp("int main() { }\n", dirs)

"""C++/CMake guard: compile against the ExecuTorch wheel's headers, list what cannot be."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from paths import FIXTURES, ROOT
from trtdocs.drift import cpp, gxx, headers, installs
from trtdocs.features.validate import load as load_features
from trtdocs.notebooks import cxxsdk
from trtdocs.pages.blocks import iter_blocks
from trtdocs.pages.commands import parse_command

TABLE = load_features(ROOT / "docs" / "features.toml")

# The stubs each real page's blocks read (page -> stub headers): every other header
# comes from a package. Update with the pages.
REAL_STUBS: dict[str, set[str]] = {
    "notebooks/dynamic-shapes.md": {"torch_tensorrt/executorch/TensorRTBackend.h"},
    "notebooks/performance.md": {"executorch/extension/cuda/caller_stream.h"},
    "notebooks/run-cpp.md": {
        "executorch/extension/cuda/caller_stream.h"
    },  # the split-program runner
}
DELEGATE = FIXTURES / "drift-cpp" / "delegate.md"


def test_cxx_package_headers_are_found():
    inc = headers.executorch_include()
    assert inc is not None and inc == cxxsdk.include_dir()
    # the C++ package has the Module API; the 1.4.1 wheel does not
    assert (inc / "executorch/extension/module/module.h").is_file()
    wheel = headers.wheel_include()
    assert wheel is not None and not (wheel / "executorch/extension/module/module.h").exists()
    assert set(headers.api_folders()) == {"1.4", "1.5"}


def test_cuda_headers_are_found():
    inc = headers.cuda_include()
    assert inc is not None and (inc / "crt" / "host_config.h").is_file()


def test_the_stubs_come_last_and_only_when_on():
    on = headers.folders(stubs=True)
    assert on[-1] == headers.Folder(headers.STUBS, "stubs", "") and not any(
        f.kind == "stubs" for f in on[:-1]
    )
    assert not any(f.kind == "stubs" for f in headers.folders(stubs=False))
    real = headers.folders(extra=[Path("/real")], stubs=True)
    assert [f.kind for f in real][-2:] == ["real", "stubs"]  # real headers win over the stubs


def test_good_blocks_compile_or_are_listed_with_reasons():
    result = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "good.md"], stubs=True)
    assert result.violations == ()
    # the runtime API, the Module API, a CUDA block, the
    # 1.4 tensor API (1.4.1 wheel), the delegate's stub
    assert result.compiled == 5 and result.parsed_cmake == 1
    assert [(item.line, item.header) for item in result.listed] == [
        (90, "executorch/extension/module/module.h"),
        (107, ""),
    ]
    assert "1.4.1 wheel" in result.listed[0].reason
    assert all(item.reason for item in result.listed)
    package = f"ExecuTorch {cxxsdk.sdk_version()}'s C++ package"
    by_line = {done.fence_line: done for done in result.blocks}
    assert by_line[5].against == (package,) and by_line[5].stubs == ()
    assert by_line[73].against == (f"the executorch {headers.wheel_version()} wheel's headers",)
    assert by_line[59].against[0] == package and by_line[59].against[1].startswith("CUDA 1")
    assert by_line[97].stubs == ("torch_tensorrt/executorch/TensorRTBackend.h",)


def test_bad_blocks_fail_with_file_and_line():
    result = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "bad.md"], stubs=True)
    got = [(v.line, v.rule) for v in result.violations]
    assert got == [
        (8, "cpp-compile"),
        (16, "cpp-compile"),
        (22, "header-missing"),
        (30, "cmake-parse"),
        (41, "cpp-compile"),
        (51, "api-version"),
    ]
    text = "\n".join(map(str, result.violations))
    assert "drift-cpp/bad.md:8: [cpp-compile] g++ -fsyntax-only: expected" in text
    assert "'MethodNotThere'" in text.replace("‘", "'").replace("’", "'")
    assert (
        "text_llm_runner.h> is in no include folder, and no stub in docs/_ext/trtdocs/drift/stubs"
        in text
    )
    # the 1.4 call, unmarked, meets the 1.5 signature (the device moved after the type)
    assert "drift-cpp/bad.md:41: [cpp-compile] g++ -fsyntax-only: no matching function" in text
    assert "marked for executorch 0.9; the headers here are executorch 1.4, 1.5" in text


def test_a_missing_include_in_a_block_of_the_delegate_fails():
    """Planted: the block includes the delegate's header (a stub here) and uses
    TensorPtr without including what declares it; a copy of the guard, which the
    real header deletes. Both fail with the page's lines; the fixed block compiles."""
    result = cpp.check_pages(FIXTURES, paths=[DELEGATE], stubs=True)
    got = [(v.line, v.rule) for v in result.violations]
    assert got[:3] == [(12, "cpp-compile"), (15, "cpp-compile"), (17, "cpp-compile")]
    assert "'TensorPtr' has not been declared" in str(result.violations[0]).replace(
        "‘", "'"
    ).replace("’", "'")
    assert got[3:] == [(53, "cpp-compile")] and "deleted function" in result.violations[3].message
    assert [(d.fence_line, d.stubs) for d in result.blocks] == [
        (23, ("torch_tensorrt/executorch/TensorRTBackend.h",)),
        (59, ("executorch/extension/cuda/caller_stream.h",)),
    ]


def test_without_stubs_a_header_no_folder_has_fails_its_block():
    result = cpp.check_pages(FIXTURES, paths=[DELEGATE], stubs=False)
    assert {(v.line, v.rule) for v in result.violations} == {
        (7, "header-missing"),
        (24, "header-missing"),
        (47, "header-missing"),
        (61, "header-missing"),
    }
    assert "the stubs are off (TRTDOCS_CXX_STUBS=0)" in result.violations[0].message
    assert result.blocks == ()


def test_real_headers_come_before_the_stubs(tmp_path: Path):
    """A folder of real headers (TRTDOCS_CXX_INCLUDE) wins over a stub, and the block says
    which headers came from it. Here the 'real' header is a copy of the stub."""
    real = tmp_path / "real"
    for name in headers.stub_headers():
        (real / name).parent.mkdir(parents=True, exist_ok=True)
        (real / name).write_bytes((headers.STUBS / name).read_bytes())
    result = cpp.check_pages(FIXTURES, paths=[DELEGATE], extra_include=[real], stubs=True)
    assert [(d.fence_line, d.real, d.stubs) for d in result.blocks] == [
        (23, ("torch_tensorrt/executorch/TensorRTBackend.h",), ()),
        (59, ("executorch/extension/cuda/caller_stream.h",), ()),
    ]


def test_real_pages():
    """Every C++ block of the guide compiles: none is listed, none fails."""
    result = cpp.check_pages(ROOT, stubs=True)
    assert result.violations == (), "\n".join(map(str, result.violations))
    assert result.listed == ()
    stubs: dict[str, set[str]] = {}
    for done in result.blocks:
        if done.stubs:
            stubs.setdefault(done.path, set()).update(done.stubs)
    assert stubs == REAL_STUBS


def test_writefile_cells_are_checked_as_the_files_they_write():
    # a planted compile error in a %%writefile cell names the page line of the error
    result = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "writefile.md"], stubs=True)
    got = [(v.line, v.rule) for v in result.violations]
    assert got == [(16, "cpp-compile"), (25, "cmake-parse")]
    assert result.compiled == 0 and result.parsed_cmake == 1  # compiled: without an error


def test_the_source_builds_gated_cells_are_compiled_and_parsed(tmp_path: Path):
    """run-cpp's source build is cells gated on the GPU and its inputs; the guard still
    compiles the C++ file a cell writes, with the stub it needs, and parses the CMake."""
    page = ROOT / "notebooks" / "run-cpp.md"
    cells = [
        b
        for b in map(cpp.code_block, iter_blocks(page))
        if b is not None
        and b.kind == "writefile"
        and "source-build" in b.options.get("requires", "")
    ]
    assert [b.language for b in cells] == ["cmake", "cpp", "cmake"], cells
    result = cpp.check_pages(ROOT, paths=[page], stubs=True)
    split = next(d for d in result.blocks if d.fence_line == cells[1].fence_line)
    assert split.stubs == ("executorch/extension/cuda/caller_stream.h",)
    # planted: the split runner without the header that declares make_tensor_ptr
    text = page.read_text(encoding="utf-8")
    planted = tmp_path / "run-cpp.md"
    include = "#include <executorch/extension/tensor/tensor.h>\n"
    start = text.index("%%writefile trt_pte_runner/split_runner.cpp")
    planted.write_text(text[:start] + text[start:].replace(include, "", 1), encoding="utf-8")
    bad = cpp.check_pages(tmp_path, paths=[planted], stubs=True)
    assert [v.rule for v in bad.violations] and {v.rule for v in bad.violations} == {"cpp-compile"}
    assert any("make_tensor_ptr" in v.message for v in bad.violations), bad.violations
    # planted: an unclosed call in the appended CMake of the split runner
    cmake = "add_executable(split_runner split_runner.cpp)"
    planted.write_text(text.replace(cmake, cmake[:-1]), encoding="utf-8")
    assert [v.rule for v in cpp.check_pages(tmp_path, paths=[planted], stubs=True).violations] == [
        "cmake-parse"
    ]


def test_cxx_package_install_command():
    ok, _ = parse_command(
        'pip install --no-deps --target "$HOME/et" "executorch==1.5.1"', "p.md", 3
    )
    ok = [dataclasses.replace(c, cxx_package=True) for c in ok]
    assert installs.check_command(ok[0], TABLE) == []
    bad, _ = parse_command("pip install executorch==1.5.0 torch", "p.md", 4)
    bad = [dataclasses.replace(c, cxx_package=True) for c in bad]
    messages = [v.message for v in installs.check_command(bad[0], TABLE)]
    assert len(messages) == 3 and all(
        v.rule == "cxx-package" for v in installs.check_command(bad[0], TABLE)
    )
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
        platform="Linux",
        machine="x86_64",
        cpu_model="cpu",
        cpu_count=2,
        versions={},
        cuda_available=False,
        gpu_name=None,
        driver_version=None,
        cuda_runtime=None,
        cuda_error=None,
        torch_tensorrt_imports=False,
        torch_tensorrt_error=None,
        packages_digest="0",
        fingerprint="f",
        cxx_toolchain=cxxsdk.toolchain(),
    )
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

    findings = api.check_notebook(
        FIXTURES / "drift-cpp" / "writefile.md", ApiIndex.load(), root=FIXTURES
    )
    assert findings == []


def test_writefile_cells_of_cpp_files_are_highlighted_as_cpp():
    from docutils import nodes
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    from trtdocs.output import cellmagic

    doc = new_document("<t>", get_default_settings(Parser))
    cells = {
        "%%writefile main.cpp\nint main() { return 1 ? 0 : 1; }\n": "cpp",
        "%%writefile CMakeLists.txt\nproject(p)\n": "ipython3",
        "print(1)\n": "ipython3",
    }
    for source in cells:
        doc += nodes.literal_block(source, source, language="ipython3")
    cellmagic.highlight_cell_magics(None, doc)
    assert [n["language"] for n in doc.findall(nodes.literal_block)] == list(cells.values())


def test_the_installed_1_4_wheel_ships_tensor_ptr_but_no_module_api():
    # WHEEL_MISSING's reason, measured on the installed wheel's own file list
    import importlib.metadata

    files = {
        str(f)
        for f in importlib.metadata.distribution("executorch").files or ()
        if str(f).startswith("executorch/include/")
    }
    assert "executorch/include/executorch/extension/tensor/tensor_ptr.h" in files
    assert not any("/extension/module/" in f for f in files)
    assert gxx.expected_reason("executorch/extension/module/module.h", cpp.WHEEL_MISSING)


@pytest.mark.network
def test_no_executorch_1_4_package_on_pypi_ships_the_module_api():
    # UNPACKAGED / WHEEL_MISSING measured on PyPI: every 1.4.x wheel (cp311, each platform)
    # carries extension/tensor but not extension/module, and no 1.4.x sdist exists.
    import zipfile

    from packaging.utils import parse_wheel_filename
    from packaging.version import Version

    from trtdocs.drift import pypi

    files = [f for f in pypi.project("executorch")["files"] if not f.get("yanked")]
    assert not [
        f["filename"]
        for f in files
        if f["filename"].endswith((".tar.gz", ".zip"))
        and f["filename"].startswith("executorch-1.4")
    ]
    wheels = [
        f
        for f in files
        if f["filename"].endswith(".whl")
        and "-cp311-" in f["filename"]
        and parse_wheel_filename(f["filename"])[1] in (Version("1.4.0"), Version("1.4.1"))
    ]
    assert len(wheels) >= 8  # two releases, four platforms
    for f in wheels:
        with zipfile.ZipFile(pypi._RangeFile(f["url"], int(f["size"]))) as zf:
            names = zf.namelist()
        assert "executorch/include/executorch/extension/tensor/tensor_ptr.h" in names, f["filename"]
        assert not any("extension/module/" in n and n.endswith(".h") for n in names), f["filename"]


def test_a_block_for_an_unpackaged_release_is_listed_and_a_mistyped_one_fails(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "% drift: executorch 1.6\n```cpp\nint main() { return 0; }\n```\n\n"
        "% drift: executorch 1.66\n```cpp\nint main() { return 0; }\n```\n",
        encoding="utf-8",
    )
    result = cpp.check_pages(tmp_path, paths=[page], stubs=True)
    assert [(item.fence_line, item.release, item.reason) for item in result.listed] == [
        (2, "1.6", cpp.UNPACKAGED_RELEASES["1.6"])
    ]
    assert [(v.line, v.rule) for v in result.violations] == [(8, "api-version")]
    assert "UNPACKAGED_RELEASES" in result.violations[0].message


def test_a_block_that_compiled_is_not_compiled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stamp per block that compiled (code, flags, include folders, stubs, compiler),
    holding what it read; a failing block leaves none, so it fails on every check."""
    monkeypatch.setenv("TRTDOCS_CACHE_DIR", str(tmp_path))
    stamps = tmp_path / gxx.PASSED
    first = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "good.md"], stubs=True)
    made = sorted(stamps.iterdir())
    assert first.compiled == 5 and len(made) == 5
    again = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "good.md"], stubs=True)
    assert (again.violations, again.blocks) == ((), first.blocks) and sorted(
        stamps.iterdir()
    ) == made
    bad = cpp.check_pages(FIXTURES, paths=[FIXTURES / "drift-cpp" / "bad.md"], stubs=True)
    assert bad.violations and sorted(stamps.iterdir()) == made
    folders = headers.folders(stubs=True)
    assert gxx.passed_stamp("int main() {}\n", folders) != gxx.passed_stamp(
        "int main() { }\n", folders
    )
    assert gxx.passed_stamp("int main() {}\n", folders) != gxx.passed_stamp(
        "int main() {}\n", folders[:-1]
    )


def test_dependency_lists_are_read_as_g_plus_plus_writes_them():
    deps = "block.o: /tmp/x/block.cpp /usr/include/a\\ b.h \\\n /opt/inc/c.h\n"
    assert gxx.read_files(deps) == [
        Path("/tmp/x/block.cpp"),
        Path("/usr/include/a b.h"),
        Path("/opt/inc/c.h"),
    ]

